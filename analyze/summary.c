// SPDX-License-Identifier: GPL-2.0
#include "summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "log.h"

int fmt_decimals_sig(double v, int sig)
{
	int d;

	if (!isfinite(v) || v == 0)
		return 2;
	d = sig - 1 - (int)floor(log10(fabs(v)));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

int fmt_decimals(double v)
{
	return fmt_decimals_sig(v, 4);
}

void tab_init(struct tab *t, int ncols, const char *const *heads, const bool *left)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > TAB_MAXCOLS ? TAB_MAXCOLS : ncols;
	for (int c = 0; c < t->ncols; c++) {
		t->head[c] = heads[c];
		t->left[c] = left[c];
	}
}

int tab_row(struct tab *t)
{
	if (t->nrows == t->cap) {
		int cap = t->cap * 2 + 16;
		void *n = realloc(t->cell, cap * sizeof(*t->cell));

		if (!n)
			return -1;
		t->cell = n;
		t->cap = cap;
	}
	memset(t->cell[t->nrows], 0, sizeof(t->cell[0]));
	return t->nrows++;
}

void tab_set(struct tab *t, int row, int col, const char *fmt, ...)
{
	va_list ap;

	if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cell[row][col], TAB_CELL, fmt, ap);
	va_end(ap);
}

int tab_widths(const struct tab *t, int *w)
{
	int total = 0;

	for (int c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->head[c]);
		for (int r = 0; r < t->nrows; r++) {
			int l = strlen(t->cell[r][c]);

			if (l > w[c])
				w[c] = l;
		}
		total += w[c] + (c ? 1 : 0);
	}
	return total;
}

static void tab_line(FILE *f, const struct tab *t, const int *w, int sep, const char *const *cells)
{
	int pad = 0;

	for (int c = 0; c < t->ncols; c++) {
		const char *s = cells[c];
		int l = strlen(s);

		if (c)
			pad += sep;
		if (t->left[c]) {
			fprintf(f, "%*s%s", pad, "", s);
			pad = w[c] - l;
		} else {
			fprintf(f, "%*s%s", pad + w[c] - l, "", s);
			pad = 0;
		}
	}
	fputc('\n', f); /* no trailing blanks */
}

void tab_print(FILE *f, const struct tab *t, const char *const *groups)
{
	int w[TAB_MAXCOLS];
	const char *cells[TAB_MAXCOLS];
	char dash[TAB_MAXCOLS][TAB_CELL + 64];

	/* two blanks between columns when the line still fits, else one */
	int sep = tab_widths(t, w) + t->ncols - 1 <= REPORT_COLUMNS ? 2 : 1;

	if (groups) {
		int col = 0, at = 0;

		for (int c = 0; c < t->ncols; c++) {
			if (groups[c] && at >= col) {
				fprintf(f, "%*s%s", at - col, "", groups[c]);
				col = at + strlen(groups[c]);
			}
			at += w[c] + sep;
		}
		fputc('\n', f);
	}
	for (int c = 0; c < t->ncols; c++)
		cells[c] = t->head[c];
	tab_line(f, t, w, sep, cells);
	for (int c = 0; c < t->ncols; c++) {
		int n = w[c] < (int)sizeof(dash[c]) - 1 ? w[c] : (int)sizeof(dash[c]) - 1;

		memset(dash[c], '-', n);
		dash[c][n] = '\0';
		cells[c] = dash[c];
	}
	tab_line(f, t, w, sep, cells);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			cells[c] = t->cell[r][c];
		tab_line(f, t, w, sep, cells);
	}
}

void tab_free(struct tab *t)
{
	free(t->cell);
	t->cell = NULL;
	t->nrows = t->cap = 0;
}

const char *fmt_num(char *buf, size_t len, double v, int d)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", d, v);
	return buf;
}

const char *fmt_cover(char *buf, size_t len, double cover)
{
	if (isnan(cover))
		snprintf(buf, len, "-");
	else /* never more than it is: 93.75% is 93.7% */
		snprintf(buf, len, "%.1f%%", floor(1000 * cover) / 10);
	return buf;
}

