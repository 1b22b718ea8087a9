// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graphs: folded stacks into a tree of frames, and the tree as SVG
 * (flamegraph.h). Every string in a frame comes from a results directory
 * and is escaped (xml_esc); the script is ours and reads names only as
 * attribute values, writing them back as text (textContent), never as
 * markup.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "html.h"
#include "strmap.h"

#define FG_TOP 56           /* title, subtitle, the zoom line */
#define FG_CHAR_W 6.6       /* px of a character at font-size 11 monospace */
#define FG_NAME_MAX 500     /* characters of a name in a tooltip */

struct fg_node {
	char *name;              /* as folded: kernel frames end in "_[k]"; the root "all" */
	int child, next;         /* first child, next sibling: indices, or -1 */
	int depth;
	uint64_t cnt[2];         /* samples with this frame on the stack, per side */
	double val[2], self[2];  /* in the graph's unit: the frame and its own (leaf) part */
	unsigned char only;      /* 1: the name is on side 0 only, 2: on side 1 only */
};

struct fg_tree {
	struct fg_node *v;
	int n, cap;
	struct strmap kids; /* (parent, name) -> the child: one lookup a frame, however many siblings */
};

struct fg_tree *fg_tree_new(void)
{
	struct fg_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->v = calloc(1, sizeof(*t->v));
	if (!t->v || !(t->v[0].name = strdup("all"))) {
		fg_tree_free(t);
		return NULL;
	}
	t->v[0].child = t->v[0].next = -1;
	t->n = t->cap = 1;
	return t;
}

void fg_tree_free(struct fg_tree *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	strmap_free(&t->kids);
	free(t);
}

double fg_total(const struct fg_tree *t, int side)
{
	return t->v[0].val[side];
}

/* The child of p named name[0..len), made if new; -1 when out of room. */
static int child_of(struct fg_tree *t, int p, const char *name, size_t len)
{
	size_t found = strmap_get(&t->kids, (uint64_t)p, name, len);
	int c;

	if (found != STRMAP_NONE)
		return (int)found;
	if (t->n >= FG_MAX_NODES)
		return -1;
	if (t->n == t->cap) {
		struct fg_node *v = realloc(t->v, 2 * t->cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap *= 2;
	}
	c = t->n;
	t->v[c] = (struct fg_node){ .name = strndup(name, len), .child = -1, .next = t->v[p].child,
				    .depth = t->v[p].depth + 1 };
	if (!t->v[c].name)
		return -1;
	t->n++;
	if (strmap_put(&t->kids, (uint64_t)p, t->v[c].name, len, (size_t)c) < 0)
		return -1;
	t->v[p].child = c;
	return c;
}

int fg_tree_add(struct fg_tree *t, int side, const struct prof_folded *f, double weight)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *p = f->v[i].stack;
		uint64_t c = f->v[i].count;
		double w = (double)c * weight;
		int node = 0;

		if (prof_stack_is_idle(p))
			continue;
		t->v[0].cnt[side] = prof_count_add(t->v[0].cnt[side], c);
		t->v[0].val[side] += w;
		while (*p && t->v[node].depth < FG_MAX_DEPTH) {
			const char *end = strchr(p, ';');
			size_t len = end ? (size_t)(end - p) : strlen(p);

			node = child_of(t, node, p, len);
			if (node < 0)
				return -1;
			t->v[node].cnt[side] = prof_count_add(t->v[node].cnt[side], c);
			t->v[node].val[side] += w;
			p += len + (end != NULL);
		}
		t->v[node].self[side] += w;
	}
	return 0;
}

/* ---- marking the names of one side only ---- */

static int cmp_by_name(const void *a, const void *b, void *tree)
{
	const struct fg_tree *t = tree;

	return strcmp(t->v[*(const int *)a].name, t->v[*(const int *)b].name);
}

/* Each frame whose name has samples on one side only (anywhere in the tree) is marked. */
static int mark_one_side(struct fg_tree *t)
{
	int *idx = malloc(t->n * sizeof(*idx));

	if (!idx)
		return -1;
	for (int i = 0; i < t->n; i++)
		idx[i] = i;
	qsort_r(idx, t->n, sizeof(*idx), cmp_by_name, t);
	for (int i = 0, j; i < t->n; i = j) {
		bool on[2] = { false, false };

		for (j = i; j < t->n && !strcmp(t->v[idx[j]].name, t->v[idx[i]].name); j++) {
			on[0] |= t->v[idx[j]].cnt[0] > 0;
			on[1] |= t->v[idx[j]].cnt[1] > 0;
		}
		for (int k = i; k < j; k++)
			t->v[idx[k]].only = on[0] && !on[1] ? 1 : !on[0] && on[1] ? 2 : 0;
	}
	free(idx);
	return 0;
}

