// SPDX-License-Identifier: GPL-2.0
/* Unit tests for analyze/stats.c: summary figures, t quantiles, the tests. */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"
#include "stats_reference.h"

#define assert_close(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
/* relative: a reference value within rel of its size */
#define assert_rel(a, b, rel) assert_true(near(#a, (a), (b), (rel)))

/* got within rel of want (relative); says both when not */
static bool near(const char *what, double got, double want, double rel)
{
	if (fabs(got - want) <= rel * fabs(want))
		return true;
	print_message("%s: %.17g, the reference %.17g\n", what, got, want);
	return false;
}

static void test_summary_odd(void **state)
{
	double x[] = { 4, 1, 100, 3, 2 };
	struct stats s;

	(void)state;
	stats_compute(x, 5, &s);
	assert_int_equal(s.n, 5);
	assert_close(s.median, 3, 0);
	assert_close(s.min, 1, 0);
	assert_close(s.max, 100, 0);
	assert_close(s.mean, 22, 1e-12);
	assert_close(s.sd, sqrt(7610.0 / 4), 1e-9);
	assert_close(s.cv, sqrt(7610.0 / 4) / 22, 1e-9);
	/* mean +- t(0.975, 4) * sd / sqrt(5) */
	assert_close(s.ci_hi - s.mean, 2.7764451 * sqrt(7610.0 / 4) / sqrt(5), 1e-4);
	assert_close(s.mean - s.ci_lo, s.ci_hi - s.mean, 1e-9);
	/* the input is left as it was */
	assert_close(x[0], 4, 0);
	assert_close(x[2], 100, 0);
}

/* Order-statistic interval: ranks 3 and 10 of 12 (96.1%), 6 and 15 of 20 (95.9%), none below 6. */
static void test_median_ci(void **state)
{
	double x[20] = { 9, 2, 12, 5, 7, 1, 11, 3, 8, 10, 4, 6 }, lo, hi;

	(void)state;
	assert_true(fabs(stats_median_ci(x, 12, &lo, &hi) - (1 - 2 * 79.0 / 4096)) < 1e-12);
	assert_true(lo == 3 && hi == 10);
	for (int i = 0; i < 20; i++)
		x[i] = 20 - i;
	assert_true(fabs(stats_median_ci(x, 20, &lo, &hi) - (1 - 2 * 21700.0 / 1048576)) < 1e-12);
	assert_true(lo == 6 && hi == 15);
	assert_true(stats_median_ci(x, 6, &lo, &hi) > 0.96);
	assert_true(lo == 15 && hi == 20);
	assert_true(isnan(stats_median_ci(x, 5, &lo, &hi)) && isnan(lo) && isnan(hi));
	assert_true(isnan(stats_median_ci(x, 0, &lo, &hi)));
}

static void test_summary_even_and_small(void **state)
{
	double x[] = { 10, 20, 40, 30 };
	double one[] = { 7 };
	struct stats s;

	(void)state;
	stats_compute(x, 4, &s);
	assert_close(s.median, 25, 0);
	stats_compute(one, 1, &s);
	assert_int_equal(s.n, 1);
	assert_close(s.median, 7, 0);
	assert_true(isnan(s.sd));
	assert_true(isnan(s.cv));
	assert_true(isnan(s.ci_lo));
	stats_compute(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));
}

static void test_t_quantile(void **state)
{
	(void)state;
	assert_close(t_quantile(0.975, 1), 12.7062047, 1e-5);
	assert_close(t_quantile(0.975, 2), 4.3026527, 1e-6);
	assert_close(t_quantile(0.975, 4), 2.7764451, 1e-6);
	assert_close(t_quantile(0.975, 30), 2.0422725, 1e-6);
	assert_close(t_quantile(0.5, 7), 0, 1e-9);
	assert_close(t_quantile(0.025, 9), -2.2621572, 1e-6);
	assert_close(t_cdf(2.2621572, 9), 0.975, 1e-7);
	assert_true(isnan(t_quantile(1.5, 3)));
}

