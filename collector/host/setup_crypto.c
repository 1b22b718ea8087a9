// SPDX-License-Identifier: GPL-2.0
/* The crypto driver /proc/crypto bound to an SA's algorithm (setup.h). */
#include "setup.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

#define CRYPTO_KEEP 8

struct entry {
	char name[128], driver[128], module[64];
	int priority, refcnt;
};

/* "key : value" of one line into e */
static void entry_line(struct entry *e, const char *l, size_t n)
{
	static const struct { const char *key; size_t off, len; } keys[] = {
		{ "name", offsetof(struct entry, name), sizeof(((struct entry *)0)->name) },
		{ "driver", offsetof(struct entry, driver), sizeof(((struct entry *)0)->driver) },
		{ "module", offsetof(struct entry, module), sizeof(((struct entry *)0)->module) },
	};
	const char *colon = memchr(l, ':', n);
	size_t kl;

	if (!colon)
		return;
	for (kl = colon - l; kl && l[kl - 1] == ' '; kl--)
		;
	const char *v = colon + 1;

	while (v < l + n && *v == ' ')
		v++;
	int vl = (int)(l + n - v);

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (kl == strlen(keys[i].key) && !memcmp(l, keys[i].key, kl))
			snprintf((char *)e + keys[i].off, keys[i].len, "%.*s", vl, v);
	if (kl == 8 && !memcmp(l, "priority", 8))
		e->priority = atoi(v);
	if (kl == 6 && !memcmp(l, "refcnt", 6))
		e->refcnt = atoi(v);
}

/* Keep e among the CRYPTO_KEEP longest names (the outermost templates first). */
static void keep(struct entry *kept, int *n, const struct entry *e)
{
	int i = *n < CRYPTO_KEEP ? (*n)++ : CRYPTO_KEEP - 1;

	if (i == CRYPTO_KEEP - 1 && *n == CRYPTO_KEEP && strlen(kept[i].name) >= strlen(e->name))
		return;
	while (i > 0 && strlen(kept[i - 1].name) < strlen(e->name)) {
		kept[i] = kept[i - 1];
		i--;
	}
	kept[i] = *e;
}

json_t *setup_crypto_parse(const char *text, const char *alg)
{
	struct entry kept[CRYPTO_KEEP], e;
	json_t *a = json_array();
	int n = 0;

	memset(&e, 0, sizeof(e));
	for (const char *l = text; l && *l;) {
		size_t len = strcspn(l, "\n");

		if (len)
			entry_line(&e, l, len);
		/* a blank line, or the end, closes an entry */
		if (!len || !l[len]) {
			if (e.name[0] && e.refcnt > 1 && *alg && strstr(e.name, alg))
				keep(kept, &n, &e);
			memset(&e, 0, sizeof(e));
		}
		l += len + (l[len] ? 1 : 0);
	}
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i}", "name", kept[i].name, "driver",
						   kept[i].driver, "module", kept[i].module, "priority",
						   kept[i].priority));
	return a;
}

json_t *setup_crypto(const char *alg)
{
	char *text = file_read("/proc/crypto", NULL);
	json_t *a = text ? setup_crypto_parse(text, alg) : json_array();

	free(text);
	return a;
}