/* ---- layout ---- */

struct fg_draw {
	FILE *f;
	const struct fg_tree *t;
	const struct fg_labels *l;
	double scale;       /* px per unit of width value */
	double cscale;      /* differential: the change that gets the fullest colour */
	int maxdepth;       /* the deepest frame drawn */
	int *kids;          /* scratch: children sorted by name, per depth */
};

static double width_value(const struct fg_draw *d, const struct fg_node *n)
{
	return d->l->diff ? n->val[0] + n->val[1] : n->val[1];
}

/* The children of node in name order into out (room for all); their number. */
static int sorted_kids(const struct fg_tree *t, int node, int *out)
{
	int k = 0;

	for (int c = t->v[node].child; c >= 0; c = t->v[c].next)
		out[k++] = c;
	qsort_r(out, k, sizeof(*out), cmp_by_name, (void *)t);
	return k;
}

/*
 * The deepest frame, and the largest change of a frame below the root.
 * Every frame is drawn, however narrow: zooming shows it, and a function's
 * frames add up to its figure in the text report.
 */
static void measure(struct fg_draw *d, int node)
{
	const struct fg_node *n = &d->t->v[node];
	double delta = fabs(n->val[1] - n->val[0]);

	if (width_value(d, n) <= 0)
		return;
	if (n->depth > d->maxdepth)
		d->maxdepth = n->depth;
	if (node && isfinite(delta) && delta > d->cscale)
		d->cscale = delta;
	for (int c = n->child; c >= 0; c = d->t->v[c].next)
		measure(d, c);
}

/* ---- colours ---- */

static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* A differential colour: red for more, blue for less, white for no change; t in [-1, 1]. */
static void diff_colour(double t, char *buf, size_t len)
{
	double i = sqrt(fmin(1, fabs(t)));
	int hi = 255, lo = (int)lround(255 - 215 * i);

	if (t >= 0)
		snprintf(buf, len, "rgb(%d,%d,%d)", hi, lo, lo);
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", lo, lo, hi);
}

/* A single graph's colour: by kind (kernel orange, user red-yellow, command grey-blue), shade by name. */
static void frame_colour(const struct fg_draw *d, const struct fg_node *n, char *buf, size_t len)
{
	double v = (name_hash(n->name) % 1000) / 1000.0;
	size_t nl = strlen(n->name), kl = strlen(PROF_KERNEL_SUFFIX);

	if (d->l->diff) {
		diff_colour(d->cscale > 0 ? (n->val[1] - n->val[0]) / d->cscale : 0, buf, len);
	} else if (n->depth == 0) {
		snprintf(buf, len, "rgb(200,200,200)");
	} else if (n->depth == 1) {
		snprintf(buf, len, "rgb(%d,%d,%d)", 160 + (int)(40 * v), 170 + (int)(40 * v), 215);
	} else if (nl > kl && !strcmp(n->name + nl - kl, PROF_KERNEL_SUFFIX)) {
		snprintf(buf, len, "rgb(%d,%d,%d)", 220 + (int)(35 * v), 120 + (int)(80 * v), (int)(40 * v));
	} else {
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * v), (int)(180 * v), (int)(55 * v));
	}
}

/* ---- frames ---- */

/* "k", "u", "c" (command) or "r" (the root), and the name shown (without "_[k]"). */
static const char *frame_kind(const struct fg_node *n, const char **shown, char *buf, size_t len)
{
	bool kernel;

	*shown = n->depth < 2 ? n->name : prof_func_display(n->name, &kernel, buf, len);
	if (n->depth == 0)
		return "r";
	if (n->depth == 1)
		return "c";
	return kernel ? "k" : "u";
}

static const char *kind_word(const char *k)
{
	return *k == 'k' ? "kernel" : *k == 'u' ? "user" : *k == 'c' ? "command" : "every busy sample";
}

