// SPDX-License-Identifier: GPL-2.0
#include "compare.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "report.h"
#include "results.h"
#include "summary.h"

const char help_compare[] =
	"usage: ipsecperf compare [OPTIONS] BASE NEW\n"
	"       ipsecperf compare --simulate [--trials N] [--seed S] [--threshold PCT]\n"
	"\n"
	"Compare two results directories, kernel by kernel: for each scenario and\n"
	"metric (throughput, cycles per byte, each per-packet counter) the base and\n"
	"new medians with their CV, the change in percent, and its p-value from\n"
	"a test suited to small samples: Mann-Whitney U, exact (default), or\n"
	"Welch's t. The table reads like the kernel test robot's.\n"
	"\n"
	"Exit status 1 when a selected metric is worse by more than the threshold\n"
	"with p < alpha (a regression), 0 when none is, 2 for bad usage or input.\n"
	"\n"
	"options:\n"
	"  -m, --metric LIST    metrics that decide the exit status, comma separated\n"
	"                       (repeatable): throughput, cycles_per_byte (or cpb),\n"
	"                       a counter name, or all (default: throughput,\n"
	"                       cycles_per_byte)\n"
	"  -t, --threshold PCT  a regression must exceed PCT percent (default 5)\n"
	"  -a, --alpha P        significance level (default 0.05)\n"
	"      --test TEST      mw (Mann-Whitney U, default) or welch (Welch's t)\n"
	"      --base-kernel K  use only kernel K's runs of BASE\n"
	"      --new-kernel K   use only kernel K's runs of NEW; with BASE = NEW,\n"
	"                       this compares two kernels of one run\n"
	"      --common         compare the scenarios both sides have; without it,\n"
	"                       different scenario sets are an error\n"
	"  -f, --format FMT     text (default, 72 columns), md, csv or json\n"
	"      --simulate       print the false-positive and detection rates of the\n"
	"                       gate for simulated runs (see docs/compare.md)\n"
	"      --trials N       simulated comparisons per row (default 20000)\n"
	"      --seed S         seed of the simulation (default 1)\n"
	"\n"
	"Kernels are paired by name; when each side has exactly one kernel, those\n"
	"two are paired. Runs whose status is not ok are left out and counted.\n"
	"With n = 3 against 3 the exact Mann-Whitney test cannot go below\n"
	"p = 0.10, so nothing can be called significant: use --repeat 5 or more.\n";

/* ---- the decision ---- */

void compare_decide(const double *a, int na, const double *b, int nb, bool higher_is_better,
		    enum compare_test test, double alpha, double threshold, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	stats_compute(a, na, &v->base);
	stats_compute(b, nb, &v->new);
	if (v->base.median != 0)
		v->change = 100 * (v->new.median - v->base.median) / fabs(v->base.median);
	else if (v->new.median == 0)
		v->change = 0;
	else
		v->change = v->new.median > 0 ? INFINITY : -INFINITY;
	v->p_mw = mann_whitney_p(a, na, b, nb, NULL);
	v->p_welch = welch_p(a, na, b, nb);
	v->p = test == TEST_MW ? v->p_mw : v->p_welch;
	v->significant = v->p < alpha; /* false for NAN */
	v->worse = higher_is_better ? v->change < 0 : v->change > 0;
	v->regression = v->significant && v->worse && fabs(v->change) > threshold;
	v->improvement = v->significant && !v->worse && fabs(v->change) > threshold;
}

