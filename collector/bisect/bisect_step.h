/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One revision of a bisect: build what is checked out in the tree
 * (`ipsecperf kernel build`, incremental) or take its build from the cache,
 * run the scenarios on it and on the good revision's kernel in turn in the
 * VM (`ipsecperf run --testbed vm --interleave`), and compare its runs with
 * the good revision's of the same run (`ipsecperf compare`). Each phase's
 * output is kept in the step's folder (build.log, run.log, results/,
 * compare.txt, compare.json).
 */
#ifndef IPSECPERF_BISECT_STEP_H
#define IPSECPERF_BISECT_STEP_H

#include <jansson.h>
#include <stdbool.h>

#include "bisect_util.h"

enum bisect_outcome {
	BISECT_GOOD = 0,
	BISECT_BAD = 1,
	BISECT_SKIP = 125,   /* git bisect run's "cannot test this one" */
	BISECT_ERROR = 128,  /* git bisect run stops: the bisect itself is wrong */
	BISECT_STOPPED = -1, /* a stop was asked: unwound */
};

/*
 * The kernel of the revision checked out, into dir (made here), printing
 * progress lines prefixed with what: its build from the cache
 * (bisect_cache.h) when there is one and s->no_cache is not set, else
 * built (`kernel build --localversion -bisect-<tree>`) and kept there.
 * With keep, a build that cannot be kept is an error; else it runs from
 * the build folder. kdir and release get the folder `run --kernel` takes
 * and its release; step gets "tree", "cached", "kernel", "release",
 * "build_s" and, on a failure, "why". BISECT_GOOD when there is a kernel,
 * BISECT_SKIP when it did not build, BISECT_ERROR, or BISECT_STOPPED.
 */
int bisect_kernel(const struct bisect_state *s, const char *dir, const char *what, bool keep, json_t *step,
		  char *kdir, size_t klen, char *release, size_t rlen);

/*
 * Run the scenarios on the good revision's kernel and kdir's in turn, one
 * boot each per repeat (`run --testbed vm --kernel GOOD --kernel KDIR
 * --interleave`), into dir/results: a drift of the host falls on both
 * alike. BISECT_GOOD when they ran, BISECT_SKIP when the runs failed,
 * BISECT_ERROR, or BISECT_STOPPED; step gets "run_s", "results", "why".
 */
int bisect_run_pair(const struct bisect_state *s, const char *kdir, const char *dir, const char *what,
		    json_t *step);

/*
 * Compare release's runs in dir/results with the good revision's in the
 * same run: BISECT_GOOD, BISECT_BAD, BISECT_SKIP (undecided: too few runs)
 * or BISECT_ERROR. The figures of the deciding metric go into step
 * ("figures": scenario, good and this revision's medians, change, p,
 * regression).
 */
int bisect_judge(const struct bisect_state *s, const char *dir, const char *release, json_t *step);

/*
 * A step on the revision checked out: measure, judge, print the verdict
 * and append the step's record to OUT/steps.jsonl. Returns git bisect
 * run's exit status: BISECT_GOOD, BISECT_BAD, BISECT_SKIP, BISECT_ERROR or,
 * when stopped, 128 + the signal.
 */
int bisect_step_run(const struct bisect_state *s);

/* `ipsecperf bisect-step STATE`: one step for git bisect run; its exit status. */
int bisect_step_main(const char *state_path);

#endif
