/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for small samples: summary figures of one sample and the
 * two-sample tests `ipsecperf compare` uses. Pure arithmetic, no I/O.
 */
#ifndef IPSECPERF_STATS_H
#define IPSECPERF_STATS_H

#include <stddef.h>

struct stats {
	int n;
	double median, min, max;
	double mean, sd;        /* sd: sample standard deviation (n - 1); NAN if n < 2 */
	double ci_lo, ci_hi;    /* 95% CI of the mean, Student t; NAN if n < 2 */
	double cv;              /* sd / |mean|, a fraction (0.05 = 5%); NAN if n < 2 or mean 0 */
	/* the median's interval every report and compare shows (stats_median_interval) */
	double iv_lo, iv_hi, iv_cover;
};

/* Summary of x[0..n-1] (x is not modified). n == 0 gives n 0 and NANs. */
void stats_compute(const double *x, int n, struct stats *s);

double stats_median(const double *x, int n);

/*
 * Does x split into two modes, as a run-to-run bistability does (two
 * groups of runs, each tight, far apart)? Sorted, the widest gap between
 * neighbours, each side holding at least two values, splits x when it is
 * at least STATS_MODES_RATIO times the wider group's own range and at
 * least STATS_MODES_MIN_GAP of the median. Returns the split point (the
 * upper mode is the values above it) with each mode's median in *lo and
 * *hi; NAN when x does not split (n below 4 or above STATS_MODES_MAX too).
 */
#define STATS_MODES_MAX 1000
#define STATS_MODES_RATIO 3.0
#define STATS_MODES_MIN_GAP 0.01
double stats_modes(const double *x, int n, double *lo, double *hi);

/*
 * A distribution-free interval of the median: order statistics k and
 * n+1-k of x, k the largest with P(Binomial(n, 1/2) < k) <= 2.5%. Returns
 * its coverage (at least 95%); NAN, with *lo and *hi NAN, when n < 6 is
 * too few for one. n at most 1000.
 */
double stats_median_ci(const double *x, int n, double *lo, double *hi);

/*
 * The one interval the reports and compare give a median: the
 * distribution-free one of stats_median_ci, and with fewer runs than it
 * needs (2 to 5) min-max, which holds the median with 1 - 2/2^n (94% of
 * 5 runs). Returns its coverage; NAN, *lo and *hi NAN, below 2 runs.
 */
double stats_median_interval(const double *x, int n, double *lo, double *hi);

/* Student t distribution with df degrees of freedom (df > 0, may be fractional). */
double t_cdf(double t, double df);
/* The q quantile (0 < q < 1) of Student t with df degrees of freedom. */
double t_quantile(double q, double df);

/* Regularized incomplete beta function I_x(a, b). */
double inc_beta(double x, double a, double b);

/*
 * Welch's unequal-variance t test: two-sided p-value for mean(a) != mean(b).
 * Returns NAN when either sample has fewer than 2 values or both have zero
 * variance with equal means; 0 when both have zero variance and means differ.
 */
double welch_p(const double *a, int na, const double *b, int nb);

/*
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided p-value. Exact: the
 * distribution of the rank sum is counted over all ways to split the pooled
 * sample, with ties given mid-ranks, when na + nb <= MW_EXACT_MAX; above that a
 * normal approximation with tie and continuity corrections. *u (if not NULL)
 * receives U of sample a (the number of pairs a > b, ties counting one half).
 * Returns NAN if either sample is empty.
 */
#define MW_EXACT_MAX 80
double mann_whitney_p(const double *a, int na, const double *b, int nb, double *u);

/* The smallest two-sided p-value Mann-Whitney can give for na vs nb values. */
double mann_whitney_min_p(int na, int nb);

#endif
