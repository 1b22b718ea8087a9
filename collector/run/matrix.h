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
#include "testbed.h"

struct probes;
struct ipsec_sas;

/*
 * A testbed as the matrix sees it. tb is the testbed's own state (made by
 * setup); every operation not marked optional is set.
 */
struct testbed_ops {
	double run_slack_s;   /* a run's seconds beyond omit + duration, for the progress line */
	/* Make the testbed (journaled); provenance into res->meta. NULL: could not, said why. */
	void *(*setup)(const struct run_config *cfg, struct results_writer *res);
	void (*teardown)(void *tb);
	/*
	 * The two ends of the link and where the scenario's SAs are kept: the
	 * matrix applies each scenario over them (scenario_apply, apply.h).
	 */
	void (*ends)(void *tb, const struct endpoint **tx, const struct endpoint **rx, struct ipsec_sas **sas);
	/*
	 * Optional: can this testbed run sc, before anything is changed? 0 yes;
	 * 1 no (skip, why); -1 failed. Asked under --dry-run too (where the
	 * testbed is not made: it checks what it can without it).
	 */
	int (*possible)(void *tb, const struct scenario *sc, char *why, size_t len);
	/* Optional: non-NULL when every later run must fail (the peer was lost), and why. */
	const char *(*lost)(void *tb);
	/* The probes on both ends (pr NULL: --no-probes, the testbed's own too). */
	void (*probes_attach)(void *tb, struct probes *pr, const struct run_config *cfg);
	void (*probes_detach)(void *tb, struct probes *pr);
	/* The record's testbed fields: "kernel", and the peer's. */
	void (*record_head)(void *tb, json_t *rec);
	/* A run: before the load, the load itself, the window's edges, a tick. */
	void (*run_begin)(void *tb, json_t *rec);
	/*
	 * Optional: the other host's probes at the whole load's edges, beside
	 * this host's, and whether they counted on since the load's end.
	 */
	void (*load_mark)(void *tb, int begin);
	bool (*load_moved)(void *tb);
	int (*load)(void *tb, const struct scenario *sc, const struct load_params *lp, struct load_result *lr);
	void (*window)(void *tb, int open);
	void (*tick)(void *tb);
	/* The CPU and cycle fields of an ok record, cpu being this host's accounting. */
	void (*record_cpu)(void *tb, json_t *rec, const struct load_result *lr, const struct cpu_acct *cpu);
	/*
	 * After the load: the SAs' counters into rec; -1 with why when they
	 * disprove the run. Called again, it reads them again (run_once, when
	 * the probes counted on after their load-end snapshot).
	 */
	int (*run_end)(void *tb, json_t *rec, char *why, size_t len);
	/* The probes' counters into rec (pr NULL: unavailable, for the reason off_why). */
	void (*counters)(void *tb, struct probes *pr, json_t *rec, const char *off_why);
	/* Optional: the other host's crypto drivers serving alg while the SAs exist (setup_crypto). */
	json_t *(*far_crypto)(void *tb, const char *alg);
};

extern const struct testbed_ops netns_testbed_ops; /* tb_netns.c */
extern const struct testbed_ops peer_testbed_ops;  /* tb_peer.c */

/* What the testbeds take of the run's options. */
struct testbed_config testbed_config_of(const struct run_config *c);

/* run_matrix's --dry-run where every scenario would be skipped */
#define RUN_NOTHING (-2)

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
/* cycles / bytes as a JSON real, or null when it cannot be said. */
json_t *record_cpb(uint64_t cycles, uint64_t bytes);
/* Is rec's status s? */
int record_is(json_t *rec, const char *s);

#endif