/* ---- the simulation ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double gauss(uint64_t *s)
{
	/* Box-Muller; u1 in (0, 1] */
	double u1 = ((splitmix64(s) >> 11) + 1) * 0x1.0p-53;
	double u2 = (splitmix64(s) >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double uniform(uint64_t *s)
{
	return (splitmix64(s) >> 11) * 0x1.0p-53;
}

void compare_simulate(int n, double cv, double effect, double outlier, enum compare_test test,
		      double alpha, double threshold, int trials, unsigned long long seed,
		      struct sim_result *out)
{
	/* throughput-like metric (higher is better), base mean 1; new mean 1 - effect */
	double a[256], b[256];
	uint64_t s = seed;
	long sig_worse = 0, sig_any = 0, gate = 0;

	if (n > 256)
		n = 256;
	for (int t = 0; t < trials; t++) {
		struct verdict v;

		for (int i = 0; i < n; i++) {
			a[i] = 1 + cv * gauss(&s);
			b[i] = (1 - effect) * (1 + cv * gauss(&s));
			if (outlier > 0 && uniform(&s) < outlier)
				a[i] *= 0.7;
			if (outlier > 0 && uniform(&s) < outlier)
				b[i] *= 0.7;
		}
		compare_decide(a, n, b, n, true, test, alpha, threshold, &v);
		sig_any += v.significant;
		sig_worse += v.significant && v.worse;
		gate += v.regression;
	}
	out->sig_worse = (double)sig_worse / trials;
	out->sig_any = (double)sig_any / trials;
	out->gate = (double)gate / trials;
}

static int simulate(FILE *f, int trials, unsigned long long seed, double alpha, double threshold)
{
	static const int ns[] = { 3, 5, 10 };
	static const double cvs[] = { 0.01, 0.02, 0.05 };
	static const double effects[] = { 0, 0.05, 0.10 };
	static const double outliers[] = { 0, 0.10 };

	fprintf(f, "ipsecperf compare --simulate --trials %d --seed %llu --threshold %g --alpha %g\n\n",
		trials, seed, threshold, alpha);
	fprintf(f, "Each row: %d comparisons of n base runs against n new runs, both\n"
		   "normal with the given CV; the new mean is lower by `true` percent\n"
		   "(a throughput regression). sig: p < %g and worse; any: p < %g in\n"
		   "either direction; gate: worse by more than %g%% with p < %g (exit 1).\n\n",
		trials, alpha, alpha, threshold, alpha);
	fprintf(f, "out: share of runs disturbed to 0.7 of their value, on both sides.\n\n");
	fprintf(f, "test    n   cv  out  true     sig     any    gate\n");
	fprintf(f, "-----  --  ---  ---  ----  ------  ------  ------\n");
	for (size_t oi = 0; oi < sizeof(outliers) / sizeof(outliers[0]); oi++)
		for (int test = 0; test < 2; test++)
			for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
				for (size_t ci = 0; ci < sizeof(cvs) / sizeof(cvs[0]); ci++) {
					if (outliers[oi] > 0 && cvs[ci] != 0.02)
						continue; /* outliers: the realistic CV only */
					for (size_t ei = 0; ei < sizeof(effects) / sizeof(effects[0]); ei++) {
						struct sim_result r;

						compare_simulate(ns[ni], cvs[ci], effects[ei], outliers[oi], test,
								 alpha, threshold, trials, seed, &r);
						fprintf(f, "%-5s  %2d  %2.0f%%  %2.0f%%  %3.0f%%  %5.1f%%  %5.1f%%  %5.1f%%\n",
							test == TEST_MW ? "mw" : "welch", ns[ni], 100 * cvs[ci],
							100 * outliers[oi], 100 * effects[ei], 100 * r.sig_worse,
							100 * r.sig_any, 100 * r.gate);
					}
				}
	return ferror(f) ? -1 : 0;
}

/* ---- matching two results directories ---- */

struct side {
	const char *dir;
	struct results r;
	struct run_group *g;
	int ng;
	const char **kernels;
	int nk;
};

struct pair_row {
	const char *kernel_base, *kernel_new, *scenario;
	const struct run_group *gb, *gn;
	struct metric m;
	bool selected;
	struct verdict v;
};

struct opts {
	char **metrics;
	int nmetrics;
	bool all_metrics;
	double threshold, alpha;
	enum compare_test test;
	const char *base_kernel, *new_kernel;
	bool common;
	const char *format;
};

static bool metric_selected(const struct opts *o, const struct metric *m)
{
	if (o->all_metrics)
		return true;
	for (int i = 0; i < o->nmetrics; i++) {
		const char *s = o->metrics[i];

		if (m->kind == METRIC_THROUGHPUT && !strcmp(s, "throughput"))
			return true;
		if (m->kind == METRIC_CPB && (!strcmp(s, "cycles_per_byte") || !strcmp(s, "cpb")))
			return true;
		if (m->kind == METRIC_COUNTER && !strcmp(s, m->counter))
			return true;
	}
	return false;
}

static int load_side(struct side *s, const char *dir, const char *only_kernel)
{
	char err[1024];

	s->dir = dir;
	if (results_load(dir, &s->r, err, sizeof(err)) < 0) {
		pr_warn("%s", err);
		return -1;
	}
	if (results_groups(&s->r, &s->g, &s->ng) < 0 || results_kernels(&s->r, &s->kernels, &s->nk) < 0) {
		pr_warn("compare: out of memory");
		return -1;
	}
	if (only_kernel) {
		int k;

		for (k = 0; k < s->nk; k++)
			if (!strcmp(s->kernels[k], only_kernel))
				break;
		if (k == s->nk) {
			pr_warn("compare: %s: no runs of kernel '%s' (it has: %s%s)", s->r.runs_path,
				only_kernel, s->kernels[0], s->nk > 1 ? ", ..." : "");
			return -1;
		}
		s->kernels[0] = s->kernels[k];
		s->nk = 1;
	}
	return 0;
}

static void free_side(struct side *s)
{
	results_groups_free(s->g, s->ng);
	free(s->kernels);
	results_free(&s->r);
}

static const struct run_group *find_group(const struct side *s, const char *kernel, const char *scen)
{
	for (int i = 0; i < s->ng; i++)
		if (!strcmp(s->g[i].kernel, kernel) && !strcmp(s->g[i].scenario, scen))
			return &s->g[i];
	return NULL;
}

static bool has_kernel(const struct side *s, const char *k)
{
	for (int i = 0; i < s->nk; i++)
		if (!strcmp(s->kernels[i], k))
			return true;
	return false;
}

/* Pair kernels: by name, or the only one of each side. Returns pairs or -1. */
static int pair_kernels(const struct side *b, const struct side *n, const char ***kb,
			const char ***kn)
{
	int np = 0;

	*kb = calloc(b->nk + 1, sizeof(**kb));
	*kn = calloc(b->nk + 1, sizeof(**kn));
	if (!*kb || !*kn)
		return -1;
	if (b->nk == 1 && n->nk == 1) {
		(*kb)[0] = b->kernels[0];
		(*kn)[0] = n->kernels[0];
		return 1;
	}
	for (int i = 0; i < b->nk; i++)
		if (!has_kernel(n, b->kernels[i]))
			goto mismatch;
	for (int i = 0; i < n->nk; i++)
		if (!has_kernel(b, n->kernels[i]))
			goto mismatch;
	for (int i = 0; i < b->nk; i++) {
		(*kb)[np] = b->kernels[i];
		(*kn)[np++] = b->kernels[i];
	}
	return np;
mismatch:
	{
		char lb[512] = "", ln[512] = "";

		for (int i = 0; i < b->nk; i++)
			snprintf(lb + strlen(lb), sizeof(lb) - strlen(lb), "%s%s", i ? ", " : "", b->kernels[i]);
		for (int i = 0; i < n->nk; i++)
			snprintf(ln + strlen(ln), sizeof(ln) - strlen(ln), "%s%s", i ? ", " : "", n->kernels[i]);
		pr_warn("compare: the kernels differ: %s has %s; %s has %s; choose one of each with --base-kernel and --new-kernel",
			b->r.runs_path, lb, n->r.runs_path, ln);
	}
	return -1;
}

/* Scenario sets of one kernel pair must match unless --common. */
static int check_scenarios(const struct side *b, const char *kb, const struct side *n,
			   const char *kn, bool common)
{
	char only[1024] = "";
	int missing = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct side *x = pass ? n : b, *y = pass ? b : n;
		const char *kx = pass ? kn : kb, *ky = pass ? kb : kn;

		for (int i = 0; i < x->ng; i++) {
			const struct run_group *g = &x->g[i];

			if (strcmp(g->kernel, kx) || find_group(y, ky, g->scenario))
				continue;
			missing++;
			snprintf(only + strlen(only), sizeof(only) - strlen(only),
				 "%s%s only in %s (line %d)", *only ? "; " : "", g->scenario, x->r.runs_path,
				 x->r.runs[g->idx[0]].line);
		}
	}
	if (missing && !common) {
		pr_warn("compare: the scenario sets differ (kernel %s vs %s): %s; add --common to compare the scenarios both have",
			kb, kn, only);
		return -1;
	}
	if (missing)
		pr_info("compare: --common: left out %s", only);
	return 0;
}

