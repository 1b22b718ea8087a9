/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report of a bisect: every step (its commit, the medians of the
 * deciding metric for the good revision and for it, run in turn in one
 * session, the change, the p-value and the verdict, and the time its
 * build, or "cached", and its runs took), then the first bad commit, or
 * why there is none (with the revisions it may be when only skipped ones
 * are left). Plain text in 80 columns, for a mail.
 */
#ifndef IPSECPERF_BISECT_REPORT_H
#define IPSECPERF_BISECT_REPORT_H

#include <jansson.h>
#include <stdio.h>

struct bisect_summary {
	const char *metric;
	double threshold, alpha;
	int repeat;
	json_t *scenarios;                     /* strings */
	const char *good_short, *good_subject; /* the revisions given */
	const char *bad_short, *bad_subject;
	const char *first_bad, *first_bad_subject; /* NULL: not found ... */
	const char *outcome;                   /* ... and why */
	json_t *suspects;                      /* only skipped ones left: what git names (sha, short, subject, verdict), or NULL */
	double total_s;
};

/* steps: the records of OUT/steps.jsonl, the good revision's first. -1 if f failed. */
int bisect_report(FILE *f, const struct bisect_summary *b, json_t *steps);

#endif
