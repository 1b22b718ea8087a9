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
#include "testbed_ops.h"
#include "results.h"
#include "results_writer.h"
#include "side_by_side.h"
#include "signals.h"
#include "stats.h"
#include "summary.h"
#include "vm_matrix.h"

#include "vm.h"
#include "vm_accel.h"
#include "vm_kernel.h"

/*
 * Resolve every --kernel into ks (ok[i] when it could be); a kernel with
 * the release of an earlier one is left out. Returns how many were left out.
 */
static int resolve_kernels(const struct run_config *cfg, struct vm_kernel *ks, bool *ok, bool *left_out)
{
	int n = 0;

	for (int i = 0; i < cfg->nkernels && !stop_requested(); i++) {
		ok[i] = vm_kernel_resolve_fetch(cfg->kernels[i], &ks[i], !cfg->dry_run) == 0;
		/* records and raw/ are keyed by uname -r: two kernels need two names */
		for (int j = 0; ok[i] && j < i; j++) {
			if (!ok[j] || left_out[j] || strcmp(ks[j].release, ks[i].release))
				continue;
			pr_warn("vm: --kernel %s and --kernel %s are both release %s; records are told apart by uname -r, so build one with another LOCALVERSION (kernel build --localversion -patched); %s is left out",
				cfg->kernels[j], cfg->kernels[i], ks[i].release, cfg->kernels[i]);
			left_out[i] = true;
			n++;
			break;
		}
	}
	return n;
}

/*
 * vm-pair: the receiver's kernel of each pair into pks (--peer-kernel, else
 * the sender's own); a pair whose receiver cannot be had does not run (ok[i]
 * false). Returns how many such pairs.
 */
static int resolve_peers(const struct run_config *cfg, const struct vm_kernel *ks, struct vm_kernel *pks, bool *ok)
{
	int n = 0;

	if (!run_vm_pair(cfg))
		return 0;
	for (int i = 0; i < cfg->nkernels && !stop_requested(); i++) {
		if (!ok[i])
			continue;
		if (!cfg->npeer_kernels)
			pks[i] = ks[i];
		else if (vm_kernel_resolve_fetch(cfg->peer_kernels[i], &pks[i], !cfg->dry_run) < 0)
			ok[i] = false, n++;
	}
	return n;
}

/* The clock a kernel's guest measured on: in its vm[] entry and, the records saying it each, meta.json's. */
static void note_clock(const struct run_config *cfg, struct results_writer *res, json_t *vm, const struct vm_stats *st)
{
	const char *clock = *st->clock ? st->clock : vm_clock_guess(cfg);

	json_object_set_new(vm, "clock", json_string(clock));
	if (res->meta && (*st->clock || !json_object_get(res->meta, "clock")))
		json_object_set_new(res->meta, "clock", json_string(clock));
	if (res->meta)
		writer_write_meta(res);
}

int vm_run_matrix(const struct run_config *cfg, struct results_writer *res)
{
	json_t *kernels = json_array(), *vms = json_array();
	int failed = 0;

	if (!cfg->dry_run && res->meta) {
		/* meta.json named the host's kernel; the kernels measured are the guests' */
		json_t *host = json_array_get(json_object_get(res->meta, "kernels"), 0);

		/* this host runs the guests: its CPU policy shapes their figures */
		writer_conditions(res, writer_setup(res, false), -1, -1, "");

		if (host)
			json_object_set(res->meta, "host_kernel", host);
		json_object_set(res->meta, "kernels", kernels);
		json_object_set(res->meta, "vm", vms);
		writer_write_meta(res);
	}
	struct vm_kernel *ks = calloc(2 * RUN_MAX_KERNELS, sizeof(*ks)), *pks = ks ? ks + RUN_MAX_KERNELS : NULL;
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
	failed += resolve_kernels(cfg, ks, ok, left_out);
	failed += resolve_peers(cfg, ks, pks, ok);
	for (int round = 0; round < rounds && !stop_requested(); round++) {
		for (int i = 0; i < cfg->nkernels && !stop_requested(); i++) {
			struct run_config one = *cfg;
			struct vm_stats st;

			if (left_out[i])
				continue;
			if (cfg->interleave) {
				one.repeat = 1;
				one.repeat_from = cfg->repeat_from + round;
				/* the counting repeats in the first rounds, each numbered as its round */
				one.count_repeats = round < cfg->count_repeats ? 1 : 0;
			}
			if (vm_run_resolved(&one, cfg->kernels[i], ok[i] ? &ks[i] : NULL,
					    run_vm_pair(cfg) && ok[i] ? &pks[i] : NULL, res->dir, &st) < 0 &&
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
			note_clock(cfg, res, json_array_get(vms, json_array_size(vms) - 1), &st);
			json_decref(st.kernel_meta);
		}
	}
	free(ks);
	json_decref(kernels);
	json_decref(vms);
	return failed;
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

static const char *boot_note(const char *release, const void *resultsdir)
{
	return boot_line(resultsdir, release);
}

int vm_print_summary(FILE *f, const char *resultsdir)
{
	struct results r;
	char err[512];
	int ret;

	if (results_load(resultsdir, &r, err, sizeof(err)) < 0) {
		pr_warn("%s", err);
		return -1;
	}
	ret = kernels_side_by_side(f, &r, boot_note, resultsdir);
	results_free(&r);
	return ret;
}
