// SPDX-License-Identifier: GPL-2.0
/* CPU profiles: folding call chains, reducing them to functions, diffing two. */
#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "strmap.h"

uint64_t prof_count_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void prof_folded_free(struct prof_folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	*f = (struct prof_folded){ 0 };
}

int prof_folded_add(struct prof_folded *f, const char *stack, uint64_t count)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		struct prof_stack *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -1;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n].stack = strdup(stack);
	if (!f->v[f->n].stack)
		return -1;
	f->v[f->n++].count = count;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct prof_stack *)a)->stack, ((const struct prof_stack *)b)->stack);
}

void prof_folded_finish(struct prof_folded *f)
{
	size_t w = 0;

	if (!f->n)
		return;
	qsort(f->v, f->n, sizeof(*f->v), cmp_stack);
	for (size_t i = 1; i < f->n; i++) {
		if (!strcmp(f->v[w].stack, f->v[i].stack)) {
			f->v[w].count = prof_count_add(f->v[w].count, f->v[i].count);
			free(f->v[i].stack);
		} else {
			f->v[++w] = f->v[i];
		}
	}
	f->n = w + 1;
}

uint64_t prof_folded_total(const struct prof_folded *f)
{
	uint64_t t = 0;

	for (size_t i = 0; i < f->n; i++)
		t = prof_count_add(t, f->v[i].count);
	return t;
}

/* ---- perf script ---- */

struct strbuf {
	char *s;
	size_t len, cap;
};

static int sb_put(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -1;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* A frame name as folded: ';' would split it and a trailing space would end it. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (*s == ';' || *s == '\n' || *s == '\t')
			*s = ':';
		else if (*s == ' ')
			*s = '_';
}

/*
 * One call-chain line: "\t ffffffff81234567 tcp_sendmsg ([kernel.kallsyms])".
 * Returns 1 with the frame in out, 0 for a frame to drop, -1 if malformed.
 */
