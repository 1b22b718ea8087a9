// SPDX-License-Identifier: GPL-2.0
/*
 * The vm testbed's matrix (every --kernel in turn, or in rounds with
 * --interleave) and its summary, the kernels side by side, scenario by
 * scenario.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "results.h"
#include "results_writer.h"
#include "signals.h"
#include "stats.h"
#include "summary.h"
#include "vm.h"

int vm_run_matrix(const struct run_config *cfg, struct results_writer *res)
{
	json_t *kernels = json_array(), *vms = json_array();
	int failed = 0;

	if (!cfg->dry_run && res->meta) {
		/* meta.json named the host's kernel; the kernels measured are the guests' */
		json_t *host = json_array_get(json_object_get(res->meta, "kernels"), 0);

		if (host)
			json_object_set(res->meta, "host_kernel", host);
		json_object_set(res->meta, "kernels", kernels);
		json_object_set(res->meta, "vm", vms);
		writer_write_meta(res);
	}
	struct vm_kernel *ks = calloc(RUN_MAX_KERNELS, sizeof(*ks));
	bool ok[RUN_MAX_KERNELS] = { false }, left_out[RUN_MAX_KERNELS] = { false };
	bool have_meta[RUN_MAX_KERNELS] = { false };
	/* --interleave: one boot per kernel and repeat, K1 K2 K1 K2 ..., so that a
	 * drift of the host falls on every kernel alike; else each kernel once */
	int rounds = cfg->interleave ? cfg->repeat : 1;

	if (!ks) {
		pr_warn("vm: out of memory");
		json_decref(kernels);
		json_decref(vms);
		return cfg->nkernels;
	}
	for (int i = 0; i < cfg->nkernels && !stop_requested(); i++) {
		ok[i] = vm_kernel_resolve(cfg->kernels[i], &ks[i]) == 0;
		/* records and raw/ are keyed by uname -r: two kernels need two names */
		for (int j = 0; ok[i] && j < i; j++) {
			if (!ok[j] || left_out[j] || strcmp(ks[j].release, ks[i].release))
				continue;
			pr_warn("vm: --kernel %s and --kernel %s are both release %s; records are told apart by uname -r, so build one with another LOCALVERSION (make LOCALVERSION=-patched); %s is left out",
				cfg->kernels[j], cfg->kernels[i], ks[i].release, cfg->kernels[i]);
			left_out[i] = true;
			failed++;
			break;
		}
	}
	for (int round = 0; round < rounds && !stop_requested(); round++) {
		for (int i = 0; i < cfg->nkernels && !stop_requested(); i++) {
			struct run_config one = *cfg;
			struct vm_stats st;

			if (left_out[i])
				continue;
			if (cfg->interleave) {
				one.repeat = 1;
				one.repeat_from = cfg->repeat_from + round;
			}
			if (vm_run_resolved(&one, cfg->kernels[i], ok[i] ? &ks[i] : NULL, res->dir, &st) < 0 &&
			    !st.runs_failed)
				failed++;
			failed += st.runs_failed;
			if (cfg->dry_run)
				continue;
			if (st.kernel_meta && !have_meta[i]) {
				json_array_append(kernels, st.kernel_meta);
				have_meta[i] = true;
			}
			json_array_append_new(
				vms, json_pack("{s:s, s:s, s:s, s:s, s:f, s:o, s:f, s:f, s:f, s:i, s:i, s:i, s:o}",
					       "spec", cfg->kernels[i], "release", st.release, "accel", st.accel,
					       "accel_why", st.accel_why, "boot_to_init_s", st.boot_to_init_s,
					       "boot_to_first_measured_byte_s",
					       st.boot_to_first_byte_s >= 0 ? json_real(st.boot_to_first_byte_s)
									    : json_null(),
					       "qemu_cpu_to_init_s", st.cpu_to_init_s,
					       "qemu_cpu_to_first_byte_s", st.cpu_to_first_byte_s,
					       "total_s", st.total_s, "runs_ok", st.runs_ok, "runs_failed",
					       st.runs_failed, "runs_skipped", st.runs_skipped, "repeat",
					       cfg->interleave ? json_integer(one.repeat_from) : json_null()));
			if (res->meta)
				writer_write_meta(res);
			json_decref(st.kernel_meta);
		}
	}
	free(ks);
	json_decref(kernels);
	json_decref(vms);
	return failed;
}

#define COLW 27 /* one kernel's column: "median min-max (n)"; 2 fit in 72 */

