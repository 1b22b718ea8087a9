/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ipsecperf report`: text, markdown, CSV, JSON, HTML and gnuplot charts.
 * This header is the façade of the files analyze/report*.c, one job each:
 * report.c (load and pool the DIRs into rows), report_cmd.c (the command
 * and its table of formats), report_text.c, report_md.c, report_csv.c,
 * report_json.c, report_html.c (one format each); and of the charts,
 * report_charts and templates_dir (charts.c), report_chart_subtitle
 * (gnuplot.c). What they share among themselves is in report_int.h.
 */
#ifndef IPSECPERF_REPORT_H
#define IPSECPERF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "notes.h"
#include "results.h"
#include "stats.h"

/* One figure of the report: a metric of one (kernel, scenario). */
struct report_row {
	const struct run_group *g;
	int k;                      /* g's kernel: index into report.kernels */
	struct metric m;
	struct stats s;
	double ratio;               /* median / the first scenario's (throughput); else NAN */
	const char *unavailable;    /* the counter's "unavailable: ..." symbol when n == 0 */
};

struct report {
	struct results *src;        /* one per DIR, meta only (runs moved to all) */
	int nsrc;
	struct results all;         /* every run of every DIR */
	struct run_group *groups;
	int ngroups;
	const char **kernels;
	int nkernels;
	struct report_row *rows;
	int nrows;
	struct notes notes;         /* directories pooled although they differ, fields not recorded */
};

/* What `ipsecperf report` was asked for (collector/cmd/cmd_report.c parses it). */
struct report_opts {
	const char *format;  /* text, md (markdown), csv, json or html */
	const char *output;  /* a file, or NULL for standard output */
	const char *charts;  /* draw the charts there too, or NULL */
	unsigned allow;      /* provenance fields that may differ in a pool */
	bool side_by_side;   /* text: the kernels side by side too */
	bool summary;        /* text: the provenance and the summary table only (a mail) */
};

/* -f's formats, NULL-terminated, in the order they are named (report_cmd.c). */
extern const char *const report_format_names[];

/* The report on DIRs as o says; an exit status (2: bad usage or input, said). */
int report_run(const struct report_opts *o, char *const dirs[], int ndirs);

/* Load and merge DIRs; -1 after printing the reason. */
int report_load(struct report *rep, char *const dirs[], int ndirs);
void report_free(struct report *rep);

/*
 * Runs of one kernel and scenario from several DIRs are pooled only if
 * they were measured alike (provenance.h); fields in allow may differ.
 * -1 after printing each refused difference.
 */
int report_check_pool(struct report *rep, unsigned allow);

int report_text(FILE *f, const struct report *rep);
/* The text report's provenance and summary table only: what goes into a mail. */
int report_summary(FILE *f, const struct report *rep);
/* The text report, then the kernels side by side (run's table after a VM matrix). */
int report_side_by_side(FILE *f, const struct report *rep);
int report_markdown(FILE *f, const struct report *rep);
int report_csv(FILE *f, const struct report *rep);
int report_json(FILE *f, const struct report *rep);
/*
 * HTML with the charts inlined as SVG; chart_dfd is the folder they were
 * drawn in (or -1); no_charts, if not NULL, says why there are none.
 */
int report_html(FILE *f, const struct report *rep, int chart_dfd, int ncharts,
		char **chart_names, const char *no_charts);

/*
 * Write the charts' data files, gnuplot scripts (from the templates) and
 * PNG + SVG images into the folder open as dfd (a new or empty one, named
 * dir in messages): each file is made new there (O_EXCL, O_NOFOLLOW) and
 * gnuplot runs in it (fchdir), so a folder swapped for a symlink after it
 * was checked takes nothing. *names receives the chart base names (caller
 * frees each and the array). Returns the number of charts or -1.
 */
int report_charts(const struct report *rep, int dfd, const char *dir, char ***names);

/* The provenance under each chart's title: kernels, hosts, testbed, accelerator, TCG caution. */
void report_chart_subtitle(const struct report *rep, char *buf, size_t len);

/*
 * Why a counter is not drawn: its "unavailable: ..." reason, "no value
 * recorded" or "zero in every run"; NULL when some run has a value.
 */
const char *report_counter_not_drawn(const struct report *rep, const char *counter);

/* Where the gnuplot templates are: $IPSECPERF_TEMPLATES, or next to the program. */
const char *templates_dir(void);

/* Unit of a metric for headers: "Gbit/s", "cycles/byte", "per packet". */
const char *metric_unit(const struct metric *m);

#endif
