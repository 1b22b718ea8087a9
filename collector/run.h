/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration of one `ipsecperf run`, as parsed from its command line. */
#ifndef IPSECPERF_RUN_H
#define IPSECPERF_RUN_H

#include <stdbool.h>

#include "scenario.h"

#define RUN_MAX_KERNELS 8

struct run_config {
	/* load */
	int duration_s; /* --duration: measured seconds per run */
	int omit_s;     /* --omit: iperf3 warm-up seconds, not measured */
	int repeat;     /* --repeat: runs per scenario */
	/* testbed */
	const char *testbed;   /* "netns" (default), "vm", "peer" */
	const char *addr_tx;   /* sender address, default 198.18.0.1 */
	const char *addr_rx;   /* receiver address, default 198.18.0.2 */
	int prefix_len;        /* default 24 */
	const char *kernels[RUN_MAX_KERNELS]; /* --kernel, for the vm testbed */
	int nkernels;
	/* output */
	const char *outdir; /* -o DIR: the results directory itself */
	const char *tag;    /* --tag, part of the default directory name */
	bool dry_run;       /* --dry-run: print the host changes, make none */
	bool quiet;         /* --quiet: no progress line */
	int profile_hz;     /* --profile: perf samples per second per CPU; 0: off */
	/* the matrix */
	struct scenario *scenarios;
	int nscenarios;
	/* the command line, for meta.json */
	int argc;
	char **argv;
};

#endif