/* One cell: the group's metric; *median gets the median (NAN if none). */
static void cell(char *buf, size_t len, const struct results *r, const struct run_group *g,
		 const struct metric *m, double base, double *median)
{
	char num[32], range[48];
	struct stats st;
	double *v;
	int n, d;

	*median = NAN;
	if (!g) {
		snprintf(buf, len, "-");
		return;
	}
	v = calloc(g->n + 1, sizeof(*v));
	n = v ? group_values(r, g, m, v) : 0;
	if (n == 0) {
		free(v);
		snprintf(buf, len, "%s", g->n_ok ? "-" : "failed");
		return;
	}
	stats_compute(v, n, &st);
	free(v);
	*median = st.median;
	d = fmt_decimals(st.median);
	fmt_num(num, sizeof(num), st.median, d);
	fmt_range(range, sizeof(range), &st, d);
	if (isfinite(base) && base != 0)
		snprintf(buf, len, "%s (%d) %+.0f%%", num, n, 100.0 * (st.median - base) / base);
	else
		snprintf(buf, len, "%s %s (%d)", num, range, n);
}

static void print_metric(FILE *f, const struct results *r, const char **kernels, int nk,
			 const struct metric *m, const char *title)
{
	struct run_group *groups;
	const char **scen;
	int ngroups, nscen = 0;

	if (results_groups(r, &groups, &ngroups) < 0)
		return;
	scen = calloc(ngroups + 1, sizeof(*scen));
	for (int g = 0; scen && g < ngroups; g++) {
		bool seen = false;

		for (int j = 0; j < nscen; j++)
			seen |= !strcmp(scen[j], groups[g].scenario);
		if (!seen)
			scen[nscen++] = groups[g].scenario;
	}
	fprintf(f, "\n%s, median min-max (n)\n%-14s", title, "scenario");
	for (int k = 0; k < nk; k++) {
		char h[16];

		snprintf(h, sizeof(h), "K%d", k + 1);
		fprintf(f, "  %-*s", k + 1 < nk ? COLW : 0, h);
	}
	fputc('\n', f);
	for (int s = 0; s < nscen; s++) {
		double base = NAN;

		fprintf(f, "%-14.14s", scen[s]);
		for (int k = 0; k < nk; k++) {
			const struct run_group *g = NULL;
			char buf[96];
			double med;

			for (int j = 0; j < ngroups; j++)
				if (!strcmp(groups[j].scenario, scen[s]) &&
				    !strcmp(groups[j].kernel, kernels[k]))
					g = &groups[j];
			cell(buf, sizeof(buf), r, g, m, k ? base : NAN, &med);
			if (k == 0)
				base = med;
			fprintf(f, "  %-*s", k + 1 < nk ? COLW : 0, buf);
		}
		fputc('\n', f);
	}
	free(scen);
	results_groups_free(groups, ngroups);
}

/* ", TCG, first measured byte after 16.4 s" from meta.json's vm list, or "". */
static const char *boot_line(const char *resultsdir, const char *release)
{
	static char line[128];
	char path[PATH_MAX + 16];
	json_t *meta, *v;
	size_t i;

	line[0] = '\0';
	snprintf(path, sizeof(path), "%s/meta.json", resultsdir);
	meta = json_load_file(path, 0, NULL);
	json_array_foreach(json_object_get(meta, "vm"), i, v) {
		const char *rel = json_string_value(json_object_get(v, "release"));
		const char *acc = json_string_value(json_object_get(v, "accel"));
		json_t *fb = json_object_get(v, "boot_to_first_measured_byte_s");

		if (!rel || strcmp(rel, release) || !acc)
			continue;
		if (json_is_number(fb))
			snprintf(line, sizeof(line), " (%s, first measured byte after %.1f s)",
				 !strcmp(acc, "kvm") ? "KVM" : "TCG", json_number_value(fb));
		else
			snprintf(line, sizeof(line), " (%s)", !strcmp(acc, "kvm") ? "KVM" : "TCG");
	}
	json_decref(meta);
	return line;
}

int vm_print_summary(FILE *f, const char *resultsdir)
{
	struct results r;
	const char **kernels;
	char err[512];
	int nk;

	if (results_load(resultsdir, &r, err, sizeof(err)) < 0) {
		pr_warn("%s", err);
		return -1;
	}
	/* one kernel: the summary above says it all */
	if (results_kernels(&r, &kernels, &nk) < 0 || nk < 2) {
		free(kernels);
		results_free(&r);
		return 0;
	}
	fprintf(f, "\nKernels side by side (K2.. with their change from K1):\n");
	for (int k = 0; k < nk; k++)
		fprintf(f, "  K%d = %s%s\n", k + 1, kernels[k], boot_line(resultsdir, kernels[k]));
	print_metric(f, &r, kernels, nk, &(struct metric){ .kind = METRIC_THROUGHPUT },
		     "Throughput, Gbit/s");
	print_metric(f, &r, kernels, nk, &(struct metric){ .kind = METRIC_CPB },
		     "Cycles per byte");
	free(kernels);
	results_free(&r);
	return ferror(f) ? -1 : 0;
}
