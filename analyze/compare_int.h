/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare's pieces, shared by the command (compare.c) and its writers: a
 * façade of compare_out.c (the table and JSON), compare_html.c,
 * compare_junit.c and compare_units.c (the loads with a unit).
 */
#ifndef IPSECPERF_COMPARE_INT_H
#define IPSECPERF_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "notes.h"
#include "results.h"

/* One side, BASE or NEW: one or more results directories, their runs pooled. */
struct side {
	const char *name;           /* "base" or "new" */
	struct results *src;        /* one per directory: its meta.json */
	int nsrc;
	struct results r;           /* the runs of every directory (run_record.source) */
	struct run_group *g;
	int ng;
	const char **kernels;
	int nk;
};

struct pair_row {
	const char *kernel_base, *kernel_new, *scenario;
	const struct run_group *gb, *gn;
	struct metric m;
	bool selected;
	bool decidable;             /* these runs can reach p < alpha */
	bool nodata;                /* a side has no value at all (no ok run) */
	char undecided[160];        /* why not, when !decidable */
	struct verdict v;
};

/* What the writers print. */
struct comparison {
	const struct side *b, *n;
	const struct pair_row *rows;
	int nrows;
	const struct compare_opts *o;
	const struct notes *notes;
	int nreg, nimp, nundecided; /* selected rows: regressions, improvements, undecidable */
	int nnodata;                /* selected rows without a value on a side */
	bool refused;               /* the sides are not comparable: no rows, exit 2 */
	int exit_status;
};

int compare_text(FILE *f, const struct comparison *c);
int compare_md(FILE *f, const struct comparison *c);
int compare_csv(FILE *f, const struct comparison *c);
int compare_json(FILE *f, const struct comparison *c);
int compare_junit(FILE *f, const struct comparison *c);
/* One self-contained page: notes, verdict, a chart per row (analyze/compare_html.c). */
int compare_html(FILE *f, const struct comparison *c);
/* "N regressions, ..." or "no regression beyond T% with p < A", as the text's verdict line. */
void compare_verdict_line(const struct comparison *c, char *buf, size_t len);

/* R regression, I improvement (selected, beyond the threshold), - or + significantly worse or better, else ' ' */
char compare_flag(const struct pair_row *r);
/* "better", "worse" or "same" for the metric's direction; NULL without a change */
const char *compare_direction(const struct pair_row *r);
const char *compare_fmt_p(char *buf, size_t len, double p);
const char *compare_test_name(enum compare_test t);
/* "throughput, cycles_per_byte" or "all metrics" */
void compare_selected_list(const struct compare_opts *o, char *buf, size_t len);
/*
 * The gate without --metric: the headline and cost metrics of each unit
 * BASE has, into out (6 at most); how many.
 */
int compare_default_metrics(const struct side *b, const char **out);
/* The note naming the latency percentiles whose runs had fewer than 10 transactions beyond them. */
void compare_tail_note(struct notes *notes, const struct side *b, const struct side *n, const struct pair_row *rows,
		       int nrows);
/* A metric's label in the tables: "throughput Gbit/s", "latency p99 us", a counter's name. */
const char *compare_metric_label(const struct metric *m, char *buf, size_t len);
/* "K" or "K1 -> K2" */
const char *compare_kernels(const struct pair_row *r, char *buf, size_t len);
/* A directory's provenance on one line: testbed, accelerator, host, CPU, duration, versions. */
void compare_dir_line(const struct side *s, int i, char *buf, size_t len);
/* Did a run of this side run under TCG? */
bool compare_emulated(const struct side *s);

#endif
