// SPDX-License-Identifier: GPL-2.0
/* --probe-overhead: throughput with the probes over throughput without. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "stats.h"
#include "probes.h"

json_t *probes_counters_unavailable(const char *why)
{
	json_t *out = json_object();
	char how[300];

	snprintf(how, sizeof(how), "unavailable: %s", why);
	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		json_object_set_new(out, probe_counters[c].name,
				    json_pack("{s:n, s:n, s:s}", "count", "per_packet", "symbol", how));
	return out;
}

/* The median of a JSON array of numbers; -1 when it is empty. */
static double median(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	double *v, m;
	json_t *e;

	if (!n || !(v = calloc(n, sizeof(*v))))
		return -1.0;
	json_array_foreach(arr, i, e)
		v[i] = json_number_value(e);
	m = stats_median(v, (int)n);
	free(v);
	return m;
}

double probe_overhead_ratio(json_t *on, json_t *off)
{
	double a = median(on), b = median(off);

	return a < 0 || b <= 0 ? -1.0 : a / b;
}

/* The median of the repeats' ratios (with/without) and its interval; n pairs. */
static int paired(json_t *pairs, double *med, double *lo, double *hi, double *cover)
{
	size_t n = json_array_size(pairs), i;
	double r[1000];
	json_t *e;

	if (n > 1000)
		n = 1000;
	json_array_foreach(pairs, i, e)
		if (i < n)
			r[i] = json_number_value(json_array_get(e, 0)) / json_number_value(json_array_get(e, 1));
	*med = n ? stats_median(r, (int)n) : NAN;
	*cover = n ? stats_median_ci(r, (int)n, lo, hi) : NAN;
	if (!n)
		*lo = *hi = NAN;
	return (int)n;
}

static json_t *num_or_null(double v)
{
	return isnan(v) || v < 0 ? json_null() : json_real(v);
}

int probe_overhead_write(const char *dir, json_t *ov)
{
	char path[4200];
	const char *name;
	json_t *sc, *out = json_object();
	int err;

	json_object_foreach(ov, name, sc) {
		double r = probe_overhead_ratio(json_object_get(sc, "on"), json_object_get(sc, "off"));
		double med, lo, hi, cover;

		paired(json_object_get(sc, "pairs"), &med, &lo, &hi, &cover);
		json_object_set_new(out, name,
				    json_pack("{s:O, s:O, s:o, s:O, s:o, s:[o, o], s:o}", "on_bps",
					      json_object_get(sc, "on"), "off_bps", json_object_get(sc, "off"),
					      "ratio", num_or_null(r), "pairs_bps", json_object_get(sc, "pairs"),
					      "paired_ratio_median", num_or_null(med), "paired_ratio_interval",
					      num_or_null(lo), num_or_null(hi), "paired_ratio_interval_coverage",
					      num_or_null(cover)));
	}
	snprintf(path, sizeof(path), "%s/probe-overhead.json", dir);
	err = json_dump_file(out, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (err)
		pr_warn("run: cannot write %s", path);
	json_decref(out);
	return err ? -1 : 0;
}

void probe_overhead_print(FILE *f, json_t *ov)
{
	const char *name;
	json_t *sc;

	fprintf(f, "\nprobe overhead: throughput with probes / without (medians; and per repeat, each pair back to back)\n");
	fprintf(f, "%-16s %4s %12s %12s %7s %7s  %s\n", "scenario", "n", "with Gb/s", "without Gb/s", "ratio",
		"paired", "95% interval of paired");
	json_object_foreach(ov, name, sc) {
		json_t *on = json_object_get(sc, "on"), *off = json_object_get(sc, "off");
		double r = probe_overhead_ratio(on, off), med, lo, hi, cover;
		int n = paired(json_object_get(sc, "pairs"), &med, &lo, &hi, &cover);
		char ci[48] = "- (fewer than 6 pairs)";

		if (!isnan(cover))
			snprintf(ci, sizeof(ci), "%.3f-%.3f", lo, hi);
		if (r < 0)
			fprintf(f, "%-16s %4d %12s %12s %7s %7s  %s\n", name, n, "-", "-", "-", "-", "-");
		else
			fprintf(f, "%-16s %4d %12.3f %12.3f %7.3f %7.3f  %s\n", name, n, median(on) / 1e9,
				median(off) / 1e9, r, med, ci);
	}
}
