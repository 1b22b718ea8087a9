// SPDX-License-Identifier: GPL-2.0
/* The lookups in the table of loads (loads.h), load_kinds[] being loads.c's. */
#include <stdio.h>
#include <string.h>

#include "loads.h"

const struct load_kind *load_find(const char *name)
{
	for (int i = 0; name && load_kinds[i]; i++)
		if (!strcmp(name, load_kinds[i]->name))
			return load_kinds[i];
	return NULL;
}

const struct load_kind *load_comm(const char *comm)
{
	for (int i = 0; load_kinds[i]; i++)
		if (load_kinds[i]->comm && !strcmp(comm, load_kinds[i]->comm))
			return load_kinds[i];
	return NULL;
}

const char *load_names(unsigned caps, char *buf, size_t len)
{
	int n = 0, k = 0;
	size_t off = 0;

	for (int i = 0; load_kinds[i]; i++)
		n += (load_kinds[i]->caps & caps) == caps;
	buf[0] = '\0';
	for (int i = 0; load_kinds[i] && off < len; i++) {
		if ((load_kinds[i]->caps & caps) != caps)
			continue;
		off += snprintf(buf + off, len - off, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ",
				load_kinds[i]->name);
		k++;
	}
	return buf;
}
