// SPDX-License-Identifier: GPL-2.0
/* "did you mean": the optimal string alignment distance (Damerau-Levenshtein without reuse). */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int suggest_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SUGGEST_FAR;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

void suggest_init(struct suggest *s, const char *word)
{
	*s = (struct suggest){ .word = word, .best = NULL, .dist = SUGGEST_FAR };
}

void suggest_try(struct suggest *s, const char *name)
{
	int d = suggest_distance(s->word, name);

	if (d < s->dist) {
		s->dist = d;
		s->best = name;
	}
}

const char *suggest_best(const struct suggest *s)
{
	size_t len = strlen(s->word);
	/* a typo: one edit in a short word, two in a longer one; never a whole other word */
	int most = len <= 3 ? 1 : 2;

	return s->best && s->dist > 0 && s->dist <= most && (size_t)s->dist < len ? s->best : NULL;
}

void suggest_hint(const struct suggest *s, char *buf, size_t len)
{
	const char *best = suggest_best(s);

	if (best)
		snprintf(buf, len, "; did you mean '%s'?", best);
	else if (len)
		buf[0] = '\0';
}
