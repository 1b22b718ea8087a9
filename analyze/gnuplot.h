/* SPDX-License-Identifier: GPL-2.0 */
/* Writing gnuplot scripts and running gnuplot, for the chart writers. */
#ifndef IPSECPERF_GNUPLOT_H
#define IPSECPERF_GNUPLOT_H

#include <stdio.h>
#include <sys/types.h>

struct report;

/* s as a gnuplot single-quoted string; -1 (nothing written) for a control character. */
int gp_str(FILE *f, const char *s);

/* nsubtitle and subtitle[1..]: the provenance lines under a chart's title; nonzero on a bad string. */
int gp_subtitle(FILE *f, const struct report *rep);

/*
 * gnuplot -e "fmt='FMT'" VARS SCRIPT in the folder open as dfd (so the
 * scripts' relative paths hold, in the folder checked, whatever its path
 * names meanwhile), argv only; its exit status, 127 if it could not start.
 */
int run_gnuplot(int dfd, const char *fmt, const char *vars, const char *script);

/*
 * A new file name in the chart folder dfd, for writing: O_CREAT, O_EXCL
 * and O_NOFOLLOW (the folder is new or empty: nothing is replaced, nothing
 * followed). NULL with errno.
 */
FILE *chart_file(int dfd, const char *name, mode_t mode);

#endif
