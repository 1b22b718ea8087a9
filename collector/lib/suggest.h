/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "did you mean": the closest of the names a command, an option or a
 * scenario could have been, by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours, one each).
 *
 *	struct suggest s;
 *	suggest_init(&s, word);
 *	for (...) suggest_try(&s, name);
 *	if (suggest_best(&s)) ... "did you mean '%s'?"
 */
#ifndef IPSECPERF_SUGGEST_H
#define IPSECPERF_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *word;
	const char *best; /* the closest so far, or NULL */
	int dist;
};

void suggest_init(struct suggest *s, const char *word);
void suggest_try(struct suggest *s, const char *name);

/* The closest name, or NULL when none is close enough to be a typo of the word. */
const char *suggest_best(const struct suggest *s);

/* The edit distance of a and b, or SUGGEST_FAR when either is longer than SUGGEST_MAX_LEN. */
#define SUGGEST_MAX_LEN 63
#define SUGGEST_FAR 1000
int suggest_distance(const char *a, const char *b);

/* "; did you mean 'NAME'?" into buf, or "" when nothing is close. */
void suggest_hint(const struct suggest *s, char *buf, size_t len);

#endif