/* The tooltip's text (escaped): the function, its share and its value. */
static void frame_title(const struct fg_draw *d, const struct fg_node *n, const char *shown, const char *kind)
{
	FILE *f = d->f;
	const struct fg_node *r = &d->t->v[0];
	double sh[2];

	for (int s = 0; s < 2; s++)
		sh[s] = r->cnt[s] ? 100.0 * n->cnt[s] / r->cnt[s] : 0;
	xml_esc(f, shown, FG_NAME_MAX);
	fprintf(f, " (%s)\n", kind_word(kind));
	if (!d->l->diff) {
		fprintf(f, "%.1f%% of the busy samples", sh[1]);
		if (strcmp(d->l->unit, "cycles/byte"))
			fprintf(f, "; self %.3f%%", n->self[1]);
		else
			fprintf(f, "\n%.3f cycles/byte, self %.3f", n->val[1], n->self[1]);
		return;
	}
	xml_esc(f, d->l->side[0], 200);
	fprintf(f, " %.3f -> ", n->val[0]);
	xml_esc(f, d->l->side[1], 200);
	fprintf(f, " %.3f ", n->val[1]);
	xml_esc(f, d->l->unit, 40);
	fprintf(f, " (%+.3f)\nself %.3f -> %.3f (%+.3f); busy samples %.1f%% -> %.1f%%", n->val[1] - n->val[0],
		n->self[0], n->self[1], n->self[1] - n->self[0], sh[0], sh[1]);
	if (n->only) {
		fputs("\nonly in ", f);
		xml_esc(f, d->l->side[n->only - 1], 200);
	}
}

/* One frame: a group with its data, tooltip, rectangle(s) and label. */
static void frame(const struct fg_draw *d, const struct fg_node *n, double x, double w)
{
	FILE *f = d->f;
	double y = FG_TOP + (d->maxdepth - n->depth) * FG_FRAME_H;
	char colour[40], buf[600];
	const char *shown, *kind = frame_kind(n, &shown, buf, sizeof(buf));
	double chars = (w - 6) / FG_CHAR_W;
	/* w is finite and at most the graph's width (frames): no conversion out of int's range */
	int fit = chars > 0 ? (int)fmin(chars, FG_WIDTH) : 0;

	frame_colour(d, n, colour, sizeof(colour));
	fprintf(f, "<g class=\"f\" data-k=\"%s\" data-d=\"%d\" data-v=\"%.7g\" data-sv=\"%.7g\"", kind, n->depth,
		n->val[1], n->self[1]);
	if (d->l->diff)
		fprintf(f, " data-b=\"%.7g\" data-sb=\"%.7g\"%s", n->val[0], n->self[0],
			n->only == 1 ? " data-only=\"base\"" : n->only == 2 ? " data-only=\"new\"" : "");
	fputs(" data-n=\"", f);
	xml_esc(f, shown, FG_NAME_MAX);
	fputs("\"><title>", f);
	frame_title(d, n, shown, kind);
	fprintf(f, "</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>", x, y,
		w, FG_FRAME_H - 1, colour);
	if (n->only)
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"url(#%s-o%d)\" "
			   "pointer-events=\"none\"/>", x, y, w, FG_FRAME_H - 1, d->l->id, n->only - 1);
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FG_FRAME_H - 4.5);
	if (fit >= 6 || (fit >= 3 && xml_chars(shown) <= (size_t)fit))
		xml_esc(f, shown, fit);
	fputs("</text></g>\n", f);
}

/* node and its children from x on, as wide as their values; kids is scratch of t->n ints. */
static void frames(const struct fg_draw *d, int node, double x, int *kids)
{
	const struct fg_node *n = &d->t->v[node];
	double w = width_value(d, n) * d->scale;
	int k;

	if (!(w > 0) || !isfinite(w))
		return;
	frame(d, n, x, w);
	k = sorted_kids(d->t, node, kids);
	for (int i = 0; i < k; i++) {
		const struct fg_node *c = &d->t->v[kids[i]];

		frames(d, kids[i], x, kids + k);
		x += width_value(d, c) * d->scale;
	}
}

/* ---- the picture ---- */

/*
 * Hover: the frame's tooltip on the details line. Click: zoom to the
 * frame (its ancestors full width, what is beside it hidden); a click on
 * the root or on "Reset zoom" zooms out. Inside CDATA so that the same
 * text is valid in an SVG file and inlined in HTML.
 */
