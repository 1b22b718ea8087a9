/* SPDX-License-Identifier: GPL-2.0 */
/* The offloads a scenario sets, as offload.c and offload_nl.c take them. */
#ifndef IPSECPERF_OFFLOAD_LIST_H
#define IPSECPERF_OFFLOAD_LIST_H

#include <stdbool.h>

/* The most features one scenario sets. */
#define OFFLOAD_MAX 16

/* One feature to set: ethtool -K's name (tso, gso, gro, rx-gro-list, ...). */
struct offload_setting {
	char feature[48];
	bool on;
};

/* The features a scenario sets, in its order. */
struct offload_list {
	const struct offload_setting *v;
	int n;
};

#endif