static int parse_frame(const char *line, char *out, size_t len)
{
	const char *p = line, *sym, *dso_open, *end;
	char dso[256], symbuf[512];
	unsigned long long addr;
	char *e;
	bool kernel;

	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	addr = strtoull(p, &e, 16);
	if (e == p || errno || *e != ' ')
		return -1;
	sym = e + 1;
	end = sym + strlen(sym);
	while (end > sym && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	if (end == sym || end[-1] != ')')
		return -1;
	dso_open = NULL;
	for (const char *q = end - 1; q > sym; q--)
		if (*q == '(' && q[-1] == ' ') {
			dso_open = q;
			break;
		}
	if (!dso_open)
		return -1;
	snprintf(dso, sizeof(dso), "%.*s", (int)(end - 1 - (dso_open + 1)), dso_open + 1);
	snprintf(symbuf, sizeof(symbuf), "%.*s", (int)(dso_open - 1 - sym), sym);
	if (!strcmp(symbuf, "[unknown]") && !strcmp(dso, "[unknown]"))
		return 0; /* the end of a user stack walked without frame pointers */
	/* x86-64 and arm64 kernels live in the upper half of the address space */
	kernel = (addr >> 63) && dso[0] == '[' && strcmp(dso, "[unknown]") && strcmp(dso, "[vdso]");
	if (!strcmp(symbuf, "[unknown]") || !*symbuf) {
		const char *base = strrchr(dso, '/');

		snprintf(out, len, "[%s]", base ? base + 1 : dso);
		if (dso[0] == '[')
			snprintf(out, len, "%s", dso);
	} else {
		snprintf(out, len, "%s", symbuf);
	}
	sanitize(out);
	if (kernel && strlen(out) + sizeof(PROF_KERNEL_SUFFIX) <= len)
		strcat(out, PROF_KERNEL_SUFFIX);
	return 1;
}

/* Flush one sample: frames were collected leaf first, the stack is root first. */
static int flush_sample(struct prof_folded *out, const char *comm, char **frames, int nframes)
{
	struct strbuf b = { 0 };
	int err = sb_put(&b, comm, strlen(comm));

	for (int i = nframes - 1; !err && i >= 0; i--) {
		err = sb_put(&b, ";", 1);
		if (!err)
			err = sb_put(&b, frames[i], strlen(frames[i]));
	}
	if (!err)
		err = prof_folded_add(out, b.s, 1);
	free(b.s);
	return err;
}

#define MAX_FRAMES 256

/* The sample being read from perf script: its command and call chain. */
struct fold_state {
	char comm[256];
	char *frames[MAX_FRAMES];
	int nframes;
	bool in_sample;
	long samples;
};

/* A call-chain line of the current sample: 0, -1 after err, -2 out of memory. */
static int fold_frame(struct fold_state *s, const char *line, int lineno, char *err, size_t errlen)
{
	char frame[600];
	int rc;

	if (!s->in_sample) {
		snprintf(err, errlen, "perf script:%d: a call-chain line before any sample", lineno);
		return -1;
	}
	rc = parse_frame(line, frame, sizeof(frame));
	if (rc < 0) {
		snprintf(err, errlen, "perf script:%d: not a call-chain line: %.80s", lineno, line);
		return -1;
	}
	if (rc > 0 && s->nframes < MAX_FRAMES) {
		s->frames[s->nframes] = strdup(frame);
		if (!s->frames[s->nframes])
			return -2;
		s->nframes++;
	}
	return 0;
}

/* The end of a sample (if one is open): fold it into out. 0, or -1 out of memory. */
static int fold_end(struct fold_state *s, struct prof_folded *out)
{
	if (!s->in_sample)
		return 0;
	if (flush_sample(out, s->comm, s->frames, s->nframes) < 0)
		return -1;
	s->samples++;
	for (int i = 0; i < s->nframes; i++)
		free(s->frames[i]);
	s->nframes = 0;
	s->in_sample = false;
	return 0;
}

/* A sample's header: "COMM TID", the command name may hold spaces. 0, or -1 after err. */
static int fold_header(struct fold_state *s, char *line, int lineno, char *err, size_t errlen)
{
	char *end = line + strlen(line), *tid;

	while (end > line && end[-1] == ' ')
		*--end = '\0';
	tid = strrchr(line, ' ');
	/* perf prints pid -1 (comm ":-1") for a sample it could not attribute */
	if (!tid || !tid[1] || strspn(tid + 1, "-0123456789/") != strlen(tid + 1)) {
		snprintf(err, errlen, "perf script:%d: not a sample header (COMM TID): %.80s",
			 lineno, line);
		return -1;
	}
	while (tid > line && tid[-1] == ' ')
		tid--;
	*tid = '\0';
	snprintf(s->comm, sizeof(s->comm), "%s", line[0] ? line : "[unknown]");
	sanitize(s->comm);
	s->in_sample = true;
	return 0;
}

long prof_fold_perf_script(const char *text, struct prof_folded *out, char *err, size_t errlen)
{
	struct fold_state s = { .comm = "" };
	int lineno = 0, rc = 0;
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];
		bool blank;

		lineno++;
		if (n < sizeof(line)) {
			snprintf(line, sizeof(line), "%.*s", (int)n, p);
		} else {
			/* longer (a C++ template's name): its head and its tail, which holds the " (dso)" */
			const size_t tail = 256, head = sizeof(line) - tail - 4;

			snprintf(line, sizeof(line), "%.*s...%.*s", (int)head, p, (int)tail, p + n - tail);
		}
		p = nl ? nl + 1 : NULL;
		blank = strspn(line, " \t") == strlen(line);
		if ((line[0] == '\t' || line[0] == ' ') && !blank) {
			rc = fold_frame(&s, line, lineno, err, errlen);
			if (rc < 0)
				break;
			continue;
		}
		rc = fold_end(&s, out) < 0 ? -2 : 0;
		if (rc < 0)
			break;
		if (blank)
			continue;
		rc = fold_header(&s, line, lineno, err, errlen);
		if (rc < 0)
			break;
	}
	if (!rc)
		rc = fold_end(&s, out) < 0 ? -2 : 0;
	for (int i = 0; i < s.nframes; i++)
		free(s.frames[i]);
	if (rc == -2)
		snprintf(err, errlen, "perf script: out of memory");
	if (rc < 0)
		return -1;
	prof_folded_finish(out);
	return s.samples;
}

/* ---- folded files ---- */

