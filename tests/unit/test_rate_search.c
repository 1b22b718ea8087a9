// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for collector/run/rate_search.c: the bisection driven against
 * fake paths whose loss curve is known, so the answer it must find is too.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rate_search.h"

/* A fake path: the sender reaches at most max_pps; the path carries at most cap_pps, plus a base loss. */
struct path {
	double max_pps, cap_pps, base_loss;
	int slow_step;     /* this offer (from 1) reaches half its rate and loses 5% (0: none) */
	int nth;           /* offers so far */
};

static void offer(struct path *p, double offered, double seconds, uint64_t *sent, uint64_t *received)
{
	double rate = offered > 0 && offered < p->max_pps ? offered : p->max_pps;
	double got;

	if (++p->nth == p->slow_step)
		rate /= 2;
	got = (rate < p->cap_pps ? rate : p->cap_pps) * (1 - p->base_loss);
	if (p->nth == p->slow_step)
		got = rate * 0.95;
	*sent = (uint64_t)llround(rate * seconds);
	*received = (uint64_t)llround(got * seconds);
}

static const struct rate_step *search(struct path *p, struct rate_search *s, double thr, double res,
				      int steps)
{
	double r;

	p->nth = 0;
	rate_search_init(s, thr, res, steps);
	while ((r = rate_search_next(s)) >= 0) {
		uint64_t sent, rcvd;

		offer(p, r, 1.0, &sent, &rcvd);
		rate_search_step(s, r, sent, rcvd, 1.0);
	}
	return rate_search_best(s);
}

/* A path that carries 200,000 pps of a 1,000,000 pps sender: found within the resolution. */
static void test_capacity_found(void **state)
{
	struct path p = { .max_pps = 1e6, .cap_pps = 2e5 };
	struct rate_search s;
	const struct rate_step *b = search(&p, &s, 0.001, 0.01, 20);

	(void)state;
	assert_non_null(b);
	/* the highest rate with loss <= 0.1% is cap / 0.999; found from below, within 1% */
	assert_true(b->sent_pps <= 2e5 / 0.999 + 1);
	assert_true(b->sent_pps >= 0.99 * 2e5);
	assert_true(b->loss <= 0.001);
	/* the first step unlimited, every step recorded, fewer than the bound */
	assert_true(s.step[0].offered_pps == 0);
	assert_true(s.step[0].loss > 0.7);
	assert_true(s.nsteps > 2 && s.nsteps < 20);
	for (int i = 1; i < s.nsteps; i++)
		assert_true(s.step[i].offered_pps > 0 && s.step[i].offered_pps < 1e6);
}

/* The threshold decides: 0.1% base loss passes at 0.1%, fails at 0.05% (NDR-like). */
static void test_threshold(void **state)
{
	struct path p = { .max_pps = 1e6, .cap_pps = 2e6, .base_loss = 0.0009 };
	struct rate_search s;
	const struct rate_step *b = search(&p, &s, 0.001, 0.01, 20);

	(void)state;
	/* the sender is the bottleneck: one step, the whole rate */
	assert_non_null(b);
	assert_int_equal(s.nsteps, 1);
	assert_true(fabs(b->sent_pps - 1e6) < 1);
	/* at 0.05% nothing passes: the search walks down and gives up, having said every step */
	b = search(&p, &s, 0.0005, 0.01, 8);
	assert_null(b);
	assert_int_equal(s.nsteps, 8);
}

/* Sender slower than the path: one step, as fast as it can. */
static void test_sender_bound(void **state)
{
	struct path p = { .max_pps = 5e4, .cap_pps = 2e5 };
	struct rate_search s;
	const struct rate_step *b = search(&p, &s, 0.001, 0.01, 20);

	(void)state;
	assert_non_null(b);
	assert_int_equal(s.nsteps, 1);
	assert_true(b->loss == 0);
}

/* Few steps: the answer is the best that passed, still below capacity. */
static void test_step_bound(void **state)
{
	struct path p = { .max_pps = 1e6, .cap_pps = 3.3e5 };
	struct rate_search s;
	const struct rate_step *b = search(&p, &s, 0.001, 0.0001, 4);

	(void)state;
	assert_int_equal(s.nsteps, 4);
	assert_non_null(b);
	/* steps: 1e6 fail, 5e5 fail, 2.5e5 pass, 3.75e5 fail */
	assert_true(fabs(b->sent_pps - 2.5e5) < 1);
}

/*
 * A step whose sender fell short and lost, below a rate that passed: the
 * path is not monotone there, and the answer is never a rate a lower one
 * disproved.
 */
static void test_not_monotone(void **state)
{
	struct path p = { .max_pps = 1e6, .cap_pps = 6e5 };
	struct rate_search s;
	const struct rate_step *b = search(&p, &s, 0.001, 0.01, 8);

	(void)state;
	/* 1e6 fail, 5e5 pass, 7.5e5 fail, 6.25e5 fail, 5.625e5 pass, ... */
	assert_non_null(b);
	assert_true(b->sent_pps >= 0.98 * 6e5);
	/* the fourth offer (6.25e5) reaches 3.125e5 and loses: under the 5e5 that passed */
	p.slow_step = 4;
	b = search(&p, &s, 0.001, 0.01, 8);
	assert_false(s.step[3].pass);
	assert_true(s.step[3].sent_pps < 5e5);
	for (int i = 0; b && i < s.nsteps; i++)
		if (!s.step[i].pass)
			assert_true(s.step[i].sent_pps > b->sent_pps);
	assert_true(!b || b->sent_pps < s.step[3].sent_pps);
}

/* Nothing sent (a sender with no CPU for a step) is no pass, and no answer about the path: that rate again. */
static void test_nothing_sent(void **state)
{
	struct rate_search s;

	(void)state;
	rate_search_init(&s, 0.001, 0.01, 5);
	rate_search_step(&s, 0, 0, 0, 1);
	assert_false(s.step[0].pass);
	assert_true(s.step[0].loss == 1);
	assert_null(rate_search_best(&s));
	assert_true(rate_search_next(&s) == 0);
	rate_search_step(&s, 0, 1000, 500, 1); /* as fast as it can: half lost */
	assert_true(rate_search_next(&s) == 500);
	rate_search_step(&s, 500, 0, 0, 1); /* starved again */
	assert_true(rate_search_next(&s) == 500);
	rate_search_step(&s, 500, 500, 500, 1);
	assert_non_null(rate_search_best(&s));
	assert_true(rate_search_best(&s)->sent_pps == 500);
	/* the steps ran out: done, the answer the one that passed */
	rate_search_step(&s, rate_search_next(&s), 750, 600, 1);
	assert_true(rate_search_next(&s) < 0);
	assert_int_equal(s.nsteps, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_found),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_sender_bound),
		cmocka_unit_test(test_step_bound),
		cmocka_unit_test(test_not_monotone),
		cmocka_unit_test(test_nothing_sent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
