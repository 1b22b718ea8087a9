/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A list of names, each once, in the order first seen: the counters or
 * per-CPU figures a group of runs gives. A linear look-up: the names are a
 * record's few dozen keys at most.
 */
#ifndef IPSECPERF_NAME_LIST_H
#define IPSECPERF_NAME_LIST_H

/*
 * name into the list *names (*n of them, room for *cap) unless it is
 * there; not copied. 0, or -1 out of memory (the list freed, *n 0).
 */
int names_add_once(const char ***names, int *n, int *cap, const char *name);

#endif
