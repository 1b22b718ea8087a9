/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One revision of a bisect: build what is checked out in the tree
 * (`ipsecperf kernel build`, incremental), run the scenarios on it in the
 * VM (`ipsecperf run --testbed vm`), and compare its runs with the good
 * revision's (`ipsecperf compare`). Each phase's output is kept in the
 * step's folder (build.log, run.log, results/, compare.txt, compare.json).
 */
#ifndef IPSECPERF_BISECT_STEP_H
#define IPSECPERF_BISECT_STEP_H

#include <jansson.h>

#include "bisect_util.h"

enum bisect_outcome {
	BISECT_GOOD = 0,
	BISECT_BAD = 1,
	BISECT_SKIP = 125,   /* git bisect run's "cannot test this one" */
	BISECT_ERROR = 128,  /* git bisect run stops: the bisect itself is wrong */
	BISECT_STOPPED = -1, /* a stop was asked: unwound */
};

/*
 * Build and run the checked-out revision shortsha into dir (made here),
 * printing progress lines prefixed with what. The phases' times and, on
 * a failure, why go into step ("build_s", "run_s", "why"). BISECT_GOOD
 * when it was measured, BISECT_SKIP when it did not build or its runs
 * failed, BISECT_ERROR, or BISECT_STOPPED.
 */
int bisect_measure(const struct bisect_state *s, const char *shortsha, const char *dir, const char *what,
		   json_t *step);

/*
 * Compare dir/results with the good revision's: BISECT_GOOD, BISECT_BAD,
 * BISECT_SKIP (undecided: too few runs) or BISECT_ERROR. The figures of the
 * deciding metric go into step ("figures": scenario, good and this
 * revision's medians, change, p, regression).
 */
int bisect_judge(const struct bisect_state *s, const char *dir, json_t *step);

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
