// SPDX-License-Identifier: GPL-2.0
#include "compare.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "until_ci.h"
#include "compare_int.h"
#include "log.h"
#include "modes.h"
#include "pool.h"
#include "provenance.h"
#include "results.h"

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

int compare_simulate_table(FILE *f, int trials, unsigned long long seed, double alpha, double threshold)
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

/* ---- matching the two sides ---- */

static bool metric_selected(const struct compare_opts *o, const struct metric *m)
{
	if (o->all_metrics)
		return true;
	for (int i = 0; i < o->nmetrics; i++) {
		const char *s = o->metrics[i];

		char buf[64];

		if (m->kind == METRIC_CPB && !strcmp(s, "cpb"))
			return true;
		/* a virtual-clock side has no cycles: what asks for them gates on its instructions */
		if (m->kind == METRIC_IPB && (!strcmp(s, "cpb") || !strcmp(s, "cycles_per_byte")))
			return true;
		if (!strcmp(s, metric_name(m, buf, sizeof(buf))))
			return true;
	}
	return false;
}

/* For messages: the side's runs.jsonl, or its directories. */
static const char *side_where(const struct side *s, char *buf, size_t len)
{
	if (s->nsrc == 1)
		snprintf(buf, len, "%s", s->src[0].runs_path);
	else
		snprintf(buf, len, "%s (%d directories)", s->name, s->nsrc);
	return buf;
}

static int load_side(struct side *s, const char *name, char *const *dirs, int ndirs, const char *only_kernel)
{
	char where[PATH_MAX + 64];

	s->name = name;
	if (pool_load(dirs, ndirs, &s->src, &s->nsrc, &s->r) < 0)
		return -1;
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
			pr_warn("compare: %s: no runs of kernel '%s' (it has: %s%s)",
				side_where(s, where, sizeof(where)), only_kernel, s->kernels[0],
				s->nk > 1 ? ", ..." : "");
			return -1;
		}
		s->kernels[0] = s->kernels[k];
		s->nk = 1;
	}
	return 0;
}

/*
 * A virtual-clock figure is per instruction-time, a real one per second:
 * no ratio between them means anything, so compare refuses (no
 * --allow-mismatch takes it).
 */
static int check_clocks(const struct side *b, const struct side *n)
{
	const char *cb = results_clock(&b->r), *cn = results_clock(&n->r);

	if (!strcmp(cb, "mixed") || !strcmp(cn, "mixed")) {
		pr_warn("compare: %s mixes runs on the real and the virtual clock (run --clock); compare each clock's runs with their own kind",
			!strcmp(cb, "mixed") ? "base" : "new");
		return -1;
	}
	if (strcmp(cb, cn)) {
		pr_warn("compare: base was measured on the %s clock, new on the %s (run --clock): a virtual-clock figure is per instruction-time, a real one per second; compare virtual with virtual, real with real",
			cb, cn);
		return -1;
	}
	return 0;
}

static void free_side(struct side *s)
{
	results_groups_free(s->g, s->ng);
	free(s->kernels);
	pool_free(s->src, s->nsrc, &s->r);
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
		char lb[512] = "", ln[512] = "", wb[PATH_MAX + 64], wn[PATH_MAX + 64];

		for (int i = 0; i < b->nk; i++)
			snprintf(lb + strlen(lb), sizeof(lb) - strlen(lb), "%s%s", i ? ", " : "", b->kernels[i]);
		for (int i = 0; i < n->nk; i++)
			snprintf(ln + strlen(ln), sizeof(ln) - strlen(ln), "%s%s", i ? ", " : "", n->kernels[i]);
		pr_warn("compare: the kernels differ: %s has %s; %s has %s; choose one of each with --base-kernel and --new-kernel",
			side_where(b, wb, sizeof(wb)), lb, side_where(n, wn, sizeof(wn)), ln);
	}
	return -1;
}

