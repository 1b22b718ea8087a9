/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The matrix: every scenario x repeat on one testbed, the same loop for
 * every testbed (netns, peer; the vm testbed runs the netns one in its
 * guests). The loop owns what is alike everywhere: the journal marks,
 * dry-run, skipped and failed records, the probes and --probe-overhead,
 * --probe-cost and --probe-set, the measured window, the progress line and
 * --until-ci. What differs is behind a table of operations.
 *
 * A façade of matrix.c (the loop) and record.c (the records every testbed
 * writes).
 */
#ifndef IPSECPERF_MATRIX_H
#define IPSECPERF_MATRIX_H

#include <jansson.h>
#include <stddef.h>

#include "cpu.h"
#include "load.h"
#include "results_writer.h"
#include "run.h"
#include "testbed_ops.h"

/* run_matrix's --dry-run where every scenario would be skipped */
#define RUN_NOTHING (-2)

/* How often a run's end reads the probes and the SAs again while they still move */
#define LOAD_END_READS 10

/*
 * The matrix on ops. Returns the number of failed runs, -1 when the
 * testbed could not be set up, or RUN_NOTHING (--dry-run only). With --probe-overhead, *overhead gets the
 * throughputs with and without the probes (the caller prints and frees it).
 */
int run_matrix(const struct testbed_ops *ops, const struct run_config *cfg, struct results_writer *res,
	       json_t **overhead);

/* ---- records (record.c), one builder for every testbed ---- */

/* A record's head: version, kernel (this host's), scenario, repeat, testbed, start. */
json_t *record_new(const char *testbed, const char *scenario, int repeat);
void record_status(json_t *rec, const char *status, const char *reason);
/* The load's fields of an ok record: load, duration_s, bytes, throughputs, retransmits. */
void record_load(json_t *rec, const struct scenario *sc, const struct load_result *lr);
/*
 * What encrypts the scenario's traffic, on every record of it ("encryption":
 * kind, title, cipher: ESP's algorithm as the crypto API names it, or an
 * encrypted link's cipher); nothing in clear.
 */
void record_encryption(json_t *rec, const struct scenario *sc);
/*
 * The figures per the load's unit (loads.h: unit), once the record has its
 * cycles and counters: "unit" (on every record of the load), and for a run
 * that is ok "cycles_per_transaction" and the like, each counter's
 * "per_transaction". Nothing for a load without a unit.
 */
void record_per_unit(json_t *rec, const struct scenario *sc);
/*
 * The measured window's edges as the CPU accounting took them
 * (window_start, window_end: CLOCK_REALTIME, ISO 8601 UTC with
 * microseconds), so that the window can be lined up with other
 * measurements of the host.
 */
void record_window(json_t *rec, const struct cpu_acct *cpu);
/*
 * [busy seconds of CPU 0, of CPU 1, ...] over the window (/proc/stat per
 * CPU, the same ticks cpu_busy_s sums): where the ESP work ran beside
 * the probes' per-CPU counts (docs/results-format.md, "Per CPU").
 */
json_t *record_busy_per_cpu(const struct cpu_acct *cpu);
/* cycles / bytes as a JSON real, or null when it cannot be said. */
json_t *record_cpb(uint64_t cycles, uint64_t bytes);
/*
 * instructions<sfx>, instructions_per_byte<sfx> and instructions_method<sfx>
 * ("pmu", or "unavailable: perf_event_open(instructions): <why>", the
 * numbers null) from cpu's instruction counters.
 */
void record_instructions(json_t *rec, const struct cpu_acct *cpu, uint64_t bytes, const char *sfx);
/*
 * The kernel's IPsec counters (/proc/net/xfrm_stat) at each end, read
 * before the load (begin) and after it: "xfrm_stat": {"sender": {...},
 * "receiver": {...}}, every counter's difference, zeros too; an end
 * without the file (CONFIG_XFRM_STATISTICS unset, or unreadable) null.
 */
struct kstat;
void record_xfrm_stat(json_t *rec, const struct kstat *before, const bool *ok_before, const struct kstat *after,
		      const bool *ok_after);
/*
 * The clock a record was measured on: "clock" (real, or virtual: the vm
 * testbed's instruction counting), and under the virtual clock its
 * instructions per byte from the guest's busy virtual time
 * (instructions_per_byte, instructions_method "icount"; shift: -icount's).
 */
void record_clock(json_t *rec, bool virtual_clock, int shift);
/* The guest's busy virtual seconds as instructions, per byte; -1 if it cannot be said. */
double record_icount_per_byte(json_t *rec, int shift);
/* Is rec's status s? */
int record_is(json_t *rec, const char *s);

#endif
