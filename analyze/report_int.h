/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the report's files share among themselves, not outside analyze/ (a
 * façade):
 * the provenance lines (report.c), the interval warnings (report_text.c),
 * the set-up and reproduce blocks (setup_block.c).
 */
#ifndef IPSECPERF_REPORT_INT_H
#define IPSECPERF_REPORT_INT_H

#include <stdio.h>

#include "report.h"

/* One line of a source's provenance: "host", "kernels", "command", ... */
struct report_kv {
	const char *key;
	char val[1024];
};

/* The provenance lines of source i (at most 12); returns how many. */
int report_provenance(const struct report *rep, int i, struct report_kv *kv, int max);

/* Source i's runs: how many measured throughput, how many counted (--count-repeats). */
void report_source_purposes(const struct report *rep, int i, int *measured, int *counted);

/* How many runs of r are not ok. */
int report_not_ok(const struct results *r);

/*
 * A warning for each kernel and scenario whose runs' 1 s intervals vary
 * by more than INTERVAL_CV_WARN; returns how many lines.
 */
int report_interval_warnings(FILE *f, const struct report *rep);

/* The set-up of each source as found (meta.json), for the text report (setup_block.c). */
void report_setup_text(FILE *f, const struct report *rep);

/* The text report's "ESP work per CPU" (report_cpus.c); -1 when out of memory. */
int report_text_cpus(FILE *f, const struct report *rep);

/*
 * Several SA pairs and the kernel's IPsec errors (report_pairs.c): the
 * text report's row per pair and per moved xfrm_stat counter of each
 * run; the summary's a kernel and scenario over its runs (-1: out of memory).
 */
void report_text_pairs(FILE *f, const struct report *rep);
int report_summary_pairs(FILE *f, const struct report *rep);

/* "reproduce:": each source's command and the tool's version and commit, clean or not. */
void report_reproduce_text(FILE *f, const struct report *rep);

#endif
