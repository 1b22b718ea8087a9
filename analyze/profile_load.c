// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the profiles of results directories: each ok run's record names
 * its folded stacks (raw/, or raw/<release>/ from a VM); they are read as
 * hostile data, reduced, and grouped by kernel and scenario.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "profile_load.h"
#include "results.h"

/* The group of one kernel and scenario, or NULL. */
struct pgroup *preport_group(const struct preport *r, const char *kernel, const char *scenario)
{
	for (int i = 0; i < r->ng; i++)
		if (!strcmp(r->g[i].kernel, kernel) && !strcmp(r->g[i].scenario, scenario))
			return &r->g[i];
	return NULL;
}

/* ... made (empty) when there is none yet. */
static struct pgroup *group_get(struct preport *r, const char *kernel, const char *scenario)
{
	struct pgroup *g = preport_group(r, kernel, scenario);

	if (g)
		return g;
	g = realloc(r->g, (r->ng + 1) * sizeof(*g));
	if (!g)
		return NULL;
	r->g = g;
	g = &r->g[r->ng++];
	*g = (struct pgroup){ .kernel = strdup(kernel), .scenario = strdup(scenario) };
	return g;
}

void preport_free(struct preport *r)
{
	for (int i = 0; i < r->ng; i++) {
		struct pgroup *g = &r->g[i];

		for (int k = 0; k < g->nruns; k++) {
			prof_summary_free(&g->runs[k]);
			prof_folded_free(&g->rfold[k]);
		}
		free(g->runs);
		free(g->rfold);
		prof_folded_free(&g->folded);
		prof_summary_free(&g->merged);
		free(g->kernel);
		free(g->scenario);
	}
	free(r->g);
	free(r->first_skip);
	*r = (struct preport){ 0 };
}

/* A string of a record that the report shows or uses, checked as data ("FILE:LINE: why"). */
static int check_text(const char *path, int line, const char *field, const char *v, char *err,
		      size_t errlen)
{
	return v ? results_check_field(path, line, field, v, strlen(v), err, errlen) : 0;
}

/* One record: its profile, reduced, into its group. 1 = no usable profile. */
/*
 * The folded stacks a run's record names (rel, in results folder dir) into
 * folded; path gets the file's path for messages. 0, or -1 after err.
 */
static int read_folded(const char *dir, const char *rel, const char *kernel, char *path, size_t pathlen,
		       struct prof_folded *folded, char *err, size_t errlen)
{
	char vmrel[600], *text;
	size_t len;

	/*
	 * The VM testbed brings a guest's raw/ files home into raw/<release>/;
	 * the kernel names a folder there only if it is a plain name.
	 */
	snprintf(path, pathlen, "%s/%s", dir, rel);
	if (access(path, F_OK) != 0 && !strncmp(rel, "raw/", 4) && !strchr(rel + 4, '/') &&
	    results_name_ok(kernel) && strlen(kernel) + strlen(rel) < sizeof(vmrel) - 8) {
		snprintf(vmrel, sizeof(vmrel), "raw/%s/%s", kernel, rel + 4);
		rel = vmrel;
		snprintf(path, pathlen, "%s/%s", dir, rel);
	}
	/* each component a plain name, no link followed: never a path outside */
	text = results_read(dir, rel, &len, err, errlen);
	if (!text)
		return -1;
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: holds a NUL byte; folded stacks are text", path);
		free(text);
		return -1;
	}
	if (prof_folded_parse(path, text, folded, err, errlen) < 0) {
		free(text);
		prof_folded_free(folded);
		return -1;
	}
	free(text);
	return 0;
}