int prof_folded_parse(const char *name, const char *text, struct prof_folded *out, char *err,
		      size_t errlen)
{
	int lineno = 0;
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *sp;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		unsigned long long count;
		char *line, *e;

		lineno++;
		if (lineno > PROF_MAX_STACKS) {
			snprintf(err, errlen, "%s:%d: more than %d stacks; refusing to read more", name, lineno,
				 PROF_MAX_STACKS);
			return -1;
		}
		line = strndup(p, n);
		p = nl ? nl + 1 : NULL;
		if (!line) {
			snprintf(err, errlen, "%s: out of memory", name);
			return -1;
		}
		if (!*line) {
			free(line);
			continue;
		}
		/* a stack is shown in tables and written to files: data, never a terminal's command */
		if (results_bad_char(line, n)) {
			snprintf(err, errlen, "%s:%d: a control character (0x%02x) in a stack; folded stacks hold none",
				 name, lineno, (unsigned char)*results_bad_char(line, n));
			free(line);
			return -1;
		}
		sp = strrchr(line, ' ');
		errno = 0;
		if (!sp || sp == line || sp[1] < '0' || sp[1] > '9' ||
		    (count = strtoull(sp + 1, &e, 10), errno || *e)) {
			snprintf(err, errlen, "%s:%d: not \"STACK COUNT\"", name, lineno);
			free(line);
			return -1;
		}
		/* a count a double holds exactly; a profile has a few thousand samples a line */
		if (count > PROF_MAX_COUNT) {
			snprintf(err, errlen, "%s:%d: a count above 2^53 (%llu); no profile has that many samples",
				 name, lineno, count);
			free(line);
			return -1;
		}
		line[sp - line] = '\0';
		if (prof_folded_add(out, line, count) < 0) {
			free(line);
			snprintf(err, errlen, "%s: out of memory", name);
			return -1;
		}
		free(line);
	}
	prof_folded_finish(out);
	return 0;
}

int prof_folded_write(FILE *f, const struct prof_folded *folded)
{
	for (size_t i = 0; i < folded->n; i++)
		fprintf(f, "%s %" PRIu64 "\n", folded->v[i].stack, folded->v[i].count);
	return ferror(f) ? -1 : 0;
}

/* ---- reduction ---- */

static const char *leaf_of(const char *stack)
{
	const char *l = strrchr(stack, ';');

	return l ? l + 1 : stack;
}

bool prof_stack_is_idle(const char *stack)
{
	const char *leaf = leaf_of(stack);

	/* perf names the idle task (pid 0) "swapper"; its softirq work is busy time */
	if (strncmp(stack, "swapper;", 8) || leaf == stack)
		return false;
	return strstr(leaf, "idle") || strstr(leaf, "safe_halt") || strstr(leaf, "mwait") ||
	       !strcmp(leaf, "halt" PROF_KERNEL_SUFFIX) || !strncmp(leaf, "cpu_startup_entry", 17);
}

/* One function while stacks are reduced: its counts, and the last stack that counted it in total. */
struct name_count {
	const char *name; /* into the folded stacks */
	size_t len;
	uint64_t self, total;
	size_t stack;     /* that stack's index + 1 */
};

/* The functions seen so far, and their index by name. */
struct reduce {
	struct strmap idx;
	struct name_count *v;
	size_t n, cap;
};

/* name[0..len)'s entry, made when new; NULL when out of memory. */
static struct name_count *reduce_get(struct reduce *r, const char *name, size_t len)
{
	size_t i = strmap_get(&r->idx, 0, name, len);

	if (i != STRMAP_NONE)
		return &r->v[i];
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct name_count *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	if (strmap_put(&r->idx, 0, name, len, r->n) < 0)
		return NULL;
	r->v[r->n] = (struct name_count){ .name = name, .len = len };
	return &r->v[r->n++];
}

static int cmp_func(const void *a, const void *b)
{
	const struct prof_func *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

void prof_summary_free(struct prof_summary *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->f[i].name);
	free(s->f);
	*s = (struct prof_summary){ 0 };
}

static void fill_shares(struct prof_summary *s)
{
	uint64_t busy = s->samples - s->idle;

	for (size_t i = 0; i < s->n; i++) {
		struct prof_func *f = &s->f[i];

		f->share = busy ? (double)f->self / busy : 0;
		f->total_share = busy ? (double)f->total / busy : 0;
		f->cpb = isfinite(s->cpb) ? f->share * s->cpb : NAN;
	}
}