static int add_pair_row(struct pair_row **rows, int *n, int *cap, struct pair_row row)
{
	if (*n == *cap) {
		struct pair_row *nr = realloc(*rows, (*cap = *cap * 2 + 32) * sizeof(*nr));

		if (!nr)
			return -1;
		*rows = nr;
	}
	(*rows)[(*n)++] = row;
	return 0;
}

static int build_rows(const struct side *b, const struct side *n, const char **kb, const char **kn,
		      int npairs, const struct opts *o, struct pair_row **rows_out, int *nrows_out)
{
	struct pair_row *rows = NULL;
	int nrows = 0, cap = 0;

	for (int p = 0; p < npairs; p++) {
		if (check_scenarios(b, kb[p], n, kn[p], o->common) < 0)
			goto out_fail;
		for (int i = 0; i < b->ng; i++) {
			const struct run_group *gb = &b->g[i], *gn;
			const char **names;
			int nn;

			if (strcmp(gb->kernel, kb[p]) || !(gn = find_group(n, kn[p], gb->scenario)))
				continue;
			struct metric ms[2] = { { .kind = METRIC_THROUGHPUT }, { .kind = METRIC_CPB } };

			if (group_counters(&b->r, gb, &names, &nn) < 0)
				goto out_fail;
			for (int m = 0; m < 2 + nn; m++) {
				struct metric met = m < 2 ? ms[m]
							  : (struct metric){ .kind = METRIC_COUNTER, .counter = names[m - 2] };
				struct pair_row row = { .kernel_base = kb[p], .kernel_new = kn[p],
							.scenario = gb->scenario, .gb = gb, .gn = gn, .m = met };
				double *va = malloc((gb->n + 1) * sizeof(double));
				double *vb = malloc((gn->n + 1) * sizeof(double));
				int na, nb;

				if (!va || !vb) {
					free(va);
					free(vb);
					free(names);
					goto out_fail;
				}
				na = group_values(&b->r, gb, &met, va);
				nb = group_values(&n->r, gn, &met, vb);
				row.selected = metric_selected(o, &met);
				if (na > 0 && nb > 0) {
					compare_decide(va, na, vb, nb, metric_higher_is_better(&met), o->test,
						       o->alpha, o->threshold, &row.v);
				} else {
					/* a metric one side lacks: listed, never decided */
					stats_compute(va, na, &row.v.base);
					stats_compute(vb, nb, &row.v.new);
					row.v.change = row.v.p = row.v.p_mw = row.v.p_welch = NAN;
				}
				free(va);
				free(vb);
				if (met.kind == METRIC_COUNTER && na == 0 && nb == 0)
					continue;
				if (add_pair_row(&rows, &nrows, &cap, row) < 0) {
					free(names);
					goto out_fail;
				}
			}
			free(names);
		}
	}
	*rows_out = rows;
	*nrows_out = nrows;
	return 0;
out_fail:
	free(rows);
	return -1;
}

