/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offload features (ethtool -k/-K) of one device, set and restored: on this
 * host through ethtool netlink (offload_nl.c) where the kernel has it, else
 * and for --dry-run through the ethtool program; on the peer through its
 * endpoint.
 */
#ifndef IPSECPERF_OFFLOAD_H
#define IPSECPERF_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>


#include "offload_list.h"

struct endpoint;

struct feature_state {
	char name[64]; /* ethtool -k's long name */
	bool on;
	bool fixed;
	int parent; /* index of the group it is indented under, or -1 */
};

/* Parse `ethtool -k` output; returns the number of features or -1. */
int offload_parse(const char *text, struct feature_state *out, int max);

/* The long name ethtool -k prints for a -K name (tso -> tcp-segmentation-offload). */
const char *offload_long_name(const char *name);

/*
 * Can these settings be applied to dev? 0 yes; 1 no, with the reason in why
 * (a fixed or unknown feature: the scenario is skipped); -1 error.
 */
int offload_check(const char *netns, const char *dev, const struct offload_list *ol,
		  char *why, size_t whylen);

/*
 * Apply the settings to endpoint e's device (journaling the old values)
 * and verify they took: 0; 1 cannot here (a fixed or unknown feature: the
 * scenario is skipped, why); -1 failed. A device outside the run's own
 * namespaces (this host's, the peer's) is changed under the host-wide lock
 * (journal_hostwide), as others may use it too.
 */
int offload_apply(const struct endpoint *e, const struct offload_list *ol, char *why, size_t whylen);

#endif
