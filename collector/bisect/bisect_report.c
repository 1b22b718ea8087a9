// SPDX-License-Identifier: GPL-2.0
/* The report of a bisect, one row per step (and scenario), for a mail. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bisect_report.h"
#include "progress.h"

static const char *num(char *buf, size_t len, json_t *v, const char *fmt)
{
	if (!json_is_number(v) || isnan(json_number_value(v)))
		return "-";
	snprintf(buf, len, fmt, json_number_value(v));
	return buf;
}

static const char *pval(char *buf, size_t len, json_t *v)
{
	if (!json_is_number(v) || isnan(json_number_value(v)))
		return "-";
	if (json_number_value(v) < 0.0001)
		return "<1e-4";
	snprintf(buf, len, "%.4f", json_number_value(v));
	return buf;
}

static const char *secs(char *buf, size_t len, json_t *v)
{
	if (!json_is_number(v))
		return "-";
	format_duration(buf, len, json_number_value(v));
	return buf;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

/*
 * One step: a row per scenario, then its subject and the phases' times.
 * The good revision (step 0) has no row of figures: it is run with every
 * later step, whose row has its medians from that step's run.
 */
static void step_rows(FILE *f, json_t *st)
{
	json_t *figs = json_object_get(st, "figures"), *fg;
	const char *verdict = str(st, "verdict");
	char b1[32], b2[32], b3[32], b4[32], kb[16], t1[32], t2[32], v0[32];
	int k = (int)json_integer_value(json_object_get(st, "step"));
	size_t i;

	if (k == 0) {
		snprintf(v0, sizeof(v0), "%s (--good)", verdict);
		verdict = v0;
	}
	snprintf(kb, sizeof(kb), "%d", k);
	if (!json_array_size(figs))
		fprintf(f, "%4d %-12.12s %-12s %8s %8s %7s %7s  %s\n", k, str(st, "short"), "-", "-", "-", "-", "-",
			verdict);
	json_array_foreach(figs, i, fg) {
		fprintf(f, "%4s %-12.12s %-12.12s %8s %8s %7s %7s%s%s\n", i ? "" : kb, i ? "" : str(st, "short"),
			str(fg, "scenario"), num(b1, sizeof(b1), json_object_get(fg, "good"), "%.4g"),
			num(b2, sizeof(b2), json_object_get(fg, "this"), "%.4g"),
			num(b3, sizeof(b3), json_object_get(fg, "change_pct"), "%+.1f%%"),
			pval(b4, sizeof(b4), json_object_get(fg, "p")), i ? "" : "  ", i ? "" : verdict);
	}
	fprintf(f, "     %-46.46s  build %5s  run %5s\n", str(st, "subject"),
		json_is_true(json_object_get(st, "cached")) ? "cached"
							    : secs(t1, sizeof(t1), json_object_get(st, "build_s")),
		secs(t2, sizeof(t2), json_object_get(st, "run_s")));
	if (json_string_value(json_object_get(st, "why")) && strcmp(str(st, "verdict"), "bad") &&
	    (strcmp(str(st, "verdict"), "good") || !json_array_size(figs)))
		fprintf(f, "     %.74s\n", str(st, "why"));
}

/* The unit of the first figure of any step. */
static const char *first_unit(json_t *steps)
{
	json_t *st;
	size_t i;

	json_array_foreach(steps, i, st)
		if (json_array_size(json_object_get(st, "figures")))
			return json_string_value(json_object_get(json_array_get(json_object_get(st, "figures"), 0),
								 "unit"));
	return NULL;
}

/* No first bad commit: why, and the revisions it may be when only skipped ones are left. */
static void no_first_bad(FILE *f, const struct bisect_summary *b)
{
	json_t *c;
	size_t i;

	fprintf(f, "no first bad commit: %s\n", b->outcome ? b->outcome : "the bisect did not finish");
	if (json_array_size(b->suspects))
		fprintf(f, "it is one of these %zu:\n", json_array_size(b->suspects));
	json_array_foreach(b->suspects, i, c)
		fprintf(f, "  %-12.12s %-48.48s %.14s\n", str(c, "short"), str(c, "subject"), str(c, "verdict"));
}

int bisect_report(FILE *f, const struct bisect_summary *b, json_t *steps)
{
	char total[32];
	const char *u = first_unit(steps);
	json_t *st;
	size_t i;

	fprintf(f, "ipsecperf bisect: the %s of", b->metric);
	json_array_foreach(b->scenarios, i, st)
		fprintf(f, "%s %s", i ? "," : "", json_string_value(st));
	fprintf(f, ", %d runs a revision.\n", b->repeat);
	fprintf(f, "Each revision ran in turn with the good one, a boot each per run; it is\n");
	fprintf(f, "bad when worse than the good one by more than %g%% with p < %g\n", b->threshold, b->alpha);
	fprintf(f, "(Mann-Whitney U, exact); figures are medians%s%s.\n", u ? " in " : "", u ? u : "");
	fprintf(f, "good: %s %s\nbad:  %s %s\n\n", b->good_short, b->good_subject, b->bad_short, b->bad_subject);
	fprintf(f, "%4s %-12s %-12s %8s %8s %7s %7s  %s\n", "step", "commit", "scenario", "good", "this", "change",
		"p", "verdict");
	json_array_foreach(steps, i, st)
		step_rows(f, st);
	fputc('\n', f);
	if (b->first_bad)
		fprintf(f, "first bad commit: %s %s\n", b->first_bad, b->first_bad_subject ? b->first_bad_subject : "");
	else
		no_first_bad(f, b);
	format_duration(total, sizeof(total), b->total_s);
	fprintf(f, "%zu step(s) after the good revision, in %s\n", json_array_size(steps) ? json_array_size(steps) - 1 : 0,
		total);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