/* ---- output ---- */

static const char *fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 0.0001)
		snprintf(buf, len, "<1e-4");
	else
		snprintf(buf, len, "%.4f", p);
	return buf;
}

static const char *fmt_change(char *buf, size_t len, double c)
{
	if (isnan(c))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", c);
	return buf;
}

static const char *fmt_cv(char *buf, size_t len, const struct stats *s)
{
	if (isnan(s->cv))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", 100 * s->cv);
	return buf;
}

static char flag_of(const struct pair_row *r)
{
	if (r->selected && r->v.regression)
		return 'R';
	return r->v.significant ? '*' : ' ';
}

static void selected_list(const struct opts *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (o->all_metrics) {
		snprintf(buf, len, "all metrics");
		return;
	}
	for (int i = 0; i < o->nmetrics; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", o->metrics[i]);
}

static const char *test_name(enum compare_test t)
{
	return t == TEST_MW ? "Mann-Whitney U (exact, two-sided)" : "Welch's t (two-sided)";
}

/*
 * Two kernels of one results directory: did every run of one come before
 * every run of the other? Then a drift of the host during the run (load,
 * temperature, other guests) is confounded with the kernel. ISO 8601 UTC
 * timestamps of one writer compare as strings.
 */
static bool kernels_ran_in_sequence(const struct side *s, const char *ka, const char *kb)
{
	const char *a_min = NULL, *a_max = NULL, *b_min = NULL, *b_max = NULL;

	for (int i = 0; i < s->r.nruns; i++) {
		const struct run_record *rec = &s->r.runs[i];
		const char **lo, **hi;

		if (!rec->start)
			return false;
		if (!strcmp(rec->kernel, ka)) {
			lo = &a_min;
			hi = &a_max;
		} else if (!strcmp(rec->kernel, kb)) {
			lo = &b_min;
			hi = &b_max;
		} else {
			continue;
		}
		if (!*lo || strcmp(rec->start, *lo) < 0)
			*lo = rec->start;
		if (!*hi || strcmp(rec->start, *hi) > 0)
			*hi = rec->start;
	}
	if (!a_min || !b_min)
		return false;
	return strcmp(a_max, b_min) < 0 || strcmp(b_max, a_min) < 0;
}

static int print_text(FILE *f, const struct side *b, const struct side *n, const struct pair_row *rows,
		      int nrows, const struct opts *o, int nreg)
{
	const char *kb = NULL, *kn = NULL, *scen = NULL;
	char sel[512], line[1024];
	bool too_few = false;
	int nzero = 0;

	fprintf(f, "ipsecperf compare\n");
	snprintf(line, sizeof(line), "%s (%s)", b->dir,
		 b->r.meta.tool_version ? b->r.meta.tool_version : "version not recorded");
	fputs("base  ", f);
	fputs_wrapped_at(f, line, 6, 6);
	snprintf(line, sizeof(line), "%s (%s)", n->dir,
		 n->r.meta.tool_version ? n->r.meta.tool_version : "version not recorded");
	fputs("new   ", f);
	fputs_wrapped_at(f, line, 6, 6);
	selected_list(o, sel, sizeof(sel));
	snprintf(line, sizeof(line), "%s; * p < %g; R: %s worse by more than %g%% with p < %g",
		 test_name(o->test), o->alpha, sel, o->threshold, o->alpha);
	fputs("test  ", f);
	fputs_wrapped_at(f, line, 6, 6);
	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		char bm[32], bc[16], ch[32], nm[32], nc[16], p[16];
		int d;

		if (r->kernel_base != kb || r->kernel_new != kn) {
			kb = r->kernel_base;
			kn = r->kernel_new;
			scen = NULL;
			if (!strcmp(kb, kn))
				snprintf(line, sizeof(line), "\nkernel %s", kb);
			else
				snprintf(line, sizeof(line), "\nkernel %s -> %s", kb, kn);
			fputs_wrapped(f, line, 0, 7);
			fprintf(f, "\n%9s %4s %8s %9s %4s %6s  %s\n", "base", "%cv", "%change", "new", "%cv",
				"p", "metric");
			fprintf(f, "%9s %4s %8s %9s %4s %6s  %s\n", "---------", "----", "--------",
				"---------", "----", "------", "------------------------");
		}
		if (r->scenario != scen) {
			int nb_bad = r->gb->n - r->gb->n_ok, nn_bad = r->gn->n - r->gn->n_ok;

			scen = r->scenario;
			snprintf(line, sizeof(line), "%s: n %d vs %d", scen, r->gb->n_ok, r->gn->n_ok);
			if (nb_bad || nn_bad)
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 " (not ok: %d base, %d new)", nb_bad, nn_bad);
			if (r->gb->n_ok && r->gn->n_ok && o->test == TEST_MW &&
			    mann_whitney_min_p(r->gb->n_ok, r->gn->n_ok) >= o->alpha) {
				too_few = true;
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 "; too few runs to reach p < %g", o->alpha);
			}
			fputs_wrapped(f, line, 0, 4);
		}
		/* a counter at zero in every run of both sides says nothing here */
		if (r->m.kind == METRIC_COUNTER && r->v.base.n && r->v.new.n && r->v.base.max == 0 &&
		    r->v.base.min == 0 && r->v.new.max == 0 && r->v.new.min == 0) {
			nzero++;
			continue;
		}
		d = fmt_decimals(r->v.base.median);
		if (r->m.kind == METRIC_COUNTER && d < 2)
			d = 2;
		fprintf(f, "%9s %4s %8s %9s %4s %6s%c %s\n", fmt_num(bm, sizeof(bm), r->v.base.median, d),
			fmt_cv(bc, sizeof(bc), &r->v.base), fmt_change(ch, sizeof(ch), r->v.change),
			fmt_num(nm, sizeof(nm), r->v.new.median, d), fmt_cv(nc, sizeof(nc), &r->v.new),
			fmt_p(p, sizeof(p), r->v.p), flag_of(r),
			r->m.kind == METRIC_THROUGHPUT ? "throughput Gbit/s"
			: r->m.kind == METRIC_CPB      ? "cycles/byte"
						       : r->m.counter);
	}
	fputc('\n', f);
	if (nzero) {
		snprintf(line, sizeof(line),
			 "Not shown: %d counter row%s at zero in every run on both sides (in -f json and csv).",
			 nzero, nzero > 1 ? "s" : "");
		fputs_wrapped(f, line, 0, 0);
	}
	if (!strcmp(b->dir, n->dir) && nrows &&
	    strcmp(rows[0].kernel_base, rows[0].kernel_new) &&
	    kernels_ran_in_sequence(b, rows[0].kernel_base, rows[0].kernel_new)) {
		snprintf(line, sizeof(line),
			 "note: all runs of %s came before or after all runs of %s: a change of the host during the run (load, other guests) cannot be told from a change of kernel. Interleave the kernels, or repeat the run in the other order.",
			 rows[0].kernel_base, rows[0].kernel_new);
		fputs_wrapped(f, line, 0, 6);
	}
	if (too_few) {
		snprintf(line, sizeof(line),
			 "note: with the run counts marked above, Mann-Whitney's smallest possible p is %.3f or more, so no change there can be significant; rerun with --repeat 5 or more (n = 5 against 5 gives p >= 0.008).",
			 o->alpha);
		fputs_wrapped(f, line, 0, 6);
	}
	if (nreg)
		fprintf(f, "verdict: %d regression%s (exit status 1)\n", nreg, nreg > 1 ? "s" : "");
	else
		fprintf(f, "verdict: no regression beyond %g%% with p < %g\n", o->threshold, o->alpha);
	for (int i = 0; i < nrows && nreg; i++) {
		const struct pair_row *r = &rows[i];
		char nbuf[160], p[16];

		if (!(r->selected && r->v.regression))
			continue;
		snprintf(line, sizeof(line), "REGRESSION %s%s%s %s %s %+.1f%% (p %s)", r->kernel_base,
			 strcmp(r->kernel_base, r->kernel_new) ? " -> " : "",
			 strcmp(r->kernel_base, r->kernel_new) ? r->kernel_new : "", r->scenario,
			 metric_name(&r->m, nbuf, sizeof(nbuf)), r->v.change, fmt_p(p, sizeof(p), r->v.p));
		fputs_wrapped(f, line, 2, 6);
	}
	return ferror(f) ? -1 : 0;
}

