/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration of one `ipsecperf run`, as parsed from its command line. */
#ifndef IPSECPERF_RUN_H
#define IPSECPERF_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

struct opt_def;
struct results_writer;
struct run_config;
struct testbed_entry;

#define RUN_MAX_KERNELS 8
#define RUN_MAX_SSH_OPTS 16
/*
 * The one default repeat count (run, bisect, make demo): with 5 runs
 * against 5 the exact Mann-Whitney test's smallest p is 0.0079, so compare
 * can call a change significant at alpha 0.05; 3 against 3 never can
 * (p >= 0.10). docs/methodology.md says more.
 */
#define RUN_DEFAULT_REPEAT 5
#define RUN_DEFAULT_REPEAT_S "5"
/* The scenarios of a bare `run`: the study's clear, no-tso and no-gso, and ESP. */
#define RUN_DEFAULT_SCENARIOS "clear no-tso no-gso esp-null"

/*
 * --clock (the vm testbed): real time, or a virtual clock that qemu
 * advances by the guest's executed instructions (-icount), or auto:
 * virtual where KVM cannot run guests, real with KVM (docs/vm-testbed.md).
 */
enum run_clock { RUN_CLOCK_AUTO, RUN_CLOCK_REAL, RUN_CLOCK_VIRTUAL };
extern const char *const run_clock_names[]; /* "auto", "real", "virtual" (record.c) */
/* The virtual clock's -icount shift S: a guest second is 10^9 / 2^S instructions. */
#define RUN_ICOUNT_SHIFT 0

struct run_config {
	/* load */
	int duration_s; /* --duration: measured seconds per run */
	int omit_s;     /* --omit: iperf3 warm-up seconds, not measured */
	int repeat;     /* --repeat: runs per scenario */
	int repeat_from; /* --repeat-from: the first repeat's number (default 1) */
	double until_ci; /* --until-ci PCT: repeat until the median's 95% interval < PCT% (0: off) */
	int max_repeat;  /* --max-repeat N: the bound of --until-ci */
	bool interleave; /* --interleave (vm): one boot per kernel and repeat, kernels in turn */
	bool tune;       /* --tune: this host's governor to performance, boost off, for the run (tune.h) */
	/* testbed */
	const char *testbed;   /* --testbed: "netns" (default), "vm", "peer", "vm-pair" */
	const struct testbed_entry *tb_entry; /* its registry entry, set as the options are checked */
	const char *addr_tx;   /* sender address, default 198.18.0.1 */
	const char *addr_rx;   /* receiver address, default 198.18.0.2 */
	int prefix_len;        /* default 24 */
	const char *kernels[RUN_MAX_KERNELS]; /* --kernel, for the vm testbeds (vm-pair: the sender's) */
	int nkernels;
	/* --peer-kernel (vm-pair): the receiver's kernel of each --kernel, in order; none: the same */
	const char *peer_kernels[RUN_MAX_KERNELS];
	int npeer_kernels;
	bool addr_tx_set, addr_rx_set; /* given on the command line (peer: else from the devices) */
	/* the peer testbed (testbed_peer.c) */
	const char *peer;           /* --peer [user@]host */
	const char *dev, *peer_dev; /* --dev, --peer-dev: the link's two ends */
	const char *peer_ipsecperf; /* --peer-ipsecperf: the agent's program on the peer */
	const char *ssh_opts[RUN_MAX_SSH_OPTS]; /* --ssh-option, repeatable */
	int nssh_opts;
	int cpu_tx, cpu_rx;         /* --cpu-tx, --cpu-rx: pin sender, receiver; -1: not pinned */
	/* output */
	const char *outdir; /* -o DIR: the results directory itself */
	const char *tag;    /* --tag, part of the default directory name */
	bool dry_run;       /* --dry-run: print the host changes, make none */
	bool quiet;         /* --quiet: no progress line */
	int profile_hz;     /* --profile: perf samples per second per CPU; 0: off */
	/* the load and the probes, on every testbed (matrix.c) */
	int port;              /* --port: TCP port of the load */
	bool no_probes;        /* --no-probes */
	bool probe_overhead;   /* --probe-overhead: each repeat with and without the probes */
	bool probe_cost;       /* --probe-cost: bpf_enable_stats while the probes are open */
	int probe_set;         /* --probe-set: enum probe_set (probes.h), 0 = default */
	int flows;             /* --flows: TCP flows at once (default 1) */
	int sas;               /* --sas: SA pairs of the ESP scenarios (0: each scenario's sas, else one) */
	int clock;             /* --clock: enum run_clock (vm; vm-pair takes real and auto) */
	int vcpus;             /* --vcpus: the vm guest's (0: what --flows needs, at least the host's) */
	int direction;         /* --direction: enum load_direction (load.h), 0 = tx */
	const char *congestion; /* --congestion: the sender's TCP congestion control, or NULL */
	int count_repeats;     /* --count-repeats: runs per SA scenario with the ESP programs (default 1) */
	/* the matrix */
	struct scenario *scenarios;
	int nscenarios;
	/* the command line, for meta.json */
	int argc;
	char **argv;
	const struct opt_def *opts; /* argv's options: the vm testbed forwards those marked OPT_GUEST */
};

#endif