const char *fmt_interval(char *buf, size_t len, const struct stats *s, int d)
{
	if (!s || s->n < 2 || isnan(s->iv_lo))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f-%.*f", d, s->iv_lo, d, s->iv_hi);
	return buf;
}

void fputs_wrapped(FILE *f, const char *text, int first_indent, int indent)
{
	fprintf(f, "%*s", first_indent, "");
	fputs_wrapped_at(f, text, first_indent, indent);
}

void fputs_wrapped_at(FILE *f, const char *text, int col, int indent)
{
	bool on_line = false;
	const char *p = text;

	for (;;) {
		size_t w;

		while (*p == ' ')
			p++;
		w = strcspn(p, " ");
		if (!w)
			break;
		if (on_line && col + 1 + (int)w > REPORT_COLUMNS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			on_line = false;
		}
		if (on_line) {
			fputc(' ', f);
			col++;
		}
		/* a word longer than a line is printed whole: never cut a name */
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		on_line = true;
	}
	fputc('\n', f);
}

int summary_group_stats(const struct results *r, const struct run_group *g, enum metric_kind k,
		       struct stats *s)
{
	struct metric m = { .kind = k };
	double *v = malloc((g->n + 1) * sizeof(*v));
	int n;

	if (!v)
		return -1;
	n = group_values(r, g, &m, v);
	stats_compute(v, n, s);
	free(v);
	return 0;
}

static bool any_estimated(const struct results *r)
{
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].status == RUN_OK && r->runs[i].cycles_estimated && !r->runs[i].virtual_clock)
			return true;
	return false;
}

/* A table of one unit's scenarios: its headline metric (with a ratio) and its cost. */
struct table_view {
	enum run_unit unit;
	enum metric_kind a, b;
	const char *ga, *gb;  /* their headings */
	const char *title;    /* above the table; NULL: the report prints it (streams) */
};

static const struct table_view views[] = {
	{ UNIT_BYTE, METRIC_THROUGHPUT, METRIC_CPB, "throughput Gbit/s", "cycles/byte", NULL },
	{ UNIT_TRANSACTION, METRIC_TPS, METRIC_CPU_UNIT, "transactions/s", "cycles/transaction",
	  "Request/response: transactions per second and cycles per transaction, median and min-max" },
	{ UNIT_DATAGRAM, METRIC_PPS, METRIC_CPU_UNIT, "datagrams/s", "cycles/datagram",
	  "Packet rate: datagrams per second received at the highest rate with loss under the threshold, and cycles per datagram, median and min-max" },
};

/* Streams on the virtual clock: their cost is instructions, no cycles were counted. */
static const struct table_view view_byte_virtual = { UNIT_BYTE, METRIC_THROUGHPUT, METRIC_IPB, "throughput Gbit/s",
						     "instructions/byte", NULL };

static const struct table_view *view_of(const struct results *r, enum run_unit u)
{
	return u == UNIT_BYTE && !strcmp(results_clock(r), "virtual") ? &view_byte_virtual : &views[u];
}

/*
 * Kernel's table of one unit with sig significant digits: printed (0, its
 * runs not ok added to *nbad), too wide for REPORT_COLUMNS with sig > 3 (1,
 * nothing printed), or -1 out of memory. *base_name: the first scenario.
 */
