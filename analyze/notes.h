/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The notes of a comparison or a report: why a gate could not fail, what
 * was left out, what differs between results directories. Each has a code
 * that a script can test and a sentence for people; the text output, JSON
 * and JUnit carry the same list.
 */
#ifndef IPSECPERF_NOTES_H
#define IPSECPERF_NOTES_H

#include <jansson.h>
#include <stdbool.h>

struct note {
	const char *code;   /* "mismatch", "not_recorded", "too_few_runs", ... (static) */
	const char *field;  /* the provenance field of a mismatch (static), else NULL */
	bool allowed;       /* a mismatch accepted with --allow-mismatch */
	char *text;         /* one sentence, control characters replaced by '?' */
};

struct notes {
	struct note *v;
	int n;
};

/* Replace control characters by '?': names and versions come from results directories. */
void text_clean(char *s);

/* Add a note; returns its index, or -1 when out of memory. */
int notes_add(struct notes *ns, const char *code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Add to note i's text. */
void notes_append(struct notes *ns, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The first note with this code (and field, unless NULL), or NULL. */
struct note *notes_find(const struct notes *ns, const char *code, const char *field);
void notes_free(struct notes *ns);

/* [{"code", "text", "field"?, "allowed"?}, ...] */
json_t *notes_json(const struct notes *ns);

#endif
