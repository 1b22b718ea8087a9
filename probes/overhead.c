// SPDX-License-Identifier: GPL-2.0
/* --probe-overhead: throughput with the probes over throughput without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "probes.h"

json_t *probes_counters_unavailable(const char *why)
{
	json_t *out = json_object();
	char how[300];

	snprintf(how, sizeof(how), "unavailable: %s", why);
	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		json_object_set_new(out, probe_counter_names[c],
				    json_pack("{s:n, s:n, s:s}", "count", "per_packet", "symbol", how));
	return out;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	double *v, m;
	json_t *e;

	if (!n)
		return -1.0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -1.0;
	json_array_foreach(arr, i, e)
		v[i] = json_number_value(e);
	qsort(v, n, sizeof(*v), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

double probe_overhead_ratio(json_t *on, json_t *off)
{
	double a = median(on), b = median(off);

	return a < 0 || b <= 0 ? -1.0 : a / b;
}

int probe_overhead_write(const char *dir, json_t *ov)
{
	char path[4200];
	const char *name;
	json_t *sc, *out = json_object();
	int err;

	json_object_foreach(ov, name, sc) {
		double r = probe_overhead_ratio(json_object_get(sc, "on"), json_object_get(sc, "off"));

		json_object_set_new(out, name,
				    json_pack("{s:O, s:O, s:o}", "on_bps", json_object_get(sc, "on"), "off_bps",
					      json_object_get(sc, "off"), "ratio", r < 0 ? json_null() : json_real(r)));
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

	fprintf(f, "\nprobe overhead (median throughput with probes / without)\n");
	fprintf(f, "%-16s %4s %14s %14s %8s\n", "scenario", "n", "with Gbit/s", "without Gbit/s", "ratio");
	json_object_foreach(ov, name, sc) {
		json_t *on = json_object_get(sc, "on"), *off = json_object_get(sc, "off");
		double r = probe_overhead_ratio(on, off);
		size_t n = json_array_size(on) < json_array_size(off) ? json_array_size(on) : json_array_size(off);

		if (r < 0)
			fprintf(f, "%-16s %4zu %14s %14s %8s\n", name, n, "-", "-", "-");
		else
			fprintf(f, "%-16s %4zu %14.3f %14.3f %8.3f\n", name, n, median(on) / 1e9,
				median(off) / 1e9, r);
	}
}