static int kernel_table(FILE *f, const struct results *r, const struct run_group *g, int ng,
			const char *kernel, const struct table_view *v, int sig, const char **base_name, int *nbad,
			double *cover)
{
	static const char *const heads[] = { "scenario", "n", "median", "interval", "ratio",
					     "median", "interval", "!ok" };
	static const bool left[] = { true, false, false, false, false, false, false, false };
	const char *const groups[] = { NULL, NULL, v->ga, NULL, NULL, v->gb, NULL, NULL };
	struct tab t;
	int w[TAB_MAXCOLS], bad_here = 0;
	double base = NAN;

	tab_init(&t, 8, heads, left);
	*base_name = NULL;
	for (int i = 0; i < ng; i++) {
		struct stats ts, cs;
		char buf[2][64];
		int dt, dc, row;

		if (strcmp(g[i].kernel, kernel) || group_unit(r, &g[i]) != v->unit)
			continue;
		if (summary_group_stats(r, &g[i], v->a, &ts) < 0 ||
		    summary_group_stats(r, &g[i], v->b, &cs) < 0 || (row = tab_row(&t)) < 0) {
			tab_free(&t);
			return -1;
		}
		if (!*base_name) {
			*base_name = g[i].scenario;
			base = ts.median;
		}
		dt = fmt_decimals_sig(ts.median, sig);
		dc = fmt_decimals_sig(cs.median, sig);
		tab_set(&t, row, 0, "%s", g[i].scenario);
		tab_set(&t, row, 1, "%d", g[i].n_ok);
		tab_set(&t, row, 2, "%s", fmt_num(buf[0], sizeof(buf[0]), ts.median, dt));
		tab_set(&t, row, 3, "%s", fmt_interval(buf[1], sizeof(buf[1]), &ts, dt));
		if (isnan(ts.median) || isnan(base) || base == 0)
			tab_set(&t, row, 4, "-");
		else
			tab_set(&t, row, 4, "%.3f", ts.median / base);
		tab_set(&t, row, 5, "%s", fmt_num(buf[0], sizeof(buf[0]), cs.median, dc));
		tab_set(&t, row, 6, "%s", fmt_interval(buf[1], sizeof(buf[1]), &cs, dc));
		tab_set(&t, row, 7, "%d", group_not_ok(&g[i]));
		bad_here += group_not_ok(&g[i]);
		if (!isnan(ts.iv_cover) && !(ts.iv_cover >= *cover))
			*cover = ts.iv_cover;
	}
	if (t.nrows && sig > 3 && tab_widths(&t, w) > REPORT_COLUMNS) {
		tab_free(&t);
		return 1;
	}
	if (t.nrows && v->title) {
		fputc('\n', f);
		fputs_wrapped(f, v->title, 0, 0);
	}
	if (t.nrows)
		tab_print(f, &t, groups);
	tab_free(&t);
	*nbad += bad_here;
	return 0;
}

bool summary_not_ok_group(const struct results *r, int i, int *n, int *first, int *last)
{
	const struct run_record *rec = &r->runs[i];
	const char *why = rec->reason ? rec->reason : "no reason recorded";

	*n = 0;
	*first = *last = rec->repeat;
	if (rec->status == RUN_OK)
		return false;
	for (int j = 0; j < r->nruns; j++) {
		const struct run_record *o = &r->runs[j];

		if (o->status != rec->status || strcmp(o->kernel, rec->kernel) || strcmp(o->scenario, rec->scenario) ||
		    strcmp(o->reason ? o->reason : "no reason recorded", why))
			continue;
		if (j < i)
			return false; /* said with the first of them */
		(*n)++;
		*first = o->repeat < *first ? o->repeat : *first;
		*last = o->repeat > *last ? o->repeat : *last;
	}
	return true;
}

/* The runs not ok, with their reasons: once per kernel, scenario, status and reason (the kernel too when there are several). */
static void runs_not_ok(FILE *f, const struct results *r, int nk)
{
	fprintf(f, "\nruns not ok (excluded from the figures):\n");
	for (int i = 0; i < r->nruns; i++) {
		const struct run_record *rec = &r->runs[i];
		char line[700], reps[64];
		int n, first, last;

		if (!summary_not_ok_group(r, i, &n, &first, &last))
			continue;
		if (n == 1)
			snprintf(reps, sizeof(reps), "repeat %d", first);
		else
			snprintf(reps, sizeof(reps), "%d runs (repeats %d-%d)", n, first, last);
		snprintf(line, sizeof(line), "%s%s%s %s: %s: %s", nk > 1 ? rec->kernel : "", nk > 1 ? " " : "",
			 rec->scenario, reps, run_status_name(rec->status), rec->reason ? rec->reason : "no reason recorded");
		fputs_wrapped(f, line, 2, 6);
	}
}

