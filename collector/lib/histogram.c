// SPDX-License-Identifier: GPL-2.0
/* A latency histogram with a bounded relative error (histogram.h). */
#include <math.h>
#include <string.h>

#include "histogram.h"

void hist_init(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int hist_index(uint64_t v)
{
	if (v < (1u << HIST_BITS))
		return (unsigned int)v;
	/* the top HIST_BITS bits of v: a power of two, then its bucket within it */
	unsigned int shift = (63 - __builtin_clzll(v)) - HIST_BITS + 1;

	return shift * HIST_HALF + (unsigned int)(v >> shift);
}

uint64_t hist_lower(unsigned int idx)
{
	if (idx < (1u << HIST_BITS))
		return idx;
	unsigned int shift = idx / HIST_HALF - 1;

	return (uint64_t)(idx - shift * HIST_HALF) << shift;
}

uint64_t hist_upper(unsigned int idx)
{
	if (idx < (1u << HIST_BITS))
		return idx;
	unsigned int shift = idx / HIST_HALF - 1;

	/* the last bucket ends at UINT64_MAX: (256 << 56) - 1 wraps to it */
	return ((uint64_t)(idx - shift * HIST_HALF + 1) << shift) - 1;
}

void hist_add(struct histogram *h, uint64_t v)
{
	h->bucket[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct histogram *a, const struct histogram *b)
{
	if (!b->count)
		return;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		a->bucket[i] += b->bucket[i];
	a->count += b->count;
	a->sum += b->sum;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
}

double hist_quantile(const struct histogram *h, double q)
{
	if (!h->count)
		return 0;
	if (q <= 0)
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	/* the rank of q: at least that many values at or below the answer */
	uint64_t rank = (uint64_t)ceil(q * (double)h->count - 1e-9), cum = 0;

	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		cum += h->bucket[i];
		if (cum >= rank) {
			double mid = ((double)hist_lower(i) + (double)hist_upper(i)) / 2;

			return mid < (double)h->min ? (double)h->min : mid > (double)h->max ? (double)h->max : mid;
		}
	}
	return (double)h->max;
}

double hist_mean(const struct histogram *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

uint64_t hist_samples_needed(double q, unsigned int beyond)
{
	if (q <= 0 || q >= 1)
		return beyond;
	return (uint64_t)ceil(beyond / (1 - q) - 1e-6);
}

json_t *hist_json(const struct histogram *h, const char *unit)
{
	json_t *b = json_array();

	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (h->bucket[i])
			json_array_append_new(b, json_pack("[I, I, I]", (json_int_t)hist_lower(i),
							   (json_int_t)(hist_upper(i) > INT64_MAX ? INT64_MAX : hist_upper(i)),
							   (json_int_t)h->bucket[i]));
	return json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:o}", "unit", unit, "count", (json_int_t)h->count,
			 "min", (json_int_t)(h->count ? h->min : 0), "max", (json_int_t)h->max, "mean",
			 hist_mean(h), "rel_error", HIST_REL_ERROR, "buckets", b);
}

int hist_from_json(const json_t *j, struct histogram *h)
{
	const json_t *b = json_object_get(j, "buckets"), *e;
	size_t i;

	hist_init(h);
	if (!json_is_array(b))
		return -1;
	json_array_foreach(b, i, e) {
		json_int_t lo = json_integer_value(json_array_get(e, 0)), n = json_integer_value(json_array_get(e, 2));

		if (!json_is_integer(json_array_get(e, 0)) || lo < 0 || n <= 0)
			return -1;
		unsigned int idx = hist_index((uint64_t)lo);

		if (hist_lower(idx) != (uint64_t)lo)
			return -1;
		h->bucket[idx] += (uint64_t)n;
		h->count += (uint64_t)n;
		/* the sum as the buckets' middles: the raw file keeps the mean apart */
		h->sum += (uint64_t)n * (uint64_t)(((double)hist_lower(idx) + (double)hist_upper(idx)) / 2);
		if ((uint64_t)lo < h->min)
			h->min = (uint64_t)lo;
		if (hist_upper(idx) > h->max || h->max == 0)
			h->max = hist_upper(idx);
	}
	/* the exact ends, where the file has them */
	if (h->count && json_is_integer(json_object_get(j, "min")))
		h->min = (uint64_t)json_integer_value(json_object_get(j, "min"));
	if (h->count && json_is_integer(json_object_get(j, "max")))
		h->max = (uint64_t)json_integer_value(json_object_get(j, "max"));
	return 0;
}

/* The quantiles of a CDF: dense in the middle, every "nine" in the tail. */
static const double cdf_q[] = { 0, 0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9,
				0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999, 1 };

json_t *hist_cdf_json(const struct histogram *h)
{
	json_t *a = json_array();

	for (size_t i = 0; h->count && i < sizeof(cdf_q) / sizeof(cdf_q[0]); i++)
		json_array_append_new(a, json_pack("[f, f]", cdf_q[i], hist_quantile(h, cdf_q[i])));
	return a;
}
