/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain-text summary of a results directory: ASCII, at most 72 columns,
 * one table per kernel, one row per scenario in the order of runs.jsonl.
 * `ipsecperf run` prints it at its end; `ipsecperf report` builds on it.
 */
#ifndef IPSECPERF_SUMMARY_H
#define IPSECPERF_SUMMARY_H

#include <stdio.h>

#include "results.h"
#include "stats.h"

#define REPORT_COLUMNS 72
#define CV_WARN 0.05 /* a scenario whose CV exceeds this gets a warning */

/* Load DIR and print the summary. Returns 0, or -1 after printing one
 * "ipsecperf: ..." line to stderr on bad input. */
int summary_print(FILE *f, const char *dir);

/* The summary tables of loaded results (no header). Returns 0 or -1 (write error). */
int summary_tables(FILE *f, const struct results *r);

/* The CV warnings for throughput and cycles per byte; returns how many. */
int summary_cv_warnings(FILE *f, const struct results *r);

/* ---- formatting helpers shared by the report writers ---- */

/* Decimals that give about 4 significant digits for v (0..6). */
int fmt_decimals(double v);
/* v with d decimals, or "-" for NAN, into buf. */
const char *fmt_num(char *buf, size_t len, double v, int d);
/* "min-max" with d decimals, or "-" when n < 2. */
const char *fmt_range(char *buf, size_t len, const struct stats *s, int d);
/* Print text wrapped at REPORT_COLUMNS, continuation lines indented by indent. */
void fputs_wrapped(FILE *f, const char *text, int first_indent, int indent);
/* The same, the cursor being at column col already (nothing printed first). */
void fputs_wrapped_at(FILE *f, const char *text, int col, int indent);

#endif