static const char fg_script[] =
	"<script type=\"text/javascript\"><![CDATA[\n"
	"(function (id) {\n"
	"var s = document.getElementById(id), P = +s.getAttribute('data-pad'), W = +s.getAttribute('data-fw');\n"
	"var fs = s.querySelectorAll('g.f'), det = document.getElementById(id + '-det');\n"
	"var rs = document.getElementById(id + '-reset');\n"
	"fs.forEach(function (g) {\n"
	"  var r = g.querySelector('rect');\n"
	"  g.ox = +r.getAttribute('x'); g.ow = +r.getAttribute('width'); g.od = +g.getAttribute('data-d');\n"
	"});\n"
	"function label(g, w) {\n"
	"  var n = g.getAttribute('data-n'), c = Math.floor((w - 6) / 6.6), t = g.querySelector('text');\n"
	"  t.textContent = n.length <= c && c >= 3 ? n : c < 6 ? '' : n.substr(0, c - 3) + '...';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  g.querySelectorAll('rect').forEach(function (r) {\n"
	"    r.setAttribute('x', x.toFixed(3)); r.setAttribute('width', w.toFixed(3));\n"
	"  });\n"
	"  g.querySelector('text').setAttribute('x', (x + 3).toFixed(2));\n"
	"  label(g, w); g.style.display = '';\n"
	"}\n"
	"function zoom(z) {\n"
	"  var zx = z.ox, zw = z.ow, zd = z.od;\n"
	"  var k = W / zw, e = 1e-3;\n"
	"  fs.forEach(function (g) {\n"
	"    var x = g.ox, w = g.ow, d = g.od;\n"
	"    if (d < zd) {\n"
	"      if (x <= zx + e && x + w >= zx + zw - e) place(g, P, W); else g.style.display = 'none';\n"
	"    } else if (x >= zx - e && x + w <= zx + zw + e) place(g, P + (x - zx) * k, w * k);\n"
	"    else g.style.display = 'none';\n"
	"  });\n"
	"  rs.style.display = zd > 0 ? '' : 'none';\n"
	"  s.setAttribute('data-zoom', zd > 0 ? z.getAttribute('data-n') : '');\n"
	"}\n"
	"s.addEventListener('click', function (e) {\n"
	"  var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"  if (g) zoom(g); else if (e.target === rs) zoom(fs[0]);\n"
	"});\n"
	"s.addEventListener('mouseover', function (e) {\n"
	"  var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"  if (g) det.textContent = g.querySelector('title').textContent.replace(/\\n/g, '; ');\n"
	"});\n"
	"})('%s');\n"
	"]]></script>\n";

/* Hatching for the frames of one side only, and the differential's legend gradient. */
static void defs(const struct fg_draw *d)
{
	FILE *f = d->f;
	char c[40];

	fputs("<defs>", f);
	for (int s = 0; s < 2; s++)
		fprintf(f, "<pattern id=\"%s-o%d\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
			   "patternTransform=\"rotate(%d)\"><rect width=\"2\" height=\"6\" fill=\"rgb(0,0,0)\" "
			   "fill-opacity=\"0.35\"/></pattern>", d->l->id, s, s ? 45 : -45);
	fprintf(f, "<linearGradient id=\"%s-scale\">", d->l->id);
	/* the bar's position is linear in the colour's intensity, the square root of the change */
	for (int i = 0; i <= 8; i++) {
		double u = i / 4.0 - 1;

		diff_colour(u * fabs(u), c, sizeof(c));
		fprintf(f, "<stop offset=\"%.3f\" stop-color=\"%s\"/>", i / 8.0, c);
	}
	fputs("</linearGradient></defs>\n", f);
}

