// SPDX-License-Identifier: GPL-2.0
/*
 * Where a run's work ran (results.h, struct run_spread): the per-CPU
 * figures of a record read and checked, their summary, and the sums of a
 * group's runs that the report's "ESP work per CPU" and compare's
 * top_cpu_share rows are made of.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "results_int.h"
#include "name_list.h"

void cpu_spread_of(const double *v, int n, struct cpu_spread *s)
{
	memset(s, 0, sizeof(*s));
	s->ncpu = n;
	s->top = -1;
	for (int i = 0; i < n; i++) {
		s->total += v[i];
		if (v[i] > 0)
			s->used++;
		if (v[i] > 0 && (s->top < 0 || v[i] > v[s->top]))
			s->top = i;
	}
	if (s->total > 0 && s->top >= 0)
		s->top_share = v[s->top] / s->total;
	else
		s->top = -1;
}

/* One spread: a list of at most RESULTS_MAX_CPUS finite figures from 0; null or absent is none. */
static int add_spread(struct run_record *rec, const char *name, const char *suffix, json_t *a, const char *where,
		      char *err, size_t errlen)
{
	struct run_spread *sp;
	size_t i;
	json_t *x;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > RESULTS_MAX_CPUS)
		return results_fail(err, errlen, "%s must be a list of at most %d figures, not %s", where, RESULTS_MAX_CPUS,
				    results_json_kind(a));
	if (rec->nspreads >= RESULTS_MAX_SPREADS)
		return results_fail(err, errlen, "more than %d per-CPU lists in one record", RESULTS_MAX_SPREADS);
	sp = &rec->spreads[rec->nspreads];
	sp->v = calloc(json_array_size(a) + 1, sizeof(*sp->v));
	sp->name = malloc(strlen(name) + strlen(suffix) + 1);
	if (!sp->v || !sp->name) {
		free(sp->v);
		free(sp->name);
		return results_fail(err, errlen, "out of memory");
	}
	sprintf(sp->name, "%s%s", name, suffix);
	rec->nspreads++;
	json_array_foreach(a, i, x) {
		double d = json_number_value(x);

		if (!json_is_number(x) || !isfinite(d) || d < 0)
			return results_fail(err, errlen, "%s[%zu] must be a finite number >= 0", where, i);
		sp->v[sp->n++] = d;
	}
	return 0;
}

/* A counter's name as parse_counters takes it: [A-Za-z0-9_.-], 1-100 characters. */
static bool plain_counter(const char *name)
{
	size_t n = strlen(name);

	return n && n <= 100 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int counters_spreads(json_t *cs, const char *key, const char *suffix, struct run_record *rec, char *err,
			    size_t errlen)
{
	const char *name;
	json_t *v;

	if (!json_is_object(cs))
		return 0;
	json_object_foreach(cs, name, v) {
		char where[160];

		if (!json_is_object(v) || !json_object_get(v, "per_cpu"))
			continue;
		if (!plain_counter(name))
			return results_fail(err, errlen, "%s: a counter's name is not a name ([A-Za-z0-9_.-], 1-100 characters)", key);
		snprintf(where, sizeof(where), "%s.%s.per_cpu", key, name);
		if (add_spread(rec, name, suffix, json_object_get(v, "per_cpu"), where, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int results_spreads_parse(json_t *o, struct run_record *rec, char *err, size_t errlen)
{
	json_t *busy = json_object_get(o, "cpu_busy_s");

	rec->spreads = calloc(RESULTS_MAX_SPREADS, sizeof(*rec->spreads));
	if (!rec->spreads)
		return results_fail(err, errlen, "out of memory");
	if (counters_spreads(json_object_get(o, "counters"), "counters", "", rec, err, errlen) < 0 ||
	    counters_spreads(json_object_get(o, "counters_receiver"), "counters_receiver", "@receiver", rec, err,
			     errlen) < 0)
		return -1;
	if (!json_is_object(busy))
		return 0;
	if (add_spread(rec, "busy_s", "", json_object_get(busy, "per_cpu"), "cpu_busy_s.per_cpu", err, errlen) < 0 ||
	    add_spread(rec, "busy_s", "@receiver", json_object_get(busy, "per_cpu_receiver"),
		       "cpu_busy_s.per_cpu_receiver", err, errlen) < 0)
		return -1;
	return 0;
}

void results_spreads_free(struct run_record *rec)
{
	for (int i = 0; rec->spreads && i < rec->nspreads; i++) {
		free(rec->spreads[i].name);
		free(rec->spreads[i].v);
	}
	free(rec->spreads);
	rec->spreads = NULL;
	rec->nspreads = 0;
}

const struct run_spread *run_spread_find(const struct run_record *rec, const char *name)
{
	for (int i = 0; i < rec->nspreads; i++)
		if (!strcmp(rec->spreads[i].name, name))
			return &rec->spreads[i];
	return NULL;
}

int group_spreads(const struct results *r, const struct run_group *g, const char ***names, int *n)
{
	int cap = 0;

	*names = NULL;
	*n = 0;
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		for (int s = 0; rec->status == RUN_OK && s < rec->nspreads; s++)
			if (names_add_once(names, n, &cap, rec->spreads[s].name) < 0)
				return -1;
	}
	return 0;
}

/* Take the counting runs for this spread? Where any ok counting run has it (as the counters do). */
bool results_spread_from_counting(const struct results *r, const struct run_group *g, const char *name)
{
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->counting && rec->status == RUN_OK && run_spread_find(rec, name))
			return true;
	}
	return false;
}

int group_spread_sum(const struct results *r, const struct run_group *g, const char *name, double **sum, int *ncpu)
{
	bool counting = results_spread_from_counting(r, g, name);
	int runs = 0;

	*sum = NULL;
	*ncpu = 0;
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];
		const struct run_spread *sp = rec->status == RUN_OK && rec->counting == counting ? run_spread_find(rec, name)
												  : NULL;

		if (!sp)
			continue;
		if (sp->n > *ncpu) {
			double *ns = realloc(*sum, sp->n * sizeof(*ns));

			if (!ns) {
				free(*sum);
				*sum = NULL;
				*ncpu = 0;
				return -1;
			}
			memset(ns + *ncpu, 0, (sp->n - *ncpu) * sizeof(*ns));
			*sum = ns;
			*ncpu = sp->n;
		}
		for (int c = 0; c < sp->n; c++)
			(*sum)[c] += sp->v[c];
		runs++;
	}
	return runs;
}
