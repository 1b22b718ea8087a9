/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chart of two samples as inline SVG, drawn without gnuplot: base and
 * new on one axis, every run a dot, each side's median with its interval.
 */
#ifndef IPSECPERF_RUNS_CHART_H
#define IPSECPERF_RUNS_CHART_H

#include <stdio.h>

struct runs_side {
	const char *label;     /* escaped here */
	const double *v;       /* the runs' values */
	int n;
	double median, lo, hi; /* lo, hi: the interval drawn (NAN: none) */
};

/* The chart, 560 px wide; unit labels the axis (escaped). -1 on a write error. */
int runs_chart_svg(FILE *f, const struct runs_side *base, const struct runs_side *new, const char *unit);

#endif
