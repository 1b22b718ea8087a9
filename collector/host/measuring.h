/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs that measure on one host at the same time disturb each other's
 * figures: they share CPUs, caches and memory bandwidth (a clear repeat fell
 * from 10-12 to 3.8 Gbit/s while another run measured). So each run says
 * when another one was measuring during its own measured window.
 *
 * Each run registers as measuring-<pid>-<starttime> in the journal folder,
 * a file it appends the edges of its measured windows to ("open <ns>",
 * "close <ns>", CLOCK_MONOTONIC, one clock for the whole host). When a
 * window closes, the run reads the other runs' files: a window of theirs
 * that overlaps its own puts their pid in the record's "concurrent_runs".
 * Either run sees the overlap, whichever ends first. A run that is gone
 * (its pid is not the process that started then) counts only for a window
 * it opened inside ours, as it may have died long before.
 */
#ifndef IPSECPERF_MEASURING_H
#define IPSECPERF_MEASURING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Register this run (not in dry-run). 0, or -1 (then nothing is said either way). */
int measuring_open(void);

/* A measured window opens or closes (around the CPU accounting). */
void measuring_window(bool open);

/*
 * After a run's window closed: set rec's "concurrent_runs" to the pids of
 * the runs that measured during it (an empty list when none) and note them
 * for the end of the run. Nothing without a registration or a window.
 */
void measuring_record(json_t *rec, const char *scenario, int repeat);

/*
 * For meta.json: [{"pid": N, "during": [{"scenario": S, "repeat": R}...]}...],
 * empty when no other run measured at the same time; NULL when this run
 * did not register.
 */
json_t *measuring_report(void);

/* One warning line per other run that measured at the same time. */
void measuring_warn(void);

/* Unregister (remove this run's file); what it noted stays for the report and the warning. */
void measuring_close(void);

/* `ipsecperf cleanup`: remove the files of runs that are gone. */
void measuring_cleanup_stale(int dirfd);

#endif
