// SPDX-License-Identifier: GPL-2.0
/*
 * The lookups in the table of encrypted links (enclink.h), enclink_kinds[]
 * being enclink.c's: apart, so that the scenario reader's fuzzer links
 * them on a table of its own, without the kinds' netlink.
 */
#include <stdio.h>
#include <string.h>

#include "enclink.h"

const struct enclink_kind *enclink_find(const char *name)
{
	for (int i = 0; name && enclink_kinds[i]; i++)
		if (!strcmp(name, enclink_kinds[i]->name))
			return enclink_kinds[i];
	return NULL;
}

const char *enclink_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; enclink_kinds[i] && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : enclink_kinds[i + 1] ? ", " : " or ",
				enclink_kinds[i]->name);
	return buf;
}

bool enclink_takes(const struct enclink_kind *k, const char *c)
{
	for (int i = 0; c && k->ciphers[i]; i++)
		if (!strcmp(c, k->ciphers[i]))
			return true;
	return false;
}