static void test_welch(void **state)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 3, 4, 5, 6 };
	double c[] = { 1, 1, 1 }, d[] = { 2, 2, 2 };

	(void)state;
	/* t = -1 with 8 degrees of freedom: p = 0.34659 */
	assert_close(welch_p(a, 5, b, 5), 0.3465935, 1e-6);
	assert_close(welch_p(a, 5, a, 5), 1, 1e-12);
	assert_close(welch_p(c, 3, d, 3), 0, 0);
	assert_true(isnan(welch_p(c, 3, c, 3)));
	assert_true(isnan(welch_p(a, 1, b, 5)));
}

static void test_mann_whitney_exact(void **state)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	double a1[] = { 1, 2, 3, 4, 6 }, b1[] = { 5, 7, 8, 9, 10 };
	double t1[] = { 1, 1, 1 }, t2[] = { 1, 1, 1 };
	double x3[] = { 1, 2, 3 }, y3[] = { 4, 5, 6 };
	double u;

	(void)state;
	/* complete separation at 5 vs 5: 2 of C(10,5) = 252 splits */
	assert_close(mann_whitney_p(a, 5, b, 5, &u), 2.0 / 252, 1e-12);
	assert_close(u, 0, 0);
	assert_close(mann_whitney_p(b, 5, a, 5, &u), 2.0 / 252, 1e-12);
	assert_close(u, 25, 0);
	/* one pair swapped: U = 1, P(U <= 1) = 2/252, two-sided 4/252 */
	assert_close(mann_whitney_p(a1, 5, b1, 5, &u), 4.0 / 252, 1e-12);
	assert_close(u, 1, 0);
	/* all tied */
	assert_close(mann_whitney_p(t1, 3, t2, 3, &u), 1, 1e-12);
	assert_close(u, 4.5, 0);
	/* 3 vs 3 can never go below 0.1 */
	assert_close(mann_whitney_p(x3, 3, y3, 3, NULL), 0.1, 1e-12);
	assert_close(mann_whitney_min_p(3, 3), 0.1, 1e-12);
	assert_close(mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);
	assert_true(isnan(mann_whitney_p(a, 0, b, 5, NULL)));
}

static void test_mann_whitney_ties_exact(void **state)
{
	/* a = {1, 2, 2}, b = {2, 3, 3}: mid-ranks 1, 3, 3 | 3, 5.5, 5.5;
	 * counted by hand over the 20 splits: P(|W - 10.5| >= 3.5) = 6/20 */
	double a[] = { 1, 2, 2 }, b[] = { 2, 3, 3 };

	(void)state;
	assert_close(mann_whitney_p(a, 3, b, 3, NULL), 6.0 / 20, 1e-12);
}

static void test_mann_whitney_normal(void **state)
{
	double a[60], b[60];

	(void)state;
	for (int i = 0; i < 60; i++) {
		a[i] = i;
		b[i] = i + 0.5;
	}
	/* interleaved: U = 1770 of 3600, z = 0.155, p = 0.877 */
	assert_true(mann_whitney_p(a, 60, b, 60, NULL) > 0.8);
	for (int i = 0; i < 60; i++)
		b[i] = 100 + i;
	assert_true(mann_whitney_p(a, 60, b, 60, NULL) < 1e-15);
}

/*
 * Against SciPy (tests/unit/stats_reference.h, tools/stats-reference.py;
 * R agrees to 1e-14): unequal sizes, ties, both sides of the exact
 * threshold. The p-values within 1e-9 of theirs (a relative error: the
 * sums are exact, the normal tail erfc's); U exactly. Each case also the
 * other way round: the same p, U = na nb - U.
 */
#define MW_CASE(c) { #c, c##_a, sizeof(c##_a) / sizeof(double), c##_b, sizeof(c##_b) / sizeof(double), \
		     c##_U_REF, c##_P_REF }
