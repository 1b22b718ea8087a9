/* SPDX-License-Identifier: GPL-2.0 */
#include "name_list.h"

#include <stdlib.h>
#include <string.h>

/*
 * name into the list *names of *n (room for *cap) unless it is there: the
 * names a group's ok runs give, in their first run's order. 0, or -1 out
 * of memory (the list freed).
 */
int names_add_once(const char ***names, int *n, int *cap, const char *name)
{
	for (int j = 0; j < *n; j++)
		if (!strcmp((*names)[j], name))
			return 0;
	if (*n == *cap) {
		const char **nn = realloc(*names, (*cap = *cap * 2 + 8) * sizeof(*nn));

		if (!nn) {
			free(*names);
			*names = NULL;
			*n = 0;
			return -1;
		}
		*names = nn;
	}
	(*names)[(*n)++] = name;
	return 0;
}
