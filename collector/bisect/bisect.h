/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ipsecperf bisect`: find the commit that made a scenario slower. The
 * good revision is built first (or its build taken from the cache,
 * bisect_cache.h); then `git bisect run` runs `ipsecperf bisect-step`
 * (bisect_step.h) on each revision it picks, which builds it, runs the
 * scenarios on it and on the good revision in turn and compares the two.
 * The tree is left as it was found (`git bisect reset`), also after
 * Ctrl-C, and `ipsecperf cleanup` resets the bisect of a killed ipsecperf.
 */
#ifndef IPSECPERF_BISECT_H
#define IPSECPERF_BISECT_H

#include <stdbool.h>

struct bisect_opts {
	const char *good, *bad;       /* revisions, as given */
	const char *metric;           /* compare's name of the deciding metric */
	double threshold, alpha;
	int repeat, jobs;
	bool no_cache;                /* build every revision, even one whose build is cached */
	const char *clock;            /* run's --clock for the steps' runs: auto, real or virtual */
	const char *build;            /* -O, or NULL: build in the tree */
	const char *out;              /* -o, or NULL: results/bisect-<UTC time> */
	char *const *run_opts;        /* options for every `run`, as argv */
	int nrun_opts;
	const char *tree;
	char *const *scenarios;
	int nscenarios;
};

/* The whole bisect; its exit status (0 found, 1 failed, 2 bad usage, 128+signal stopped). */
int bisect_main(const struct bisect_opts *o);

#endif
