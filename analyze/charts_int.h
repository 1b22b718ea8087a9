/* SPDX-License-Identifier: GPL-2.0 */
/* What the chart writers share: a façade of charts.c, charts_time.c and charts_latency.c. */
#ifndef IPSECPERF_CHARTS_INT_H
#define IPSECPERF_CHARTS_INT_H

#include <stdio.h>

#include "report.h"

/*
 * The throughput-over-time chart of group g into the folder dfd (named
 * dir in messages), if its runs have intervals: *name gets its base name.
 * 1 if drawn, 0 if none, -1 on error (after a message).
 */
int time_chart(const struct report *rep, int dfd, const char *dir, int g, char **name);

/*
 * The request/response scenarios' latency as a percentile plot into the
 * folder dfd (named dir in messages): *name gets its base name. 1 if
 * drawn, 0 if no scenario has a latency distribution, -1 on error (after
 * a message).
 */
int latency_chart(const struct report *rep, int dfd, const char *dir, char **name);

#endif
