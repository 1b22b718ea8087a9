// SPDX-License-Identifier: GPL-2.0
/* Unit tests for analyze/stats.c: summary figures, t quantiles, the tests. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

#define assert_close(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
