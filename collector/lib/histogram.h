/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A histogram of latencies with a bounded relative error, laid out as HDR
 * histograms are: below 2^HIST_BITS every value has a bucket of its own;
 * above, each power of two is cut into 2^(HIST_BITS-1) buckets of equal
 * width. A value is reported as the middle of its bucket, so that any
 * quantile is within HIST_REL_ERROR of a value that was recorded. min, max,
 * count and the sum are kept exactly. Fixed size, no pointers: it lives
 * in a page shared by a load's child and ipsecperf.
 */
#ifndef IPSECPERF_HISTOGRAM_H
#define IPSECPERF_HISTOGRAM_H

#include <jansson.h>
#include <stdint.h>

#define HIST_BITS 8
#define HIST_HALF (1u << (HIST_BITS - 1))
/* buckets for every uint64_t: the exact ones, then HIST_HALF per power of two above */
#define HIST_BUCKETS ((64 - HIST_BITS + 1) * HIST_HALF + HIST_HALF)
/* the largest relative error of a reported value: half a bucket over its lower bound */
#define HIST_REL_ERROR (1.0 / (1u << HIST_BITS))

struct histogram {
	uint64_t count, sum, min, max;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct histogram *h);
void hist_add(struct histogram *h, uint64_t v);
/* a's counts += b's */
void hist_merge(struct histogram *a, const struct histogram *b);

/* The bucket of v, and the lowest and highest values that bucket holds. */
unsigned int hist_index(uint64_t v);
uint64_t hist_lower(unsigned int idx);
uint64_t hist_upper(unsigned int idx);

/*
 * The value at quantile q (0..1): the smallest recorded bucket under which
 * at least q of the values lie, reported at its middle and within [min,
 * max]; q = 1 is the max, q = 0 the min. 0 for an empty histogram.
 */
double hist_quantile(const struct histogram *h, double q);
double hist_mean(const struct histogram *h);

/*
 * The transactions a quantile needs to be more than one sample: with n
 * values, q's estimate rests on the n(1-q) beyond it. The smallest n that
 * puts at least `beyond` values past q.
 */
uint64_t hist_samples_needed(double q, unsigned int beyond);

/*
 * As JSON: {"unit", "count", "min", "max", "mean", "rel_error", "buckets":
 * [[lower, upper, count], ...]} with only the buckets that hold values
 * (a raw file's whole distribution); and back (-1: not one of ours).
 */
json_t *hist_json(const struct histogram *h, const char *unit);
int hist_from_json(const json_t *j, struct histogram *h);

/*
 * The distribution at a fixed list of quantiles (0 to 1 and the max),
 * enough to draw a CDF: [[q, value], ...].
 */
json_t *hist_cdf_json(const struct histogram *h);

#endif
