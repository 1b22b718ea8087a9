/* SPDX-License-Identifier: GPL-2.0 */
/* What the chart writers (charts.c, charts_time.c) share. */
#ifndef IPSECPERF_CHARTS_INT_H
#define IPSECPERF_CHARTS_INT_H

#include <stdio.h>

#include "report.h"

/* s as a gnuplot single-quoted string; -1 (nothing written) for a control character. */
int gp_str(FILE *f, const char *s);

/* nsubtitle and subtitle[1..]: the provenance lines under a chart's title; nonzero on a bad string. */
int gp_subtitle(FILE *f, const struct report *rep);

/* gnuplot -e "fmt='FMT'" VARS SCRIPT in dir, argv only; its exit status. */
int run_gnuplot(const char *dir, const char *fmt, const char *vars, const char *script);

/*
 * The throughput-over-time chart of group g into dir, if its runs have
 * intervals: *name gets its base name. 1 if drawn, 0 if none, -1 on error
 * (after a message).
 */
int time_chart(const struct report *rep, const char *dir, int g, char **name);

#endif
