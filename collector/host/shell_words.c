// SPDX-License-Identifier: GPL-2.0
/*
 * The one place ipsecperf builds a command string, and reads one back
 * (remote.h): words shell-quoted for ssh's remote shell, and those words
 * split again as data for a key pinned to the agent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

/* Characters that mean nothing to a POSIX shell in an unquoted word. */
static const char safe_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%";

char *shell_quote(const char *s)
{
	size_t n = 3;
	char *q, *p;

	if (*s && !s[strspn(s, safe_chars)])
		return strdup(s);
	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	q = p = malloc(n);
	if (!q)
		return NULL;
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4); /* close, an escaped quote, reopen */
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

char *shell_join(char *const argv[])
{
	char *out = NULL;
	size_t len = 0;
	FILE *m;

	if (!argv || !argv[0])
		return NULL;
	m = open_memstream(&out, &len);
	if (!m)
		return NULL;
	for (int i = 0; argv[i]; i++) {
		char *q = shell_quote(argv[i]);

		if (!q) {
			fclose(m);
			free(out);
			return NULL;
		}
		fprintf(m, "%s%s", i ? " " : "", q);
		free(q);
	}
	fclose(m);
	return out;
}

/* One word of shell_join's at *p (quoted or plain), its text appended to w; false when it is not one. */
static bool split_word(const char **p, char *w)
{
	const char *s = *p;
	size_t n = 0;

	if (*s != '\'') {
		n = strspn(s, safe_chars);
		if (!n)
			return false;
		memcpy(w, s, n);
		w[n] = '\0';
		*p = s + n;
		return true;
	}
	for (s++;;) {
		const char *q = strchr(s, '\'');

		if (!q)
			return false;
		memcpy(w + n, s, q - s);
		n += q - s;
		if (strncmp(q, "'\\''", 4)) { /* the word's closing quote */
			w[n] = '\0';
			*p = q + 1;
			return true;
		}
		w[n++] = '\'';
		s = q + 4;
	}
}

char **shell_split(const char *s)
{
	size_t max = strlen(s) / 2 + 2, n = 0;
	char **w = s[0] ? calloc(max, sizeof(*w)) : NULL, *word = malloc(strlen(s) + 1);

	while (w && word) {
		if (n + 1 >= max || !split_word(&s, word) || !(w[n++] = strdup(word)) ||
		    (*s && (*s != ' ' || !*++s)))
			break;
		if (!*s) {
			free(word);
			return w;
		}
	}
	free(word);
	remote_argv_free(w);
	return NULL;
}

void remote_argv_free(char **a)
{
	for (size_t i = 0; a && a[i]; i++)
		free(a[i]);
	free(a);
}