static int print_csv(FILE *f, const struct pair_row *rows, int nrows)
{
	fprintf(f, "kernel_base,kernel_new,scenario,metric,unit,selected,n_base,n_new,median_base,"
		   "median_new,cv_base,cv_new,min_base,max_base,min_new,max_new,change_pct,p_mw,p_welch,"
		   "significant,regression\n");
	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		char name[160];
		double v[] = { r->v.base.median, r->v.new.median, r->v.base.cv, r->v.new.cv,
			       r->v.base.min, r->v.base.max, r->v.new.min, r->v.new.max,
			       r->v.change, r->v.p_mw, r->v.p_welch };

		/* kernel and scenario names are [^,"\n] in practice; quote anyway */
		fprintf(f, "\"%s\",\"%s\",\"%s\",%s,%s,%d,%d,%d", r->kernel_base, r->kernel_new, r->scenario,
			metric_name(&r->m, name, sizeof(name)), metric_unit(&r->m), r->selected,
			r->v.base.n, r->v.new.n);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			fputc(',', f);
			if (!isnan(v[j]))
				fprintf(f, "%.10g", v[j]);
		}
		fprintf(f, ",%d,%d\n", r->v.significant, r->selected && r->v.regression);
	}
	return ferror(f) ? -1 : 0;
}