#define mw_exact_4_9_U_REF MW_EXACT_4_9_U
#define mw_exact_4_9_P_REF MW_EXACT_4_9_P
#define mw_exact_3_17_U_REF MW_EXACT_3_17_U
#define mw_exact_3_17_P_REF MW_EXACT_3_17_P
#define mw_ties_5_9_U_REF MW_TIES_5_9_U
#define mw_ties_5_9_P_REF MW_TIES_5_9_P
#define mw_ties_7_12_U_REF MW_TIES_7_12_U
#define mw_ties_7_12_P_REF MW_TIES_7_12_P
#define mw_ties_11_4_U_REF MW_TIES_11_4_U
#define mw_ties_11_4_P_REF MW_TIES_11_4_P
#define mw_edge_30_50_U_REF MW_EDGE_30_50_U
#define mw_edge_30_50_P_REF MW_EDGE_30_50_P
#define mw_edge_41_40_U_REF MW_EDGE_41_40_U
#define mw_edge_41_40_P_REF MW_EDGE_41_40_P
#define mw_normal_50_37_U_REF MW_NORMAL_50_37_U
#define mw_normal_50_37_P_REF MW_NORMAL_50_37_P
#define mw_normal_100_23_U_REF MW_NORMAL_100_23_U
#define mw_normal_100_23_P_REF MW_NORMAL_100_23_P
#define mw_normal_60_45_U_REF MW_NORMAL_60_45_U
#define mw_normal_60_45_P_REF MW_NORMAL_60_45_P
#define mw_normal_30_60_U_REF MW_NORMAL_30_60_U
#define mw_normal_30_60_P_REF MW_NORMAL_30_60_P

static const struct mw_ref {
	const char *name;
	const double *a;
	int na;
	const double *b;
	int nb;
	double u, p;
} mw_refs[] = {
	MW_CASE(mw_exact_4_9), MW_CASE(mw_exact_3_17), MW_CASE(mw_ties_5_9), MW_CASE(mw_ties_7_12),
	MW_CASE(mw_ties_11_4), MW_CASE(mw_edge_30_50), MW_CASE(mw_edge_41_40), MW_CASE(mw_normal_50_37),
	MW_CASE(mw_normal_100_23), MW_CASE(mw_normal_60_45), MW_CASE(mw_normal_30_60),
};

static void test_mann_whitney_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mw_refs) / sizeof(mw_refs[0]); i++) {
		const struct mw_ref *c = &mw_refs[i];
		double u, p = mann_whitney_p(c->a, c->na, c->b, c->nb, &u);

		if (!near(c->name, p, c->p, 1e-9) || u != c->u)
			fail_msg("%s: p %.17g U %g, SciPy's p %.17g U %g", c->name, p, u, c->p, c->u);
		p = mann_whitney_p(c->b, c->nb, c->a, c->na, &u);
		if (!near(c->name, p, c->p, 1e-9) || u != (double)c->na * c->nb - c->u)
			fail_msg("%s the other way round: p %.17g U %g", c->name, p, u);
	}
}

/* Welch against SciPy's ttest_ind(equal_var=False): the p rests on the fractional degrees of freedom. */
static void test_welch_reference(void **state)
{
	(void)state;
	assert_rel(welch_p(welch_4_11_a, 4, welch_4_11_b, 11), WELCH_4_11_P, 1e-9);
	assert_rel(welch_p(welch_4_11_b, 11, welch_4_11_a, 4), WELCH_4_11_P, 1e-9);
	assert_rel(welch_p(welch_2_30_a, 2, welch_2_30_b, 30), WELCH_2_30_P, 1e-9);
	assert_rel(welch_p(welch_13_6_a, 13, welch_13_6_b, 6), WELCH_13_6_P, 1e-9);
	assert_rel(welch_p(welch_13_6_b, 6, welch_13_6_a, 13), WELCH_13_6_P, 1e-9);
}

