/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels from a source tree for the VM testbed: `kernel config` writes a
 * .config the guest, the scenarios and the probes can use, `kernel build`
 * makes the bzImage and the modules, incrementally, in the tree or out of
 * it (O=), keeping the log.
 *
 * A façade of kbuild.c (config and build) and kneed_report.c (what a
 * configuration lacks).
 */
#ifndef IPSECPERF_KBUILD_H
#define IPSECPERF_KBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct kbuild {
	const char *tree;     /* the source tree */
	const char *out;      /* the build folder (O=), or NULL: the tree itself */
	int jobs;             /* make -j; 0: the CPUs online */
	const char *localversion; /* make LOCALVERSION=, or NULL */
	bool merge;           /* config: keep the .config there, add what is missing */
	bool quiet;           /* no progress line */
};

/*
 * Is b->tree a kernel source tree, and is b->out usable? 0, or -1 with
 * one line in why (bad usage: nothing has been changed). Both must be
 * root's alone (kbuild_tree_ours).
 */
int kbuild_check(const struct kbuild *b, char *why, size_t wlen);

/*
 * A build runs the tree's Makefiles and scripts, and those it writes into
 * the build folder, as root: is dir (a tree, a build folder) a folder
 * only root can change (safe_dir_ours)? 0, or -1 with why: which folder
 * is whose, and the fix.
 */
int kbuild_tree_ours(const char *dir, char *why, size_t wlen);

/* The folder that holds .config and the outputs: b->out or b->tree. */
const char *kbuild_dir(const struct kbuild *b);

/*
 * `kernel config`: allnoconfig with kbase[] and kneeds[] (or, with
 * merge, the .config there plus what it lacks), then olddefconfig. Prints
 * what it set and what did not stick. 0, 1 failed (make's last lines
 * printed), 2 bad usage.
 */
int kbuild_config(const struct kbuild *b);

/*
 * One user of a build folder at a time: a make writes its objects, a
 * bisect checks revisions out and boots what they build. Waits (saying
 * so) for another ipsecperf's; Ctrl-C ends the wait. With for_children
 * the lock is kept across exec and named in KBUILD_LOCK_ENV, so that the
 * `kernel build` of a bisect's step takes it as its own instead of
 * waiting for its ancestor. The lock's descriptor (closing it unlocks),
 * or -1.
 */
#define KBUILD_LOCK_ENV "IPSECPERF_BUILD_LOCK_FD"
int kbuild_lock(const char *dir, const char *what, bool for_children);

/* `kernel build`: bzImage and modules. 0 built, 1 failed (the log's last lines printed), 2 bad usage. */
int kbuild_build(const struct kbuild *b);

/* Which of the missing options kbuild_report_missing reports */
enum kreport {
	KREPORT_ALL,    /* every one (kernel show) */
	KREPORT_BOOT,   /* what keeps the guest from booting and reporting */
	KREPORT_COSTLY, /* what costs runs or counters, not boot speed (before a run) */
	KREPORT_PAIR,   /* what keeps a vm-pair guest off the link between the guests */
};

/*
 * What kc lacks that the VM testbed needs, one line per option to f, with
 * what it costs (the scenarios in scs, or every run); returns how many
 * options cost runs (boot, testbed or scenarios), so a caller can refuse.
 */
struct kconfig;
struct scenario;
int kbuild_report_missing(const struct kconfig *kc, const struct scenario *scs, int nsc, FILE *f,
			  enum kreport which);

#endif