/*
 * What encrypted each scenario that is not in clear, and with which cipher,
 * so that ESP's and an encrypted link's are never taken for one another:
 * "ciphers: esp-gcm ESP rfc4106(gcm(aes)); wireguard WireGuard chacha20-poly1305".
 */
static void ciphers_note(FILE *f, const struct results *r, const struct run_group *g, int ng)
{
	char line[2048];
	size_t off = 0;

	for (int i = 0; i < ng && off < sizeof(line); i++) {
		const struct run_record *a = NULL;
		bool seen = false;

		for (int j = 0; j < g[i].n && !a; j++)
			if (r->runs[g[i].idx[j]].enc_title && r->runs[g[i].idx[j]].enc_cipher)
				a = &r->runs[g[i].idx[j]];
		/* a scenario once, however many kernels ran it */
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(g[j].scenario, g[i].scenario);
		if (a && !seen)
			off += snprintf(line + off, sizeof(line) - off, "%s%s %s %s", off ? "; " : "ciphers: ",
					a->scenario, a->enc_title, a->enc_cipher);
	}
	if (off)
		fputs_wrapped(f, line, 0, 4);
}

int summary_tables(FILE *f, const struct results *r)
{
	const char *base_name[3] = { NULL, NULL, NULL };
	struct run_group *g;
	const char **kernels;
	int ng, nk, nbad = 0, err = 0;

	if (results_groups(r, &g, &ng) < 0 || results_kernels(r, &kernels, &nk) < 0)
		return -1;
	double cover = 2; /* none yet */

	for (int k = 0; k < nk && !err; k++) {
		fprintf(f, "%skernel %s\n", k ? "\n" : "", kernels[k]);
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]) && !err; v++) {
			const char *base = NULL;

			/* 4 significant digits, or 3 when that keeps the table in 72 columns */
			for (int sig = 4; sig >= 3; sig--) {
				err = kernel_table(f, r, g, ng, kernels[k], view_of(r, views[v].unit), sig, &base, &nbad,
						   &cover);
				if (err <= 0)
					break;
			}
			if (!err && base && k == nk - 1)
				base_name[views[v].unit] = base;
			if (!err && views[v].unit == UNIT_TRANSACTION)
				err = summary_latency_table(f, r, g, ng, kernels[k]);
			if (!err && views[v].unit == UNIT_DATAGRAM)
				err = summary_rate_table(f, r, g, ng, kernels[k]);
		}
	}
	if (!err && (base_name[0] || base_name[1] || base_name[2]))
		summary_ratio_note(f, base_name, cover);
	if (!err) {
		if (any_estimated(r))
			fputs_wrapped(f, "cycles/byte estimated from busy CPU time x TSC frequency (no PMU).",
				      0, 0);
		ciphers_note(f, r, g, ng);
		if (nbad)
			runs_not_ok(f, r, nk);
		summary_cv_warnings(f, r);
	}
	free(kernels);
	results_groups_free(g, ng);
	return err || ferror(f) ? -1 : 0;
}

