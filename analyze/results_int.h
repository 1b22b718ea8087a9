/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the results reader's files share among themselves, not outside
 * analyze/, a façade: results_input.c defines them, but results_record_free
 * (results_runs.c).
 */
#ifndef IPSECPERF_RESULTS_INT_H
#define IPSECPERF_RESULTS_INT_H

#include <jansson.h>
#include <stddef.h>

#include "results.h"

/* The message into err (errlen bytes); returns -1. */
__attribute__((format(printf, 3, 4)))
int results_fail(char *err, size_t errlen, const char *fmt, ...);

/* strdup(s), NULL for NULL; aborts when out of memory. */
char *results_strdup(const char *s);

/* "an object", "a string", ... for a message about a JSON value's type */
const char *results_json_kind(const json_t *v);

/* "0x0a at byte 7" for the message about the control character p in s */
const char *results_bad_char_what(const char *s, const char *p, char *buf, size_t len);

/*
 * The record's per-CPU figures (results_spread.c): counters.<name>.per_cpu,
 * counters_receiver.<name>.per_cpu, cpu_busy_s.per_cpu and
 * per_cpu_receiver into rec->spreads; -1 with the message in err.
 */
int results_spreads_parse(json_t *o, struct run_record *rec, char *err, size_t errlen);
void results_spreads_free(struct run_record *rec);
/* Does an ok counting run of g have the spread name? Then its figures are the counting runs'. */
bool results_spread_from_counting(const struct results *r, const struct run_group *g, const char *name);

/* Frees what a run record holds, and zeroes it. */
void results_record_free(struct run_record *rec);

#endif