static int add_record(struct preport *r, const char *dir, const char *runs_path, json_t *rec,
		      int line, char *err, size_t errlen)
{
	json_t *prof = json_object_get(rec, "profile"), *cpbj = json_object_get(rec, "cycles_per_byte");
	const char *kernel = json_string_value(json_object_get(rec, "kernel"));
	const char *scenario = json_string_value(json_object_get(rec, "scenario"));
	const char *status = json_string_value(json_object_get(rec, "status"));
	const char *rel = json_string_value(json_object_get(prof, "folded"));
	const char *pstatus = json_string_value(json_object_get(prof, "status"));
	const char *why = json_string_value(json_object_get(prof, "reason"));
	struct prof_folded folded = { 0 };
	struct prof_summary s, *runs;
	struct prof_folded *rfold;
	struct pgroup *g;
	char path[4096];

	/* kernel, scenario and status passed results_parse_runs's checks */
	if (check_text(runs_path, line, "\"profile.folded\"", rel, err, errlen) < 0 ||
	    check_text(runs_path, line, "\"profile.status\"", pstatus, err, errlen) < 0 ||
	    check_text(runs_path, line, "\"profile.reason\"", why, err, errlen) < 0)
		return -1;
	if (strcmp(status, "ok"))
		return 0;
	if (!prof || !rel || strcmp(pstatus ?: "", "ok")) {
		if (!r->first_skip) {
			snprintf(path, sizeof(path), "%.3000s:%d: %.900s", runs_path, line,
				 prof ? (why ? why : "no folded stacks") : "recorded without --profile");
			r->first_skip = strdup(path);
		}
		r->skipped++;
		return 1;
	}
	if (read_folded(dir, rel, kernel, path, sizeof(path), &folded, err, errlen) < 0)
		return -1;
	/* each group keeps its runs' stacks until the end: bound them all */
	r->nstacks += folded.n;
	if (r->nstacks > PROF_MAX_STACKS) {
		snprintf(err, errlen, "%s: more than %d stacks in the profiles read so far; refusing to read more",
			 path, PROF_MAX_STACKS);
		prof_folded_free(&folded);
		return -1;
	}
	g = group_get(r, kernel, scenario);
	if (!g || prof_reduce(&folded, json_is_number(cpbj) ? json_number_value(cpbj) : NAN, &s) < 0)
		goto nomem;
	/* room doubled when full: many records of one group cost linear time */
	if (g->nruns == g->cap) {
		int cap = g->cap ? 2 * g->cap : 8;

		runs = realloc(g->runs, cap * sizeof(*runs));
		if (runs)
			g->runs = runs;
		rfold = realloc(g->rfold, cap * sizeof(*rfold));
		if (rfold)
			g->rfold = rfold;
		if (!runs || !rfold) {
			prof_summary_free(&s);
			goto nomem;
		}
		g->cap = cap;
	}
	for (size_t i = 0; i < folded.n; i++)
		if (prof_folded_add(&g->folded, folded.v[i].stack, folded.v[i].count) < 0) {
			prof_summary_free(&s);
			goto nomem;
		}
	/* the run's own stacks are kept: a flame graph weighs each run by its cycles per byte */
	g->rfold[g->nruns] = folded;
	g->runs[g->nruns++] = s;
	g->hz = (int)json_integer_value(json_object_get(prof, "hz"));
	return 0;
nomem:
	prof_folded_free(&folded);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/*
 * The directory is checked by the results reader first (meta.json, and
 * runs.jsonl's strings, duplicates, limits, a torn last line), so that
 * report --profile refuses what report refuses; then each record's
 * "profile" is read.
 */
static int load_dir(struct preport *r, const char *dir, char *err, size_t errlen)
{
	struct results checked = { 0 };
	char path[4096], *text, *p;
	int line = 0, ret = 0;
	size_t len;

	if (results_check_dir(dir, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	text = results_read(dir, "meta.json", &len, err, errlen);
	if (!text || results_parse_meta(path, text, len, &checked.meta, err, errlen) < 0) {
		free(text);
		return -1;
	}
	results_meta_free(&checked.meta);
	free(text);
	snprintf(path, sizeof(path), "%s/runs.jsonl", dir);
	text = results_read(dir, "runs.jsonl", &len, err, errlen);
	if (!text)
		return -1;
	if (results_parse_runs(path, text, len, &checked, err, errlen) < 0) {
		results_free(&checked);
		free(text);
		return -1;
	}
	results_warn_torn(path, &checked);
	for (p = text; p && *p && ret >= 0 && line + 1 != checked.torn_line;) {
		char *nl = strchr(p, '\n');
		json_error_t jerr;
		json_t *rec;

		line++;
		if (nl)
			*nl = '\0';
		rec = json_loads(p, 0, &jerr);
		if (!json_is_object(rec)) {
			snprintf(err, errlen, "%s:%d: %s", path, line, rec ? "not an object" : jerr.text);
			ret = -1;
		} else if (add_record(r, dir, path, rec, line, err, errlen) < 0) {
			ret = -1;
		}
		json_decref(rec);
		p = nl ? nl + 1 : NULL;
	}
	results_free(&checked);
	free(text);
	return ret;
}

int profile_load(struct preport *r, char *const dirs[], int ndirs, char *err, size_t errlen)
{
	*r = (struct preport){ 0 };
	for (int i = 0; i < ndirs; i++)
		if (load_dir(r, dirs[i], err, errlen) < 0) {
			preport_free(r);
			return EXIT_USAGE;
		}
	if (!r->ng) {
		snprintf(err, errlen, "no profiles in %s%s%s; record them with `ipsecperf run --profile`", dirs[0],
			 r->first_skip ? ": " : "", r->first_skip ? r->first_skip : "");
		preport_free(r);
		return EXIT_USAGE;
	}
	for (int i = 0; i < r->ng; i++) {
		prof_folded_finish(&r->g[i].folded);
		if (prof_merge(r->g[i].runs, r->g[i].nruns, &r->g[i].merged) < 0) {
			snprintf(err, errlen, "out of memory");
			preport_free(r);
			return EXIT_FAIL;
		}
		r->with_kernel |= strcmp(r->g[i].kernel, r->g[0].kernel) != 0;
	}
	return EXIT_OK;
}
