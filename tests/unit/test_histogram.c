// SPDX-License-Identifier: GPL-2.0
/* Unit tests for collector/lib/histogram.c: the buckets, the error bound, quantiles, JSON. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "histogram.h"

/* Every bucket: its bounds hold it, buckets tile the line with no gap, the width bound holds. */
static void test_buckets_tile(void **state)
{
	(void)state;
	assert_int_equal(hist_lower(0), 0);
	for (unsigned int i = 0; i + 1 < HIST_BUCKETS; i++) {
		assert_true(hist_lower(i) <= hist_upper(i));
		assert_true(hist_upper(i) + 1 == hist_lower(i + 1));
		assert_int_equal(hist_index(hist_lower(i)), i);
		assert_int_equal(hist_index(hist_upper(i)), i);
		/* half the width over the lower bound: the middle's largest error */
		if (hist_lower(i))
			assert_true((hist_upper(i) - hist_lower(i)) / 2.0 / hist_lower(i) <= HIST_REL_ERROR);
	}
	assert_int_equal(hist_upper(HIST_BUCKETS - 1), UINT64_MAX);
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
	/* below 2^HIST_BITS every value is its own bucket */
	for (uint64_t v = 0; v < 256; v++)
		assert_int_equal(hist_index(v), v);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quantiles of a skewed sample against the exact order statistics: within the bound. */
static void test_quantiles_bounded(void **state)
{
	enum { N = 100000 };
	static uint64_t v[N];
	struct histogram *h = malloc(sizeof(*h));
	const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999 };
	uint64_t x = 88172645463325252ull;

	(void)state;
	hist_init(h);
	for (int i = 0; i < N; i++) {
		/* xorshift; a long tail: most near 20 us, some up to seconds */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 20000 + (x % 1000) * ((x >> 20) % 97 == 0 ? 100000 : 3);
		hist_add(h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	assert_int_equal(h->count, N);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[N - 1]);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact = v[(size_t)ceil(qs[i] * N) - 1];
		double got = hist_quantile(h, qs[i]);

		assert_true(fabs(got - exact) <= exact * HIST_REL_ERROR);
	}
	assert_true(hist_quantile(h, 1) == v[N - 1]);
	assert_true(hist_quantile(h, 0) == v[0]);
	free(h);
}

/* A coarse histogram would fail: a value far from its bucket's middle is still within the bound. */
static void test_one_value_exact_ends(void **state)
{
	struct histogram *h = malloc(sizeof(*h));

	(void)state;
	hist_init(h);
	assert_true(hist_quantile(h, 0.5) == 0);
	hist_add(h, 1000003);
	/* the middle of its bucket would be off; min and max clamp it to the one value */
	assert_true(hist_quantile(h, 0.5) == 1000003);
	hist_add(h, 7);
	assert_true(hist_quantile(h, 0.5) == 7);
	assert_true(hist_quantile(h, 0.51) == 1000003);
	assert_true(fabs(hist_mean(h) - 500005) < 1e-9);
	free(h);
}

static void test_merge_and_json(void **state)
{
	struct histogram *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	json_t *j;

	(void)state;
	hist_init(a);
	hist_init(b);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(v & 1 ? a : b, v * 997);
	hist_merge(a, b);
	assert_int_equal(a->count, 1000);
	assert_int_equal(a->min, 997);
	assert_int_equal(a->max, 997000);
	j = hist_json(a, "ns");
	assert_int_equal(hist_from_json(j, c), 0);
	assert_int_equal(c->count, 1000);
	assert_int_equal(c->min, 997);
	assert_int_equal(c->max, 997000);
	for (double q = 0.05; q < 1; q += 0.05)
		assert_true(hist_quantile(a, q) == hist_quantile(c, q));
	json_decref(j);
	/* not ours: a bucket's lower bound that is no bucket's */
	j = json_pack("{s:[[I, I, I]]}", "buckets", (json_int_t)1001, (json_int_t)1003, (json_int_t)1);
	assert_int_equal(hist_from_json(j, c), -1);
	json_decref(j);
	j = json_pack("{s:[[I, I, I]]}", "buckets", (json_int_t)5, (json_int_t)5, (json_int_t)-1);
	assert_int_equal(hist_from_json(j, c), -1);
	json_decref(j);
	j = hist_cdf_json(a);
	assert_true(json_array_size(j) > 10);
	assert_true(json_real_value(json_array_get(json_array_get(j, json_array_size(j) - 1), 1)) == 997000);
	json_decref(j);
	free(a);
	free(b);
	free(c);
}

static void test_samples_needed(void **state)
{
	(void)state;
	assert_int_equal(hist_samples_needed(0.99, 10), 1000);
	assert_int_equal(hist_samples_needed(0.999, 10), 10000);
	assert_int_equal(hist_samples_needed(0.5, 10), 20);
	assert_int_equal(hist_samples_needed(0.9, 1), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_tile),
		cmocka_unit_test(test_quantiles_bounded),
		cmocka_unit_test(test_one_value_exact_ends),
		cmocka_unit_test(test_merge_and_json),
		cmocka_unit_test(test_samples_needed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
