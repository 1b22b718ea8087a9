// SPDX-License-Identifier: GPL-2.0
/* Unit tests for analyze/compare.c: the decision and the simulation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compare.h"

static void test_direction(void **state)
{
	double base[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
	double low[] = { 9.0, 9.1, 8.9, 9.05, 8.95 };   /* -10% */
	double high[] = { 11.0, 11.1, 10.9, 11.05, 10.95 }; /* +10% */
	struct verdict v;

	(void)state;
	/* throughput: lower is a regression */
	compare_decide(base, 5, low, 5, true, TEST_MW, 0.05, 5, &v);
	assert_true(fabs(v.change + 10) < 1e-9);
	assert_true(fabs(v.p_mw - 2.0 / 252) < 1e-12);
	assert_true(v.significant && v.worse && v.regression && !v.improvement);
	/* the same drop in cycles per byte is an improvement */
	compare_decide(base, 5, low, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(v.significant && !v.worse && !v.regression && v.improvement);
	/* more cycles per byte: a regression */
	compare_decide(base, 5, high, 5, false, TEST_WELCH, 0.05, 5, &v);
	assert_true(v.regression);
	assert_true(v.p == v.p_welch);
	/* below the threshold: significant, yet no regression */
	compare_decide(base, 5, high, 5, false, TEST_MW, 0.05, 15, &v);
	assert_true(v.significant && v.worse && !v.regression);
}

static void test_not_significant(void **state)
{
	double a[] = { 10, 12, 8 }, b[] = { 7, 6, 5 };
	struct verdict v;

	(void)state;
	/* n = 3 vs 3: Mann-Whitney cannot go below p = 0.1 */
	compare_decide(a, 3, b, 3, true, TEST_MW, 0.05, 5, &v);
	assert_true(fabs(v.p - 0.1) < 1e-12);
	assert_false(v.significant);
	assert_false(v.regression);
	/* n = 1: Welch has no p; never significant */
	compare_decide(a, 1, b, 1, true, TEST_WELCH, 0.05, 5, &v);
	assert_true(isnan(v.p));
	assert_false(v.regression);
}

static void test_zero_base(void **state)
{
	double z[] = { 0, 0, 0, 0, 0 }, one[] = { 1, 1, 1, 1, 1 };
	struct verdict v;

	(void)state;
	/* a counter going from 0 to 1 per packet: +inf %, a regression */
	compare_decide(z, 5, one, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(isinf(v.change) && v.change > 0);
	assert_true(v.regression);
	compare_decide(z, 5, z, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(v.change == 0 && !v.regression);
}

static void test_simulation(void **state)
{
	struct sim_result a, b;

	(void)state;
	/* reproducible for a seed */
	compare_simulate(5, 0.02, 0, 0, TEST_MW, 0.05, 5, 2000, 7, &a);
	compare_simulate(5, 0.02, 0, 0, TEST_MW, 0.05, 5, 2000, 7, &b);
	assert_true(a.sig_any == b.sig_any && a.gate == b.gate);
	/* A/A: the exact test holds its level (at most 5%, here 4/252 = 3.2%) */
	assert_true(a.sig_any < 0.06);
	assert_true(a.gate < 0.01);
	/* a 10% drop at CV 2% is always found */
	compare_simulate(5, 0.02, 0.10, 0, TEST_MW, 0.05, 5, 2000, 7, &a);
	assert_true(a.gate > 0.95);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_not_significant),
		cmocka_unit_test(test_zero_base),
		cmocka_unit_test(test_simulation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
