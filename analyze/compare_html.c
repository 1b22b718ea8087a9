// SPDX-License-Identifier: GPL-2.0
/*
 * `compare -f html`: one self-contained page, with the report page's head
 * and escaping (html.c) and charts drawn here (runs_chart.c), no gnuplot:
 * the sides, the comparability notes, the verdict, then per kernel,
 * scenario and metric the runs of both sides, the change and its p-value,
 * regressions and improvements marked; the text comparison at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "html.h"
#include "report.h"
#include "runs_chart.h"
#include "summary.h"

/* The page's own style, after the shared one. */
static const char style[] =
	"<style>.rows{display:flex;flex-wrap:wrap;gap:1em}.row{border:1px solid #bbb;padding:.5em;"
	"width:570px;max-width:100%;box-sizing:border-box}.row h4{margin:.2em 0}.row.regression"
	"{border:3px solid #c00;background:#fde2e2}.row.improvement{border:3px solid #080;"
	"background:#e2f5e2}.mark{font-weight:bold}</style>\n";

/* A side's values of row r's metric (NULL group: none); *n their number; the caller frees. */
static double *side_values(const struct side *s, const struct run_group *g, const struct metric *m, int *n)
{
	double *v = g ? calloc(g->n + 1, sizeof(*v)) : NULL;

	*n = v ? group_values(&s->r, g, m, v) : 0;
	return v;
}

/* The interval drawn around a median: distribution-free with 6 runs or more, else min-max. */
static void interval(const double *v, int n, const struct stats *st, double *lo, double *hi)
{
	if (n >= 6 && isfinite(stats_median_ci(v, n, lo, hi)))
		return;
	*lo = n ? st->min : NAN;
	*hi = n ? st->max : NAN;
}

static void row_heading(FILE *f, const struct pair_row *r)
{
	char k[1024], name[256];

	fputs("<h4>", f);
	html_esc(f, compare_kernels(r, k, sizeof(k)));
	fputs(", ", f);
	html_esc(f, r->scenario);
	fputs(": ", f);
	html_esc(f, metric_name(&r->m, name, sizeof(name)));
	fputs("</h4>\n", f);
}

/* The change, its p-value and the flag under a row's chart. */
static void row_figures(FILE *f, const struct pair_row *r, const struct compare_opts *o)
{
	char p[32];
	const char *dir = compare_direction(r);

	fputs("<p>", f);
	if (r->selected && r->v.regression)
		fputs("<span class=mark>Regression.</span> ", f);
	else if (r->selected && r->v.improvement)
		fputs("<span class=mark>Improvement.</span> ", f);
	if (isnan(r->v.change))
		fputs("change -", f);
	else
		fprintf(f, "change %+.2f%% (%s)", r->v.change, dir ? dir : "-");
	fprintf(f, ", p %s (%s)", compare_fmt_p(p, sizeof(p), r->v.p), o->test == TEST_MW ? "Mann-Whitney" : "Welch");
	fprintf(f, "; base n %d, new n %d", r->v.base.n, r->v.new.n);
	if (!r->selected)
		fputs("; not a gate", f);
	else if (!r->decidable) {
		fputs(r->nodata ? "; " : "; undecidable: ", f);
		html_esc(f, r->undecided);
	}
	fputs("</p>\n", f);
}

/* One kernel, scenario and metric: its heading, the chart, the figures. */
static int row(FILE *f, const struct comparison *c, const struct pair_row *r, int i)
{
	struct runs_side s[2] = { { .label = "base" }, { .label = "new" } };
	const struct side *sides[2] = { c->b, c->n };
	const struct run_group *g[2] = { r->gb, r->gn };
	double *v[2];
	int ret;

	for (int k = 0; k < 2; k++) {
		struct stats st;

		v[k] = side_values(sides[k], g[k], &r->m, &s[k].n);
		s[k].v = v[k];
		stats_compute(v[k], s[k].n, &st);
		s[k].median = st.median;
		interval(v[k], s[k].n, &st, &s[k].lo, &s[k].hi);
	}
	fprintf(f, "<div class=\"row%s\" id=\"row-%d\">\n",
		r->selected && r->v.regression ? " regression" : r->selected && r->v.improvement ? " improvement" : "", i);
	row_heading(f, r);
	ret = runs_chart_svg(f, &s[0], &s[1], metric_unit(&r->m));
	row_figures(f, r, c->o);
	fputs("</div>\n", f);
	free(v[0]);
	free(v[1]);
	return ret;
}

/* The sides, the notes and the verdict. */
static void head(FILE *f, const struct comparison *c)
{
	char line[2048];

	fputs("<section id=summary><h2>Summary</h2>\n<ul class=prov>\n", f);
	for (int pass = 0; pass < 2; pass++) {
		const struct side *s = pass ? c->n : c->b;

		for (int i = 0; i < s->nsrc; i++) {
			compare_dir_line(s, i, line, sizeof(line));
			fprintf(f, "<li><strong>%s</strong> ", s->name);
			html_esc(f, s->src[i].dir);
			fputs(": ", f);
			html_esc(f, line);
			fputs("</li>\n", f);
		}
	}
	fputs("</ul>\n", f);
	for (int i = 0; i < c->notes->n; i++) {
		const struct note *n = &c->notes->v[i];

		fprintf(f, "<p class=\"%s\">", !strcmp(n->code, "emulated") ? "caution" : "warn");
		html_esc(f, n->text);
		fputs("</p>\n", f);
	}
	compare_verdict_line(c, line, sizeof(line));
	fprintf(f, "<p class=\"verdict%s\"><strong>Verdict:</strong> ", c->nreg ? " caution" : "");
	html_esc(f, line);
	fputs(".</p>\n</section>\n", f);
}

int compare_html(FILE *f, const struct comparison *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	int ret = 0;

	if (!t)
		return -1;
	compare_text(t, c);
	fclose(t);
	html_page_head(f, "ipsecperf compare");
	fputs(style, f);
	head(f, c);
	fprintf(f, "<section id=rows><h2>Runs</h2>\n<p>Each dot is a run (blue: base, orange: new); the bar "
		   "is the median, the band its interval (distribution-free 95%% interval of the median with "
		   "6 runs or more, else min-max). Regressions have a red frame, improvements a green one "
		   "(beyond %g%% with p &lt; %g, on the gated metrics).</p>\n<div class=rows>\n",
		c->o->threshold, c->o->alpha);
	for (int i = 0; i < c->nrows && ret == 0; i++)
		ret = row(f, c, &c->rows[i], i);
	fputs("</div></section>\n<section id=text><h2>Text</h2>\n<pre>", f);
	html_esc(f, text);
	fputs("</pre></section>\n</body></html>\n", f);
	free(text);
	return ret < 0 || ferror(f) ? -1 : 0;
}
