/* SPDX-License-Identifier: GPL-2.0 */
/* Writing gnuplot scripts and running gnuplot, for the chart writers. */
#ifndef IPSECPERF_GNUPLOT_H
#define IPSECPERF_GNUPLOT_H

#include <stdio.h>

struct report;

/* s as a gnuplot single-quoted string; -1 (nothing written) for a control character. */
int gp_str(FILE *f, const char *s);

/* nsubtitle and subtitle[1..]: the provenance lines under a chart's title; nonzero on a bad string. */
int gp_subtitle(FILE *f, const struct report *rep);

/*
 * gnuplot -e "fmt='FMT'" VARS SCRIPT in dir (so the scripts' relative
 * paths hold), argv only; its exit status, 127 if it could not start.
 */
int run_gnuplot(const char *dir, const char *fmt, const char *vars, const char *script);

#endif