int prof_reduce(const struct prof_folded *folded, double cpb, struct prof_summary *out)
{
	struct reduce r = { 0 };
	int err = -1;

	*out = (struct prof_summary){ .cpb = cpb, .nruns = 1 };
	/* each frame looked up once: time linear in the stacks' length, however deep or wide */
	for (size_t i = 0; i < folded->n; i++) {
		const char *st = folded->v[i].stack, *p = strchr(st, ';');
		uint64_t c = folded->v[i].count;

		out->samples = prof_count_add(out->samples, c);
		if (prof_stack_is_idle(st)) {
			out->idle = prof_count_add(out->idle, c);
			continue;
		}
		/* no ';': a sample without a single frame */
		while (p) {
			const char *name = p + 1, *next = strchr(name, ';');
			size_t len = next ? (size_t)(next - name) : strlen(name);
			struct name_count *e = reduce_get(&r, name, len);

			if (!e)
				goto out;
			/* recursion: a function counts once per stack in total */
			if (e->stack != i + 1) {
				e->total = prof_count_add(e->total, c);
				e->stack = i + 1;
			}
			if (!next)
				e->self = prof_count_add(e->self, c);
			p = next;
		}
	}
	out->f = calloc(r.n + 1, sizeof(*out->f));
	if (!out->f)
		goto out;
	for (size_t i = 0; i < r.n; i++) {
		out->f[i] = (struct prof_func){ .name = strndup(r.v[i].name, r.v[i].len), .self = r.v[i].self,
						.total = r.v[i].total };
		if (!out->f[i].name)
			goto out;
		out->n++;
	}
	fill_shares(out);
	qsort(out->f, out->n, sizeof(*out->f), cmp_func);
	err = 0;
out:
	strmap_free(&r.idx);
	free(r.v);
	if (err)
		prof_summary_free(out);
	return err;
}

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp(((const struct prof_func *)a)->name, ((const struct prof_func *)b)->name);
}

static const struct prof_func *find_func(const struct prof_func *sorted, size_t n, const char *name)
{
	struct prof_func key = { .name = (char *)name };

	return n ? bsearch(&key, sorted, n, sizeof(*sorted), cmp_func_name) : NULL;
}

/* A copy of s's functions sorted by name (the pointers are shared, not owned). */
static struct prof_func *by_name(const struct prof_summary *s)
{
	struct prof_func *v = malloc((s->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	if (s->n)
		memcpy(v, s->f, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), cmp_func_name);
	return v;
}

/* Room for one more function in out (and its cycles-per-byte sum in *cpbs): 0 or -1. */
static int merge_room(struct prof_summary *out, double **cpbs, size_t *cap)
{
	size_t c = *cap ? 2 * *cap : 256;
	struct prof_func *f;
	double *d;

	if (out->n < *cap)
		return 0;
	f = realloc(out->f, c * sizeof(*f));
	if (f)
		out->f = f;
	d = realloc(*cpbs, c * sizeof(*d));
	if (d)
		*cpbs = d;
	if (!f || !d)
		return -1;
	*cap = c;
	return 0;
}

int prof_merge(const struct prof_summary *runs, int n, struct prof_summary *out)
{
	struct strmap idx = { 0 };
	double cpb_sum = 0, *cpbs = NULL;
	size_t cap = 0;
	int ncpb = 0, err = -1;

	*out = (struct prof_summary){ .nruns = n };
	for (int r = 0; r < n; r++) {
		out->samples = prof_count_add(out->samples, runs[r].samples);
		out->idle = prof_count_add(out->idle, runs[r].idle);
		if (isfinite(runs[r].cpb)) {
			cpb_sum += runs[r].cpb;
			ncpb++;
		}
	}
	out->cpb = ncpb == n && n ? cpb_sum / n : NAN;
	/* the union of the functions, each found by name in the table */
	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			const struct prof_func *g = &runs[r].f[i];
			size_t j = strmap_get(&idx, 0, g->name, strlen(g->name));

			if (j == STRMAP_NONE) {
				if (merge_room(out, &cpbs, &cap) < 0)
					goto out;
				j = out->n;
				out->f[j] = (struct prof_func){ .name = strdup(g->name) };
				cpbs[j] = 0;
				if (!out->f[j].name)
					goto out;
				out->n++;
				if (strmap_put(&idx, 0, out->f[j].name, strlen(g->name), j) < 0)
					goto out;
			}
			out->f[j].self = prof_count_add(out->f[j].self, g->self);
			out->f[j].total = prof_count_add(out->f[j].total, g->total);
			cpbs[j] += g->cpb;
		}
	fill_shares(out);
	/* cycles per byte: the mean of the runs' (a run without the function counts 0) */
	for (size_t i = 0; i < out->n && isfinite(out->cpb); i++)
		out->f[i].cpb = cpbs[i] / n;
	if (out->n)
		qsort(out->f, out->n, sizeof(*out->f), cmp_func);
	err = 0;
out:
	strmap_free(&idx);
	free(cpbs);
	if (err)
		prof_summary_free(out);
	return err;
}