/* Scenario sets of one kernel pair must match unless --common. */
static int check_scenarios(const struct side *b, const char *kb, const struct side *n,
			   const char *kn, bool common, struct notes *notes)
{
	char only[1024] = "";
	int missing = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct side *x = pass ? n : b, *y = pass ? b : n;
		const char *kx = pass ? kn : kb, *ky = pass ? kb : kn;

		for (int i = 0; i < x->ng; i++) {
			const struct run_group *g = &x->g[i];
			const struct run_record *first;

			if (strcmp(g->kernel, kx) || find_group(y, ky, g->scenario))
				continue;
			missing++;
			first = &x->r.runs[g->idx[0]];
			snprintf(only + strlen(only), sizeof(only) - strlen(only),
				 "%s%s only in %s (line %d)", *only ? "; " : "", g->scenario,
				 x->src[first->source].runs_path, first->line);
		}
	}
	if (missing && !common) {
		pr_warn("compare: the scenario sets differ (kernel %s vs %s): %s; add --common to compare the scenarios both have",
			kb, kn, only);
		return -1;
	}
	if (missing)
		notes_add(notes, "common", NULL, "--common left out %s.", only);
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

/* Can this row's runs reach p < alpha at all? If not, say why. */
static void decidability(struct pair_row *row, const struct compare_opts *o)
{
	int na = row->v.base.n, nb = row->v.new.n;
	double min_p;

	row->decidable = false;
	row->nodata = !na || !nb;
	if (!na || !nb) {
		snprintf(row->undecided, sizeof(row->undecided), "no data in %s",
			 !na && !nb ? "either side" : !na ? "base" : "new");
		return;
	}
	if (o->test == TEST_MW && (min_p = mann_whitney_min_p(na, nb)) >= o->alpha) {
		snprintf(row->undecided, sizeof(row->undecided),
			 "too few runs: n %d vs %d, where Mann-Whitney's smallest p is %.3f, not below %g",
			 na, nb, min_p, o->alpha);
		return;
	}
	if (isnan(row->v.p)) {
		snprintf(row->undecided, sizeof(row->undecided),
			 "no p-value: n %d vs %d (Welch's t needs 2 runs a side and some spread)", na, nb);
		return;
	}
	row->decidable = true;
}

