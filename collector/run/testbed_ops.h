/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A testbed as the run knows it, in one header: the operations the matrix
 * loop runs (struct testbed_ops: netns's in collector/testbed/tb_netns.c,
 * peer's in tb_peer.c) and the registry entry that names it
 * (struct testbed_entry: the registry is collector/testbed/testbeds.c).
 */
#ifndef IPSECPERF_TESTBED_OPS_H
#define IPSECPERF_TESTBED_OPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cpu.h"
#include "load.h"
#include "results_writer.h"
#include "run.h"

struct probes;
struct ipsec_sas;
struct endpoint;

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
	/* lp->tx and lp->rx: the ends the matrix chose (an encrypted link's devices), or NULL: the link's own */
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

/*
 * A testbed as `run` knows it: one entry of the registry (testbeds.c),
 * defined beside the testbed's code (netns's in tb_netns.c, peer's in
 * tb_peer.c, the guests' in tb_vm.c). Nothing chooses a testbed by its
 * name but the registry's lookup; the rest asks the entry. vm and vm-pair
 * differ by their entries' data: how many guests, which testbed the
 * (sending) guest runs.
 */
struct testbed_entry {
	const char *name; /* --testbed NAME, the results' "testbed" */
	/*
	 * The option tables' mark of it (OPT_NETNS ..., options.h): the options
	 * it takes carry it. A testbed that takes the options another takes
	 * may share that one's mark.
	 */
	unsigned mark;
	bool peer;        /* a second host of its own, whose journal a run checks too (journal_check) */
	/* Optional: its own musts beyond the options' marks: 0, or -1 with why (one line, no "run: "). */
	int (*check)(const struct run_config *c, char *why, size_t len);
	/* Here: the matrix loop on ops (run_matrix). */
	const struct testbed_ops *ops;
	/*
	 * Or in guests booted with --kernel (collector/vm/, vm_run_matrix): how
	 * many (1: the sender and the receiver in one; 2: a guest each, over a
	 * virtio-net link), and the testbed the (sending) guest runs.
	 */
	int guests;
	const char *in_guest;
	/*
	 * Why it cannot measure on the virtual clock (--clock virtual, the
	 * guest's instruction counting); NULL: it can (--clock auto picks it
	 * where KVM cannot run guests).
	 */
	const char *no_virtual_clock;
};

/* Does the run measure in guests (the vm and vm-pair testbeds)? */
static inline bool run_in_vm(const struct run_config *c)
{
	return c->tb_entry && c->tb_entry->guests > 0;
}

/* The vm-pair testbed: two guests over a virtio-net link (collector/vm/vm_pair.h)? */
static inline bool run_vm_pair(const struct run_config *c)
{
	return c->tb_entry && c->tb_entry->guests == 2;
}

#endif