void prof_funcs_free(struct prof_func *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

int prof_commands(const struct prof_folded *folded, struct prof_func **out, size_t *n)
{
	struct strmap idx = { 0 };
	struct prof_func *v = NULL;
	uint64_t busy = 0;
	size_t k = 0, cap = 0;

	for (size_t i = 0; i < folded->n; i++) {
		const char *st = folded->v[i].stack;
		size_t len = strcspn(st, ";"), j;

		if (prof_stack_is_idle(st))
			continue;
		busy = prof_count_add(busy, folded->v[i].count);
		j = strmap_get(&idx, 0, st, len);
		if (j == STRMAP_NONE) {
			if (k == cap) {
				struct prof_func *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*nv));

				if (!nv)
					goto nomem;
				v = nv;
			}
			v[k] = (struct prof_func){ .name = strndup(st, len) };
			if (!v[k].name)
				goto nomem;
			j = k++;
			if (strmap_put(&idx, 0, st, len, j) < 0)
				goto nomem;
		}
		v[j].self = prof_count_add(v[j].self, folded->v[i].count);
	}
	for (size_t j = 0; j < k; j++) {
		v[j].total = v[j].self;
		v[j].share = v[j].total_share = busy ? (double)v[j].self / busy : 0;
		v[j].cpb = NAN;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_func);
	strmap_free(&idx);
	*out = v;
	*n = k;
	return 0;
nomem:
	strmap_free(&idx);
	prof_funcs_free(v, k);
	return -1;
}

const char *prof_func_display(const char *name, bool *kernel, char *buf, size_t len)
{
	size_t n = strlen(name), k = strlen(PROF_KERNEL_SUFFIX);

	*kernel = n > k && !strcmp(name + n - k, PROF_KERNEL_SUFFIX);
	if (!*kernel)
		return name;
	snprintf(buf, len, "%.*s", (int)(n - k), name);
	return buf;
}

json_t *prof_summary_json(const struct prof_summary *s, size_t top)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->n && i < top; i++) {
		const struct prof_func *f = &s->f[i];
		char buf[512];
		bool kernel;
		const char *name = prof_func_display(f->name, &kernel, buf, sizeof(buf));

		json_array_append_new(arr, json_pack("{s:s, s:b, s:I, s:I, s:f, s:f, s:o}", "function", name,
						     "kernel", kernel, "self", (json_int_t)f->self,
						     "total", (json_int_t)f->total, "share", f->share,
						     "total_share", f->total_share, "cycles_per_byte",
						     isfinite(f->cpb) ? json_real(f->cpb) : json_null()));
	}
	return json_pack("{s:I, s:I, s:I, s:o}", "samples", (json_int_t)s->samples, "idle_samples",
			 (json_int_t)s->idle, "busy_samples", (json_int_t)(s->samples - s->idle), "top", arr);
}

/* ---- difference ---- */

static int cmp_diff(const void *a, const void *b)
{
	const struct prof_diff_row *x = a, *y = b;
	double gx = isfinite(x->gain) ? x->gain : -INFINITY, gy = isfinite(y->gain) ? y->gain : -INFINITY;

	if (gx != gy)
		return gx < gy ? 1 : -1;
	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return strcmp(x->name, y->name);
}

int prof_diff(const struct prof_summary *base, const struct prof_summary *s,
	      struct prof_diff_row **rows, size_t *n)
{
	struct prof_func *sb = by_name(base), *ss = by_name(s);
	struct prof_diff_row *v = calloc(base->n + s->n + 1, sizeof(*v));
	size_t k = 0;

	*rows = NULL;
	*n = 0;
	if (!sb || !ss || !v) {
		free(sb);
		free(ss);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct prof_func *b = find_func(sb, base->n, s->f[i].name);

		v[k++] = (struct prof_diff_row){ .name = s->f[i].name, .cpb = s->f[i].cpb,
						 .share = s->f[i].share,
						 .base_cpb = b ? b->cpb : (isfinite(base->cpb) ? 0 : NAN),
						 .base_share = b ? b->share : 0 };
	}
	for (size_t i = 0; i < base->n; i++)
		if (!find_func(ss, s->n, base->f[i].name))
			v[k++] = (struct prof_diff_row){ .name = base->f[i].name,
							 .cpb = isfinite(s->cpb) ? 0 : NAN,
							 .base_cpb = base->f[i].cpb,
							 .base_share = base->f[i].share };
	for (size_t i = 0; i < k; i++)
		v[i].gain = v[i].cpb - v[i].base_cpb;
	qsort(v, k, sizeof(*v), cmp_diff);
	free(sb);
	free(ss);
	*rows = v;
	*n = k;
	return 0;
}
