// SPDX-License-Identifier: GPL-2.0
#include "intervals.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* A finite number >= 0 from o's key, or NAN. */
static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!json_is_number(v))
		return NAN;
	d = json_number_value(v);
	return isfinite(d) && d >= 0 ? d : NAN;
}

/* iperf3 -J: intervals[].sum {end, bits_per_second, omitted} */
static int parse_iperf3(json_t *root, struct run_intervals *iv)
{
	json_t *ivs = json_object_get(root, "intervals"), *e;
	double t0 = NAN;
	size_t i;

	if (!json_is_array(ivs))
		return -1;
	json_array_foreach(ivs, i, e) {
		json_t *sum = json_object_get(e, "sum");
		double end = num(sum, "end"), bps = num(sum, "bits_per_second");

		if (!json_is_object(sum) || isnan(end) || isnan(bps))
			return -1;
		/* the warm-up, and the receiver's tail after the sender stopped (a part of a second) */
		if (json_is_true(json_object_get(sum, "omitted")) || !(num(sum, "seconds") >= 0.5))
			continue;
		if (iv->n == INTERVALS_MAX)
			break;
		if (isnan(t0))
			t0 = num(sum, "start");
		iv->t[iv->n] = end - (isnan(t0) ? 0 : t0);
		iv->gbps[iv->n++] = bps / 1e9;
	}
	return iv->n ? 0 : -1;
}

/* the stream load: intervals[] {end, bytes}, end counted from before the warm-up (omit_s) */
static int parse_stream(json_t *root, struct run_intervals *iv)
{
	json_t *ivs = json_object_get(root, "intervals"), *e;
	double omit = num(root, "omit_s"), prev = 0;
	size_t i;

	if (!json_is_array(ivs))
		return -1;
	if (isnan(omit))
		omit = 0;
	json_array_foreach(ivs, i, e) {
		double end = num(e, "end"), bytes = num(e, "bytes");

		if (isnan(end) || isnan(bytes) || end <= prev)
			return -1;
		if (end > omit + 0.5 && iv->n < INTERVALS_MAX) {
			iv->t[iv->n] = end - omit;
			iv->gbps[iv->n++] = bytes * 8 / (end - prev) / 1e9;
		}
		prev = end;
	}
	return iv->n ? 0 : -1;
}

int run_intervals_read(const char *dir, const struct run_record *rec, struct run_intervals *iv)
{
	static const struct { const char *suffix, *source; bool stream; } kinds[] = {
		{ "iperf3-server.json", "iperf3 receiver", false },
		{ "iperf3-client.json", "iperf3 sender", false },
		{ "stream.json", "stream", true },
	};
	/* host testbeds write raw/SCEN-rN-..., the VM testbed raw/KERNEL/SCEN-rN-... */
	static const char *const fmts[] = { "raw/%s/%s-r%d-%s%s", "raw/%.0s%s-r%d-%s%s" };
	static const char *const probes[] = { "", "noprobes-" };

	iv->n = 0;
	if (!results_name_ok(rec->kernel) || !results_name_ok(rec->scenario))
		return -1;
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++)
			for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
				char rel[1024], err[256];
				json_t *root;
				size_t len;
				char *buf;
				int ret;

				snprintf(rel, sizeof(rel), fmts[f], rec->kernel, rec->scenario, rec->repeat,
					 probes[p], kinds[k].suffix);
				/* a larger file is left out before it is read, not after */
				buf = results_read_max(dir, rel, INTERVALS_MAX_FILE, &len, err, sizeof(err));
				if (!buf)
					continue;
				root = json_loadb(buf, len, 0, NULL);
				free(buf);
				if (!json_is_object(root)) {
					json_decref(root);
					continue;
				}
				iv->n = 0;
				ret = kinds[k].stream ? parse_stream(root, iv) : parse_iperf3(root, iv);
				json_decref(root);
				if (ret == 0) {
					iv->source = kinds[k].source;
					return 0;
				}
			}
	iv->n = 0;
	return -1;
}

double run_intervals_cv(const struct run_intervals *iv)
{
	struct stats s;

	if (iv->n < 3)
		return NAN;
	stats_compute(iv->gbps, iv->n, &s);
	return s.cv;
}