static json_t *jnum_c(double v)
{
	return isnan(v) ? json_null() : isinf(v) ? json_string(v > 0 ? "inf" : "-inf") : json_real(v);
}

static int print_json(FILE *f, const struct side *b, const struct side *n, const struct pair_row *rows,
		      int nrows, const struct opts *o, int nreg)
{
	json_t *root, *arr = json_array();
	int ret;

	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		char name[160];

		json_array_append_new(arr, json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:{s:i, s:o, s:o, s:o, s:o}, s:{s:i, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:b, s:b}",
			"kernel_base", r->kernel_base, "kernel_new", r->kernel_new, "scenario", r->scenario,
			"metric", metric_name(&r->m, name, sizeof(name)), "unit", metric_unit(&r->m),
			"higher_is_better", metric_higher_is_better(&r->m), "selected", r->selected,
			"base", "n", r->v.base.n, "median", jnum_c(r->v.base.median), "min", jnum_c(r->v.base.min),
			"max", jnum_c(r->v.base.max), "cv", jnum_c(r->v.base.cv),
			"new", "n", r->v.new.n, "median", jnum_c(r->v.new.median), "min", jnum_c(r->v.new.min),
			"max", jnum_c(r->v.new.max), "cv", jnum_c(r->v.new.cv),
			"change_pct", jnum_c(r->v.change), "p_mw", jnum_c(r->v.p_mw), "p_welch", jnum_c(r->v.p_welch),
			"significant", r->v.significant, "regression", r->selected && r->v.regression));
	}
	root = json_pack("{s:i, s:s, s:s, s:s, s:f, s:f, s:o, s:i}", "version", 1, "base", b->dir, "new",
			 n->dir, "test", o->test == TEST_MW ? "mann-whitney" : "welch", "alpha", o->alpha,
			 "threshold_pct", o->threshold, "rows", arr, "regressions", nreg);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret < 0 || ferror(f) ? -1 : 0;
}

