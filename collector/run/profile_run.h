/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ipsecperf run --profile`: system-wide CPU sampling with call chains
 * during the measured window of each run, by perf record (cpu-clock, which
 * needs no PMU). perf starts before the warm-up with its events disabled
 * and is switched on and off through its control FIFOs at the window's
 * edges (measure_window), so the samples cover exactly the interval the
 * throughput and cycles per byte do. After the run the samples are folded
 * (raw/<scenario>-r<n>-profile.folded) and the top functions go into the
 * record's "profile" key. See docs/profiling.md.
 */
#ifndef IPSECPERF_PROFILE_RUN_H
#define IPSECPERF_PROFILE_RUN_H

#include <jansson.h>
#include <stddef.h>

#define PROFILE_DEFAULT_HZ 99 /* docs/profiling.md, "Overhead" */
#define PROFILE_TOP 20 /* functions kept in each record */

struct profiler;

/* Is perf usable here? 0, or -1 with the reason and the fix in why. */
int profile_check(char *why, size_t len);

/*
 * Start perf record (disabled) for one run. raw_prefix is where the run's
 * raw files go ("DIR/raw/<scenario>-r<n>-"), resdir the results directory.
 * Never NULL unless out of memory; a failure is kept and reported in the
 * record by profile_end.
 */
struct profiler *profile_begin(int hz, const char *resdir, const char *raw_prefix);

/* The measured window's edges: enable (open = 1) and disable the sampling. */
void profile_window(struct profiler *p, int open);

/*
 * Stop perf, fold and reduce its samples with the record's cycles per byte,
 * write the folded stacks and set rec["profile"]; frees p.
 */
void profile_end(struct profiler *p, json_t *rec);

#endif