static int build_rows(const struct side *b, const struct side *n, const char **kb, const char **kn,
		      int npairs, const struct compare_opts *o, struct notes *notes, struct pair_row **rows_out,
		      int *nrows_out)
{
	struct pair_row *rows = NULL;
	int nrows = 0, cap = 0;

	for (int p = 0; p < npairs; p++) {
		if (check_scenarios(b, kb[p], n, kn[p], o->common, notes) < 0)
			goto out_fail;
		for (int i = 0; i < b->ng; i++) {
			const struct run_group *gb = &b->g[i], *gn;
			const char **names, **spreads;
			int nn, ns;

			if (strcmp(gb->kernel, kb[p]) || !(gn = find_group(n, kn[p], gb->scenario)))
				continue;
			struct metric ms[RESULTS_GROUP_METRICS];
			int nm = group_metrics(&b->r, gb, ms);

			if (group_counters(&b->r, gb, &names, &nn) < 0)
				goto out_fail;
			/* where the work ran: the busiest CPU's share, a row per per-CPU list */
			if (group_spreads(&b->r, gb, &spreads, &ns) < 0) {
				free(names);
				goto out_fail;
			}
			for (int m = 0; m < nm + nn + ns; m++) {
				struct metric met = m < nm ? ms[m]
						    : m < nm + nn ? (struct metric){ .kind = METRIC_COUNTER, .counter = names[m - nm],
										     .unit = group_unit(&b->r, gb) }
								  : (struct metric){ .kind = METRIC_CPU_SHARE,
										     .counter = spreads[m - nm - nn] };
				struct pair_row row = { .kernel_base = kb[p], .kernel_new = kn[p],
							.scenario = gb->scenario, .gb = gb, .gn = gn, .m = met };
				double *va = malloc((gb->n + 1) * sizeof(double));
				double *vb = malloc((gn->n + 1) * sizeof(double));
				int na, nb;

				if (!va || !vb) {
					free(va);
					free(vb);
					free(names);
					free(spreads);
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
				decidability(&row, o);
				free(va);
				free(vb);
				if ((met.kind == METRIC_COUNTER || met.kind == METRIC_CPU_SHARE) && na == 0 && nb == 0)
					continue;
				if (add_pair_row(&rows, &nrows, &cap, row) < 0) {
					free(names);
					free(spreads);
					goto out_fail;
				}
			}
			free(names);
			free(spreads);
		}
	}
	*rows_out = rows;
	*nrows_out = nrows;
	return 0;
out_fail:
	free(rows);
	return -1;
}

/* ---- are the sides comparable? ---- */

/* The same run: a record identical in what it measured and when. */
static int run_cmp(const void *x, const void *y)
{
	const struct run_record *a = *(const struct run_record *const *)x;
	const struct run_record *b = *(const struct run_record *const *)y;
	int c;

	if ((c = strcmp(a->scenario, b->scenario)) || (c = (a->repeat > b->repeat) - (a->repeat < b->repeat)))
		return c;
	if (!a->start != !b->start)
		return a->start ? 1 : -1;
	if (a->start && (c = strcmp(a->start, b->start)))
		return c;
	if ((c = (int)a->status - (int)b->status) || (c = (int)a->counting - (int)b->counting))
		return c;
	if ((c = (a->throughput_bps > b->throughput_bps) - (a->throughput_bps < b->throughput_bps)))
		return c;
	return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

static int kernel_runs(const struct side *s, const char *k, const struct run_record ***out)
{
	int n = 0;

	*out = calloc(s->r.nruns + 1, sizeof(**out));
	if (!*out)
		return -1;
	for (int i = 0; i < s->r.nruns; i++)
		if (!strcmp(s->r.runs[i].kernel, k))
			(*out)[n++] = &s->r.runs[i];
	qsort(*out, n, sizeof(**out), run_cmp);
	return n;
}

/* A directory given on both sides, or NULL. */
static const char *dir_on_both(const struct side *b, const struct side *n)
{
	for (int i = 0; i < b->nsrc; i++)
		for (int j = 0; j < n->nsrc; j++)
			if (pool_same_dir(b->src[i].dir, n->src[j].dir))
				return b->src[i].dir;
	return NULL;
}

/*
 * BASE and NEW must not share runs: the same directory (or a copy of it)
 * on both sides with the same kernel compares runs with themselves.
 */
static int check_not_same(const struct side *b, const struct side *n, const char *kb, const char *kn)
{
	const struct run_record **rb = NULL, **rn = NULL;
	int nb, nn, shared = 0, i = 0, j = 0, err = 0;
	const char *both = dir_on_both(b, n);
	char why[PATH_MAX + 100];

	if (strcmp(kb, kn))
		return 0;
	nb = kernel_runs(b, kb, &rb);
	nn = kernel_runs(n, kn, &rn);
	if (nb < 0 || nn < 0) {
		pr_warn("compare: out of memory");
		err = -1;
		goto out_free;
	}
	while (i < nb && j < nn) {
		int c = run_cmp(&rb[i], &rn[j]);

		if (!c) {
			shared++;
			i++;
			j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	if (!shared)
		goto out_free;
	if (both)
		snprintf(why, sizeof(why), "%s is on both sides", both);
	else
		snprintf(why, sizeof(why), "identical records in both: one directory is a copy of the other");
	if (shared == nb && shared == nn)
		pr_warn("compare: BASE and NEW are the same runs of kernel %s (%s): a comparison with itself says nothing; compare two kernels of one directory with --base-kernel and --new-kernel, or directories of two runs",
			kb, why);
	else
		pr_warn("compare: %d runs of kernel %s are on both sides (%s): a run cannot be its own base",
			shared, kb, why);
	err = -1;
out_free:
	free(rb);
	free(rn);
	return err;
}

/*
 * The provenance of what is pooled or compared: each side's directories
 * among themselves where they share runs (so that a note names the side
 * whose directories differ), then base against new for each kernel pair
 * and scenario compared.
 */
static void check_comparable(struct prov_check *pc, const struct side *b, const struct side *n,
			     const struct pair_row *rows, int nrows)
{
	for (int i = 0; i < nrows; i++) {
		if (i && rows[i].gb == rows[i - 1].gb && rows[i].gn == rows[i - 1].gn)
			continue;
		prov_check_group(pc, "base", b->src, b->nsrc, &b->r, rows[i].gb);
		prov_check_group(pc, "new", n->src, n->nsrc, &n->r, rows[i].gn);
	}
	for (int i = 0; i < nrows; i++) {
		unsigned long long sb, sn;

		if (i && rows[i].gb == rows[i - 1].gb && rows[i].gn == rows[i - 1].gn)
			continue;
		/* no ok run on a side: nothing of the scenario is compared, nothing to hold alike */
		if (!rows[i].gb->n_ok || !rows[i].gn->n_ok)
			continue;
		sb = pool_group_sources(&b->r, rows[i].gb);
		sn = pool_group_sources(&n->r, rows[i].gn);
		for (int x = 0; x < b->nsrc && x < POOL_MAX_DIRS; x++)
			for (int y = 0; y < n->nsrc && y < POOL_MAX_DIRS; y++) {
				if (!(sb & (1ULL << x)) || !(sn & (1ULL << y)))
					continue;
				prov_check_pair(pc,
						&(struct prov_src){ .side = "base", .src = b->src, .all = &b->r,
								    .s = x, .kernel = rows[i].kernel_base },
						&(struct prov_src){ .side = "new", .src = n->src, .all = &n->r,
								    .s = y, .kernel = rows[i].kernel_new },
						rows[i].scenario);
			}
	}
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

/*
 * A gate metric whose CV on a side exceeds the gate's threshold: a change
 * of the threshold's size is within that side's run-to-run noise, so the
 * verdict can flag noise or miss a change. Said once, naming each.
 */
static void noisy_note(struct notes *notes, const struct pair_row *rows, int nrows, const struct compare_opts *o)
{
	char list[1500] = "";
	int n = 0;

	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		char name[160];

		if (!r->selected)
			continue;
		for (int side = 0; side < 2; side++) {
			const struct stats *st = side ? &r->v.new : &r->v.base;
			size_t l = strlen(list);

			if (isnan(st->cv) || !(100 * st->cv > o->threshold) || l > sizeof(list) - 200)
				continue;
			snprintf(list + l, sizeof(list) - l, "%s%s %s %s %.0f%%", n++ ? ", " : "", side ? "new" : "base",
				 r->scenario, metric_name(&r->m, name, sizeof(name)), 100 * st->cv);
		}
	}
	if (n)
		notes_add(notes, "noisy", NULL,
			  "run to run, these vary more than the gate's %g%% (CV): %s. A change of %g%% is within their noise: the verdict may flag noise as a regression or miss a real one. Quiet the host (`run --tune`, docs/methodology.md), add repeats, or interleave the kernels (docs/compare.md).",
			  o->threshold, list, o->threshold);
}

/* The notes on what was compared: order of runs, runs not ok, too few runs, emulation. */
static void add_notes(struct notes *notes, const struct side *b, const struct side *n,
		      const struct pair_row *rows, int nrows, const struct compare_opts *o)
{
	char few[1024] = "";
	int nb_bad = 0, nn_bad = 0;

	if (nrows && dir_on_both(b, n) && strcmp(rows[0].kernel_base, rows[0].kernel_new) &&
	    kernels_ran_in_sequence(b, rows[0].kernel_base, rows[0].kernel_new))
		notes_add(notes, "run_order", NULL,
			  "all runs of %s came before or after all runs of %s: a change of the host during the run (load, other guests) cannot be told from a change of kernel. Interleave the kernels, or repeat the run in the other order.",
			  rows[0].kernel_base, rows[0].kernel_new);
	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];

		if (i && r->gb == rows[i - 1].gb && r->gn == rows[i - 1].gn)
			continue;
		nb_bad += group_not_ok(r->gb);
		nn_bad += group_not_ok(r->gn);
		if (r->gb->n_ok && r->gn->n_ok && o->test == TEST_MW &&
		    mann_whitney_min_p(r->gb->n_ok, r->gn->n_ok) >= o->alpha)
			snprintf(few + strlen(few), sizeof(few) - strlen(few), "%s%s (n %d vs %d)",
				 *few ? ", " : "", r->scenario, r->gb->n_ok, r->gn->n_ok);
	}
	noisy_note(notes, rows, nrows, o);
	for (int i = 0; i < b->ng; i++)
		modes_note(notes, &b->r, &b->g[i], "base");
	for (int i = 0; i < n->ng; i++)
		modes_note(notes, &n->r, &n->g[i], "new");
	if (*few)
		notes_add(notes, "too_few_runs", NULL,
			  "with these run counts Mann-Whitney's smallest possible p is %g or more, so no change can be significant in %s; rerun with --repeat 5 or more (n = 5 against 5 gives p >= 0.008).",
			  o->alpha, few);
	if (nb_bad || nn_bad)
		notes_add(notes, "not_ok", NULL,
			  "runs not ok are left out of every figure: %d in base, %d in new (`ipsecperf report` lists them).",
			  nb_bad, nn_bad);
	if (compare_emulated(b) || compare_emulated(n))
		notes_add(notes, "emulated", NULL, "%s", prov_emulated_caution());
	compare_tail_note(notes, b, n, rows, nrows);
}

/* ---- the command ---- */

/* A metric asked for by name must exist somewhere. */
static int check_metrics_exist(const struct compare_opts *o, const struct pair_row *rows, int nrows)
{
	for (int i = 0; i < o->nmetrics; i++) {
		bool found = false;

		for (int r = 0; r < nrows && !found; r++) {
			struct compare_opts single = { .metrics = &o->metrics[i], .nmetrics = 1 };

			found = metric_selected(&single, &rows[r].m);
		}
		if (!found) {
			pr_warn("compare: --metric %s: no such metric in both directories (throughput, cycles_per_byte, transactions_per_s, latency_p50 ... latency_max, cycles_per_transaction, datagrams_per_s, loss, cycles_per_datagram or a counter they share)",
				o->metrics[i]);
			return -1;
		}
	}
	return 0;
}

static int write_out(const struct comparison *c)
{
	const char *fmt = c->o->format;

	if (!strcmp(fmt, "csv"))
		return compare_csv(stdout, c);
	if (!strcmp(fmt, "json"))
		return compare_json(stdout, c);
	if (!strcmp(fmt, "junit"))
		return compare_junit(stdout, c);
	if (!strcmp(fmt, "md"))
		return compare_md(stdout, c);
	if (!strcmp(fmt, "html"))
		return compare_html(stdout, c);
	return compare_text(stdout, c);
}

/* Each side's figures, paired kernel by kernel, into rows; -1 after one line. */
static int compare_rows(struct side *b, struct side *n, struct compare_opts *o, struct notes *notes,
			struct pair_row **rows, int *nrows, bool defaulted)
{
	const char **kb = NULL, **kn = NULL;
	int npairs = pair_kernels(b, n, &kb, &kn), err = -1;

	if (npairs < 0)
		goto out;
	for (int p = 0; p < npairs; p++)
		if (check_not_same(b, n, kb[p], kn[p]) < 0)
			goto out;
	if (build_rows(b, n, kb, kn, npairs, o, notes, rows, nrows) < 0)
		goto out;
	/* the defaults name what BASE has; a name the user gave must be somewhere */
	err = defaulted ? 0 : check_metrics_exist(o, *rows, *nrows);
out:
	free(kb);
	free(kn);
	return err;
}

int compare_run(const struct compare_opts *co, char *const base[], int nbase, char *const new[], int nnew)
{
	struct compare_opts o = *co;
	const char *defaults[6];
	bool defaulted = !o.nmetrics && !o.all_metrics;
	int ret = EXIT_USAGE, nrows = 0;
	struct side b = { 0 }, n = { 0 };
	struct pair_row *rows = NULL;
	struct notes notes = { 0 };
	struct prov_check pc;
	struct comparison cmp = { .b = &b, .n = &n, .o = &o, .notes = &notes };

	if (load_side(&b, "base", base, nbase, o.base_kernel) < 0 ||
	    load_side(&n, "new", new, nnew, o.new_kernel) < 0)
		goto out;
	if (check_clocks(&b, &n) < 0)
		goto out;
	if (defaulted) {
		o.metrics = defaults;
		o.nmetrics = compare_default_metrics(&b, defaults);
	}
	if (compare_rows(&b, &n, &o, &notes, &rows, &nrows, defaulted) < 0)
		goto out;
	prov_check_init(&pc, &notes, o.allow);
	check_comparable(&pc, &b, &n, rows, nrows);
	if (prov_refused(&pc)) {
		prov_print_refused(&pc, "compare");
		cmp.refused = true;
		cmp.exit_status = EXIT_USAGE;
		/* CI reads why from the document it asked for */
		if (!strcmp(o.format, "json") || !strcmp(o.format, "junit"))
			write_out(&cmp);
		goto out;
	}
	add_notes(&notes, &b, &n, rows, nrows, &o);
	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];

		cmp.nreg += r->selected && r->v.regression;
		cmp.nimp += r->selected && r->v.improvement;
		cmp.nundecided += r->selected && !r->decidable && !r->nodata;
		cmp.nnodata += r->selected && r->nodata;
	}
	cmp.rows = rows;
	cmp.nrows = nrows;
	cmp.exit_status = cmp.nreg ? EXIT_FAIL : EXIT_OK;
	ret = write_out(&cmp) < 0 ? EXIT_FAIL : cmp.exit_status;
out:
	notes_free(&notes);
	free(rows);
	free_side(&b);
	free_side(&n);
	return ret;
}
