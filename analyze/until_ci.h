/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adaptive repeats (`run --until-ci PCT [--max-repeat N]`): repeat a
 * scenario until the distribution-free 95% interval of its median
 * throughput (stats_median_ci, compare's) is narrower than PCT% of the
 * median, or N repeats are done. netperf's -I does this assuming normal
 * noise; this rule assumes nothing about the shape of the noise.
 */
#ifndef IPSECPERF_UNTIL_CI_H
#define IPSECPERF_UNTIL_CI_H

#include <stdbool.h>
#include <stdio.h>

#define UNTIL_CI_MIN 6            /* the fewest runs stats_median_ci gives an interval for */
#define UNTIL_CI_MAX_REPEAT 30    /* --max-repeat's default */

struct until_ci {
	int n;                    /* ok runs so far */
	double median, lo, hi;    /* the median and its interval (NAN while n < UNTIL_CI_MIN) */
	double width_pct;         /* (hi - lo) / median * 100, or NAN */
	bool reached;             /* width_pct < the target */
};

/* The state after the ok values x[0..n-1] against a target of pct%. */
void until_ci_eval(const double *x, int n, double pct, struct until_ci *u);

/* Should the scenario stop after `done` repeats (ok or not) with state u? */
bool until_ci_stop(const struct until_ci *u, int done, int max_repeat);

/*
 * The simulation behind docs/methodology.md: how many repeats the rule
 * takes and how often its final interval covers the true median, over
 * several noise shapes. Writes the table to f.
 */
int until_ci_simulate(FILE *f, int trials, unsigned long long seed);

#endif