/* The differential's legend: the colour scale (square-root: small changes still show) and the hatching. */
static void legend(const struct fg_draw *d, double y)
{
	FILE *f = d->f;
	static const double at[] = { -1, -0.25, 0, 0.25, 1 };
	double x0 = FG_PAD + 40, bw = 400;

	fprintf(f, "<g class=\"legend\"><text x=\"%d\" y=\"%.1f\">change in ", FG_PAD, y);
	xml_esc(f, d->l->unit, 40);
	fputs(", ", f);
	xml_esc(f, d->l->side[1], 200);
	fputs(" minus ", f);
	xml_esc(f, d->l->side[0], 200);
	fprintf(f, " (the frame and what it calls):</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" "
		   "fill=\"url(#%s-scale)\" stroke=\"rgb(120,120,120)\"/>\n", x0, y + 6, bw, d->l->id);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		double v = at[i] * d->cscale, pos = (at[i] < 0 ? -sqrt(-at[i]) : sqrt(at[i])) / 2 + 0.5;

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.4g</text>\n", x0 + pos * bw, y + 32,
			v);
	}
	for (int s = 0; s < 2; s++) {
		double lx = x0 + bw + 40 + s * 330;

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"12\" fill=\"rgb(255,255,255)\" "
			   "stroke=\"rgb(120,120,120)\"/><rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"12\" "
			   "fill=\"url(#%s-o%d)\"/><text x=\"%.1f\" y=\"%.1f\">only in ",
			lx, y + 6, lx, y + 6, d->l->id, s, lx + 46, y + 16);
		xml_esc(f, d->l->side[s], 40);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

/* The title and the line under it: what a frame's width is. */
static void headings(const struct fg_draw *d)
{
	FILE *f = d->f;
	const struct fg_node *r = &d->t->v[0];

	fprintf(f, "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" font-size=\"15\">", FG_WIDTH / 2);
	xml_esc(f, d->l->title, 150);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"34\" text-anchor=\"middle\" fill=\"rgb(60,60,60)\">", FG_WIDTH / 2);
	if (d->l->diff) {
		fputs("width: ", f);
		xml_esc(f, d->l->unit, 40);
		fputs(" of both sides together; ", f);
		xml_esc(f, d->l->side[0], 100);
		fprintf(f, " %.4g, ", r->val[0]);
		xml_esc(f, d->l->side[1], 100);
		fprintf(f, " %.4g in all; colour: the change", r->val[1]);
	} else {
		fputs("width: ", f);
		xml_esc(f, d->l->unit, 40);
		fprintf(f, " (all: %.4g); %llu busy samples", r->val[1], (unsigned long long)r->cnt[1]);
	}
	fprintf(f, "; click a frame to zoom</text>\n<text id=\"%s-reset\" x=\"%d\" y=\"50\" display=\"none\" "
		   "fill=\"rgb(0,0,160)\" cursor=\"pointer\">Reset zoom</text>\n", d->l->id, FG_PAD);
}

int fg_svg(FILE *f, const struct fg_tree *t, const struct fg_labels *l, bool standalone)
{
	struct fg_draw d = { .f = f, .t = t, .l = l };
	double total = width_value(&d, &t->v[0]), height, y;

	if (l->diff && mark_one_side((struct fg_tree *)t) < 0)
		return -1;
	/* totals that overflowed (hostile counts or cycles per byte) draw nothing rather than NaN */
	d.scale = total > 0 && isfinite(total) ? (FG_WIDTH - 2 * FG_PAD) / total : 0;
	measure(&d, 0);
	y = FG_TOP + (d.maxdepth + 1) * FG_FRAME_H + 16;
	height = y + (l->diff ? 48 : 8);
	d.kids = malloc((t->n + 1) * sizeof(*d.kids));
	if (!d.kids)
		return -1;
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" class=\"flamegraph\" width=\"%d\" "
		   "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-pad=\"%d\" data-fw=\"%d\" data-zoom=\"\" "
		   "font-family=\"monospace\" font-size=\"11\">\n",
		l->id, FG_WIDTH, height, FG_WIDTH, height, FG_PAD, FG_WIDTH - 2 * FG_PAD);
	defs(&d);
	fprintf(f, "<rect width=\"%d\" height=\"%.0f\" fill=\"rgb(%s)\"/>\n", FG_WIDTH, height,
		l->diff ? "238,238,238" : "250,250,238");
	headings(&d);
	fputs("<g class=\"frames\">\n", f);
	if (d.scale > 0)
		frames(&d, 0, FG_PAD, d.kids);
	fprintf(f, "</g>\n<text id=\"%s-det\" x=\"%d\" y=\"%.1f\"> </text>\n", l->id, FG_PAD, y);
	if (l->diff)
		legend(&d, y + 12);
	fprintf(f, fg_script, l->id);
	fputs("</svg>\n", f);
	free(d.kids);
	return ferror(f) ? -1 : 0;
}