static int print_md(FILE *f, const struct side *b, const struct side *n, const struct pair_row *rows,
		    int nrows, const struct opts *o, int nreg)
{
	char sel[512];

	selected_list(o, sel, sizeof(sel));
	fprintf(f, "# ipsecperf compare\n\nbase: `%s`, new: `%s`; test: %s; **R**: %s worse by more than %g%% with p < %g\n\n",
		b->dir, n->dir, test_name(o->test), sel, o->threshold, o->alpha);
	fprintf(f, "| kernel | scenario | metric | n | base median | base CV | change | new median | new CV | p (MW) | p (Welch) | |\n"
		   "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		char bm[32], bc[16], ch[32], nm[32], nc[16], p1[16], p2[16], name[160];
		int d = fmt_decimals(r->v.base.median);

		fprintf(f, "| %s%s%s | %s | %s | %d vs %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r->kernel_base, strcmp(r->kernel_base, r->kernel_new) ? " &rarr; " : "",
			strcmp(r->kernel_base, r->kernel_new) ? r->kernel_new : "", r->scenario,
			metric_name(&r->m, name, sizeof(name)), r->v.base.n, r->v.new.n,
			fmt_num(bm, sizeof(bm), r->v.base.median, d), fmt_cv(bc, sizeof(bc), &r->v.base),
			fmt_change(ch, sizeof(ch), r->v.change), fmt_num(nm, sizeof(nm), r->v.new.median, d),
			fmt_cv(nc, sizeof(nc), &r->v.new), fmt_p(p1, sizeof(p1), r->v.p_mw),
			fmt_p(p2, sizeof(p2), r->v.p_welch),
			flag_of(r) == 'R' ? "**R**" : flag_of(r) == '*' ? "\\*" : "");
	}
	fprintf(f, "\nverdict: %s\n", nreg ? "**regression**" : "no regression");
	return ferror(f) ? -1 : 0;
}