int summary_cv_warnings(FILE *f, const struct results *r)
{
	struct run_group *g;
	const char **kernels;
	int ng, nk, warned = 0, maxn = 0;

	if (results_groups(r, &g, &ng) < 0)
		return 0;
	if (results_kernels(r, &kernels, &nk) < 0) {
		results_groups_free(g, ng);
		return 0;
	}
	/* one line per scenario, naming each metric over the limit */
	for (int i = 0; i < ng; i++) {
		char line[600];
		int len, nover = 0, n = 0;

		if (g[i].n_ok > maxn)
			maxn = g[i].n_ok;
		len = snprintf(line, sizeof(line), "warning: %s%s%s: CV", nk > 1 ? g[i].kernel : "",
			       nk > 1 ? " " : "", g[i].scenario);
		const struct table_view *tv = view_of(r, group_unit(r, &g[i]));

		for (int m = 0; m < 2; m++) {
			struct stats s;

			if (summary_group_stats(r, &g[i], m ? tv->b : tv->a, &s) < 0 || !(s.cv > CV_WARN))
				continue;
			if (len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - len, "%s %s %.1f%%", nover ? "," : "",
						tv->unit == UNIT_BYTE && !m ? "throughput" : m ? tv->gb : tv->ga,
						100 * s.cv);
			nover++;
			n = s.n;
		}
		if (!nover)
			continue;
		if (len < (int)sizeof(line))
			snprintf(line + len, sizeof(line) - len, " > %.0f%% (n=%d)", 100 * CV_WARN, n);
		if (!warned++)
			fputc('\n', f);
		fputs_wrapped(f, line, 0, 4);
	}
	if (warned) {
		char hint[200];

		snprintf(hint, sizeof(hint),
			 "hint: add repeats (--repeat %d or more) and quiet the machine; with a CV above 5%% a median moves by more than the changes worth reporting.",
			 maxn < 5 ? 10 : 2 * maxn);
		fputs_wrapped(f, hint, 0, 4);
	}
	free(kernels);
	results_groups_free(g, ng);
	return warned;
}

int summary_print(FILE *f, const char *dir)
{
	struct results r;
	char err[1024];
	int ret;

	if (results_load(dir, &r, err, sizeof(err)) < 0) {
		pr_warn("%s", err);
		return -1;
	}
	ret = summary_tables(f, &r);
	results_free(&r);
	if (ret < 0)
		pr_warn("%s: cannot write the summary", dir);
	return ret;
}

/* ---- the request/response and packet-rate loads' own tables ---- */

/* Transactions beyond a percentile for it to be more than the last few: what the note asks of each run. */
#define TAIL_SAMPLES 10

/* The fewest transactions of g's ok runs (NAN: none). */
static double fewest_transactions(const struct results *r, const struct run_group *g)
{
	double fewest = NAN;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status == RUN_OK && !rec->counting && rec->has_lat && !(rec->transactions >= fewest))
			fewest = rec->transactions;
	}
	return fewest;
}

int summary_latency_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel)
{
	static const char *const heads[] = { "scenario", "p50", "p90", "p99", "p99.9", "max", "fewest" };
	static const bool left[] = { true, false, false, false, false, false, false };
	double thin = 0; /* the highest quantile some run had too few transactions for */
	struct tab t;

	tab_init(&t, 7, heads, left);
	for (int i = 0; i < ng; i++) {
		double fewest;
		int row;

		if (strcmp(g[i].kernel, kernel) || group_unit(r, &g[i]) != UNIT_TRANSACTION)
			continue;
		if ((row = tab_row(&t)) < 0) {
			tab_free(&t);
			return -1;
		}
		tab_set(&t, row, 0, "%s", g[i].scenario);
		for (int q = 0; q < RESULTS_NLAT; q++) {
			struct metric m = { .kind = METRIC_LAT, .q = q };
			double *v = malloc((g[i].n + 1) * sizeof(*v));
			struct stats s;
			char buf[32];

			if (!v) {
				tab_free(&t);
				return -1;
			}
			stats_compute(v, group_values(r, &g[i], &m, v), &s);
			free(v);
			tab_set(&t, row, 1 + q, "%s", fmt_num(buf, sizeof(buf), s.median, fmt_decimals_sig(s.median, 3)));
		}
		fewest = fewest_transactions(r, &g[i]);
		tab_set(&t, row, 6, isnan(fewest) ? "-" : "%.0f", fewest);
		for (int q = 0; q < RESULTS_NLAT - 1; q++)
			if (fewest < hist_samples_needed(latency_quantiles[q], TAIL_SAMPLES) && latency_quantiles[q] > thin)
				thin = latency_quantiles[q];
	}
	if (t.nrows) {
		char note[400];

		fputc('\n', f);
		fputs_wrapped(f, "Latency, microseconds: each run's percentile (from its histogram, within 0.4%), median over the runs; fewest: transactions in the run with the fewest",
			      0, 0);
		tab_print(f, &t, NULL);
		if (thin > 0) {
			snprintf(note, sizeof(note),
				 "note: p%g rests on fewer than %d transactions beyond it in some run (it needs %.0f a run): take it as a run's last few, and lengthen --duration for it.",
				 100 * thin, TAIL_SAMPLES, (double)hist_samples_needed(thin, TAIL_SAMPLES));
			fputs_wrapped(f, note, 0, 6);
		}
	}
	tab_free(&t);
	return 0;
}

