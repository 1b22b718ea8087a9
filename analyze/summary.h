/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain-text summary of a results directory: ASCII, at most 72 columns,
 * one table per kernel, one row per scenario in the order of runs.jsonl.
 * `ipsecperf run` prints it at its end; `ipsecperf report` builds on it.
 */
#ifndef IPSECPERF_SUMMARY_H
#define IPSECPERF_SUMMARY_H

#include <stdbool.h>
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

/*
 * Runs not ok are said once per kernel, scenario, status and reason: is
 * r->runs[i] the first of its group? Then *n is how many runs the group
 * holds, *first and *last their lowest and highest repeat.
 */
bool summary_not_ok_group(const struct results *r, int i, int *n, int *first, int *last);

/* The CV warnings for throughput and cycles per byte (transactions, datagrams); returns how many. */
int summary_cv_warnings(FILE *f, const struct results *r);

/*
 * Kernel's request/response scenarios: each run's latency percentiles,
 * median over the runs, and whether the runs had the transactions the
 * tail needs. 0, or -1 out of memory.
 */
int summary_latency_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel);
/* Kernel's packet-rate scenarios: datagram size, bit rate, loss, the search's steps. 0 or -1. */
int summary_rate_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel);
/*
 * "n: runs with status ok; ratio: ..." naming each unit's first scenario
 * (NULL: none of that unit), and the medians' intervals' coverage (cover
 * above 1: no interval).
 */
void summary_ratio_note(FILE *f, const char *const base_name[3], double cover);
/* The values of metric kind k over g's runs, their statistics; 0 or -1 out of memory. */
int summary_group_stats(const struct results *r, const struct run_group *g, enum metric_kind k, struct stats *s);

/* ---- formatting shared by the report writers ---- */

/* Decimals that give about 4 significant digits for v (0..6). */
int fmt_decimals(double v);
/* The same for sig significant digits. */
int fmt_decimals_sig(double v, int sig);

/*
 * A text table whose columns are as wide as their widest cell: figures of
 * very different sizes (10 Gbit/s on a host, 0.02 Gbit/s under TCG) keep
 * their columns. Cells are at most TAB_CELL - 1 characters.
 */
#define TAB_MAXCOLS 10
#define TAB_CELL 48
struct tab {
	int ncols, nrows, cap;
	const char *head[TAB_MAXCOLS];
	bool left[TAB_MAXCOLS];        /* left-aligned (names) or right (figures) */
	char (*cell)[TAB_MAXCOLS][TAB_CELL];
};

void tab_init(struct tab *t, int ncols, const char *const *heads, const bool *left);
/* Append a row; returns its index, or -1 when out of memory. */
int tab_row(struct tab *t);
/* printf into a cell */
void tab_set(struct tab *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Column widths into w; returns the width of a whole line. */
int tab_widths(const struct tab *t, int *w);
/* Header, dashes and rows; an optional line above spans column groups:
 * groups[i] names the group starting at column i (NULL for none). */
void tab_print(FILE *f, const struct tab *t, const char *const *groups);
void tab_free(struct tab *t);
/* v with d decimals, or "-" for NAN, into buf. */
const char *fmt_num(char *buf, size_t len, double v, int d);
/*
 * The median's interval (stats_median_interval: min-max up to 8 runs) as
 * "lo-hi" with d decimals, or "-" below 2 runs or without s.
 */
const char *fmt_interval(char *buf, size_t len, const struct stats *s, int d);
/* The interval's coverage, "93.7%" (rounded down), or "-". */
const char *fmt_cover(char *buf, size_t len, double cover);
/* Print text wrapped at REPORT_COLUMNS, continuation lines indented by indent. */
void fputs_wrapped(FILE *f, const char *text, int first_indent, int indent);
/* The same, the cursor being at column col already (nothing printed first). */
void fputs_wrapped_at(FILE *f, const char *text, int col, int indent);

#endif