/* ---- the command ---- */

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= lo && *out <= hi)) {
		pr_warn("compare: %s %s: a number from %g to %g expected", opt, s, lo, hi);
		return -1;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	enum { O_TEST = 256, O_BASEK, O_NEWK, O_COMMON, O_SIM, O_TRIALS, O_SEED };
	static const struct option lopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "test", required_argument, NULL, O_TEST },
		{ "base-kernel", required_argument, NULL, O_BASEK },
		{ "new-kernel", required_argument, NULL, O_NEWK },
		{ "common", no_argument, NULL, O_COMMON },
		{ "simulate", no_argument, NULL, O_SIM },
		{ "trials", required_argument, NULL, O_TRIALS },
		{ "seed", required_argument, NULL, O_SEED },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .threshold = 5, .alpha = 0.05, .test = TEST_MW, .format = "text" };
	char *metric_buf[64], *copies[64];
	int ncopies = 0, c, ret = EXIT_USAGE, npairs, nrows = 0, nreg = 0;
	bool sim = false;
	double trials = 20000, seed = 1;
	struct side b = { 0 }, n = { 0 };
	const char **kb = NULL, **kn = NULL;
	struct pair_row *rows = NULL;

	o.metrics = metric_buf;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:t:a:f:", lopts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			char *copy = strdup(optarg), *tok, *save;

			if (!copy || ncopies == 64)
				goto out_usage;
			copies[ncopies++] = copy;
			for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "all"))
					o.all_metrics = true;
				else if (o.nmetrics < 64)
					o.metrics[o.nmetrics++] = tok;
			}
			break;
		}
		case 't':
			if (parse_double("--threshold", optarg, 0, 1000, &o.threshold) < 0)
				goto out_usage;
			break;
		case 'a':
			if (parse_double("--alpha", optarg, 1e-9, 0.5, &o.alpha) < 0)
				goto out_usage;
			break;
		case 'f':
			o.format = optarg;
			break;
		case O_TEST:
			if (!strcmp(optarg, "mw"))
				o.test = TEST_MW;
			else if (!strcmp(optarg, "welch"))
				o.test = TEST_WELCH;
			else {
				pr_warn("compare: --test %s: mw or welch expected", optarg);
				goto out_usage;
			}
			break;
		case O_BASEK:
			o.base_kernel = optarg;
			break;
		case O_NEWK:
			o.new_kernel = optarg;
			break;
		case O_COMMON:
			o.common = true;
			break;
		case O_SIM:
			sim = true;
			break;
		case O_TRIALS:
			if (parse_double("--trials", optarg, 1, 1e8, &trials) < 0)
				goto out_usage;
			break;
		case O_SEED:
			if (parse_double("--seed", optarg, 0, 1e15, &seed) < 0)
				goto out_usage;
			break;
		default:
			options_getopt_error("compare", c, argv);
			goto out_usage;
		}
	}
	if (sim) {
		if (optind != argc) {
			pr_warn("compare: --simulate takes no directories");
			goto out_usage;
		}
		ret = simulate(stdout, (int)trials, (unsigned long long)seed, o.alpha, o.threshold) < 0
			      ? EXIT_FAIL : EXIT_OK;
		goto out_usage;
	}
	if (!o.nmetrics && !o.all_metrics) {
		o.metrics[o.nmetrics++] = "throughput";
		o.metrics[o.nmetrics++] = "cycles_per_byte";
	}
	if (strcmp(o.format, "text") && strcmp(o.format, "md") && strcmp(o.format, "csv") &&
	    strcmp(o.format, "json")) {
		pr_warn("compare: --format %s: text, md, csv or json expected", o.format);
		goto out_usage;
	}
	if (argc - optind != 2) {
		pr_warn("compare: two results directories expected; usage: ipsecperf compare [OPTIONS] BASE NEW");
		goto out_usage;
	}
	if (load_side(&b, argv[optind], o.base_kernel) < 0 ||
	    load_side(&n, argv[optind + 1], o.new_kernel) < 0)
		goto out;
	npairs = pair_kernels(&b, &n, &kb, &kn);
	if (npairs < 0)
		goto out;
	if (build_rows(&b, &n, kb, kn, npairs, &o, &rows, &nrows) < 0)
		goto out;
	/* a metric asked for by name must exist somewhere */
	for (int i = 0; i < o.nmetrics; i++) {
		bool found = false;

		for (int r = 0; r < nrows && !found; r++) {
			struct metric one = rows[r].m;
			struct opts single = { .metrics = &o.metrics[i], .nmetrics = 1 };

			found = metric_selected(&single, &one);
		}
		if (!found) {
			pr_warn("compare: --metric %s: no such metric in both directories (throughput, cycles_per_byte or a counter they share)",
				o.metrics[i]);
			goto out;
		}
	}
	for (int i = 0; i < nrows; i++)
		nreg += rows[i].selected && rows[i].v.regression;
	if (!strcmp(o.format, "csv"))
		c = print_csv(stdout, rows, nrows);
	else if (!strcmp(o.format, "json"))
		c = print_json(stdout, &b, &n, rows, nrows, &o, nreg);
	else if (!strcmp(o.format, "md"))
		c = print_md(stdout, &b, &n, rows, nrows, &o, nreg);
	else
		c = print_text(stdout, &b, &n, rows, nrows, &o, nreg);
	ret = c < 0 ? EXIT_FAIL : nreg ? EXIT_FAIL : EXIT_OK;
out:
	free(rows);
	free(kb);
	free(kn);
	free_side(&b);
	free_side(&n);
out_usage:
	for (int i = 0; i < ncopies; i++)
		free(copies[i]);
	return ret;
}