/* Student t at fractional df (Welch's): the cdf within 1e-12; the quantile within 1e-7 (R and SciPy differ by 2e-9). */
static void test_t_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(t_reference) / sizeof(t_reference[0]); i++) {
		const double *r = t_reference[i];

		assert_close(t_cdf(r[1], r[0]), r[2], 1e-12);
		assert_rel(t_quantile(0.975, r[0]), r[3], 1e-7);
		assert_rel(t_quantile(0.025, r[0]), -r[3], 1e-7);
	}
}

/* The median's interval against SciPy's binomial: ranks k and n + 1 - k of a shuffled 1..n, and their coverage. */
static void test_median_ci_reference(void **state)
{
	static double x[1000];

	(void)state;
	for (size_t i = 0; i < sizeof(median_ci_reference) / sizeof(median_ci_reference[0]); i++) {
		int n = median_ci_reference[i].n, k = median_ci_reference[i].k;
		double lo, hi, cov;

		for (int j = 0; j < n; j++)
			x[j] = (double)((j * 7919L) % n + 1); /* 7919 is prime: a permutation of 1..n */
		cov = stats_median_ci(x, n, &lo, &hi);
		if (!near("coverage", cov, median_ci_reference[i].coverage, 1e-12) || lo != k || hi != n + 1 - k)
			fail_msg("n %d: ranks %g and %g, coverage %.17g; SciPy: %d and %d, %.17g", n, lo, hi, cov, k,
				 n + 1 - k, median_ci_reference[i].coverage);
	}
}

/* The summary's mean, sd and t interval against SciPy (the interval within 1e-7: R and SciPy differ by 1e-9). */
static void test_summary_reference(void **state)
{
	struct stats s;

	(void)state;
	stats_compute(summary_x, 7, &s);
	assert_rel(s.mean, SUMMARY_MEAN, 1e-12);
	assert_rel(s.sd, SUMMARY_SD, 1e-12);
	assert_rel(s.ci_lo, SUMMARY_CI_LO, 1e-7);
	assert_rel(s.ci_hi, SUMMARY_CI_HI, 1e-7);
}

/* Two tight groups far apart split, naming each group's median; noise, one outlier or too few do not. */
static void test_modes(void **state)
{
	/* the esp-null runs of a bistable path: ~0.60 and ~0.66 Gbit/s */
	const double two[] = { 0.601, 0.662, 0.600, 0.659, 0.602, 0.661, 0.660, 0.600 };
	const double tight[] = { 0.600, 0.601, 0.6005, 0.6002, 0.6008, 0.6001 };
	const double spread[] = { 0.50, 0.55, 0.60, 0.65, 0.70, 0.75 };
	const double outlier[] = { 0.600, 0.601, 0.600, 0.602, 0.900 };
	double lo, hi, split;

	(void)state;
	split = stats_modes(two, 8, &lo, &hi);
	assert_true(split > 0.602 && split < 0.659);
	assert_float_equal(lo, 0.6005, 1e-9);
	assert_float_equal(hi, 0.6605, 1e-9);
	assert_true(isnan(stats_modes(tight, 6, &lo, &hi)));
	assert_true(isnan(lo) && isnan(hi));
	assert_true(isnan(stats_modes(spread, 6, &lo, &hi)));
	assert_true(isnan(stats_modes(outlier, 5, &lo, &hi)));
	assert_true(isnan(stats_modes(two, 3, &lo, &hi)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_odd),
		cmocka_unit_test(test_summary_even_and_small),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties_exact),
		cmocka_unit_test(test_mann_whitney_normal),
		cmocka_unit_test(test_mann_whitney_reference),
		cmocka_unit_test(test_welch_reference),
		cmocka_unit_test(test_t_reference),
		cmocka_unit_test(test_median_ci_reference),
		cmocka_unit_test(test_summary_reference),
		cmocka_unit_test(test_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