int summary_rate_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel)
{
	static const char *const heads[] = { "scenario", "bytes", "Mbit/s", "loss %", "steps" };
	static const bool left[] = { true, false, false, false, false };
	struct tab t;

	tab_init(&t, 5, heads, left);
	for (int i = 0; i < ng; i++) {
		struct stats bps, loss;
		int row, bytes = 0, steps = 0;
		char buf[32];

		if (strcmp(g[i].kernel, kernel) || group_unit(r, &g[i]) != UNIT_DATAGRAM)
			continue;
		if (summary_group_stats(r, &g[i], METRIC_THROUGHPUT, &bps) < 0 ||
		    summary_group_stats(r, &g[i], METRIC_LOSS, &loss) < 0 || (row = tab_row(&t)) < 0) {
			tab_free(&t);
			return -1;
		}
		for (int j = 0; j < g[i].n; j++) {
			const struct run_record *rec = &r->runs[g[i].idx[j]];

			if (rec->status == RUN_OK && !rec->counting) {
				bytes = rec->datagram_bytes;
				steps = rec->rate_steps > steps ? rec->rate_steps : steps;
			}
		}
		tab_set(&t, row, 0, "%s", g[i].scenario);
		tab_set(&t, row, 1, bytes ? "%d" : "-", bytes);
		tab_set(&t, row, 2, "%s", fmt_num(buf, sizeof(buf), 1000 * bps.median, fmt_decimals_sig(1000 * bps.median, 4)));
		tab_set(&t, row, 3, "%s", fmt_num(buf, sizeof(buf), loss.median, fmt_decimals_sig(loss.max, 2)));
		tab_set(&t, row, 4, steps ? "%d" : "-", steps);
	}
	if (t.nrows) {
		fputc('\n', f);
		fputs_wrapped(f, "Packet rate, the window at the rate found: datagram payload, its bit rate and loss (medians), the search's steps (the most of a run)",
			      0, 0);
		tab_print(f, &t, NULL);
	}
	tab_free(&t);
	return 0;
}

void summary_ratio_note(FILE *f, const char *const base_name[3], double cover)
{
	static const char *const what[3] = { "throughput", "transactions/s", "datagrams/s" };
	char note[800], pct[16];
	int len = snprintf(note, sizeof(note), "n: runs with status ok; ratio: ");

	for (int u = 0, k = 0; u < 3 && len < (int)sizeof(note); u++) {
		if (!base_name[u])
			continue;
		len += snprintf(note + len, sizeof(note) - len, "%smedian %s over the first scenario's (%s)",
				k++ ? "; " : "", what[u], base_name[u]);
	}
	if (len < (int)sizeof(note))
		len += snprintf(note + len, sizeof(note) - len,
				". interval: the median's, distribution-free (docs/methodology.md)");
	if (len < (int)sizeof(note) && cover > 1)
		snprintf(note + len, sizeof(note) - len, "; none below 2 runs.");
	else if (len < (int)sizeof(note))
		snprintf(note + len, sizeof(note) - len, ": it holds the median with %s or more%s.",
			 fmt_cover(pct, sizeof(pct), cover), cover < 0.95 ? " (95% from 6 runs)" : "");
	fputs_wrapped(f, note, 0, 0);
}
