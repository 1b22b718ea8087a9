/* SPDX-License-Identifier: GPL-2.0 */
/* `ipsecperf compare BASE NEW`: changes, their significance, a CI verdict. */
#ifndef IPSECPERF_COMPARE_H
#define IPSECPERF_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "stats.h"

enum compare_test { TEST_MW, TEST_WELCH };

/*
 * The decision for one metric: base sample a, new sample b (n >= 1 each).
 * change is 100 * (median(b) - median(a)) / median(a); p comes from test.
 * A regression: worse in the metric's direction by more than threshold
 * percent, with p < alpha.
 */
struct verdict {
	struct stats base, new;
	double change, p_mw, p_welch, p;
	bool significant, worse, regression, improvement;
};

void compare_decide(const double *a, int na, const double *b, int nb, bool higher_is_better,
		    enum compare_test test, double alpha, double threshold, struct verdict *v);

/*
 * The simulation behind docs/compare.md: false positives of A/A comparisons
 * and the detection rate of a regression, for normal noise of the given CV.
 */
struct sim_result {
	double sig_worse;   /* fraction of trials with p < alpha and the change in the bad direction */
	double sig_any;     /* p < alpha in either direction */
	double gate;        /* fraction that fail the gate: regression beyond threshold */
};

/*
 * n runs a side, normal noise of the given CV; the new side's mean is lower
 * by effect (0.05 = a 5% throughput regression). With probability outlier
 * a run is disturbed and gives 0.7 of its value (a migration, a noisy
 * neighbour), on either side.
 */
void compare_simulate(int n, double cv, double effect, double outlier, enum compare_test test,
		      double alpha, double threshold, int trials, unsigned long long seed,
		      struct sim_result *out);

/* `compare --simulate`: the table of false-positive and detection rates. -1 if f failed. */
int compare_simulate_table(FILE *f, int trials, unsigned long long seed, double alpha, double threshold);

/* What `ipsecperf compare` was asked for (collector/cmd/cmd_compare.c parses it). */
struct compare_opts {
	const char *const *metrics; /* deciding the exit status; none: throughput, cycles_per_byte */
	int nmetrics;
	bool all_metrics;
	double threshold, alpha;
	enum compare_test test;
	const char *base_kernel, *new_kernel;
	bool common;
	const char *format;  /* text, md, csv, json or junit */
	unsigned allow;      /* --allow-mismatch: provenance fields */
};

/* Compare the BASE directories with the NEW ones; an exit status (1: a regression). */
int compare_run(const struct compare_opts *o, char *const base[], int nbase, char *const new[], int nnew);

#endif
