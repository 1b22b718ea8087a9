/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offload features (ethtool -k/-K) of one device, set and restored: on this
 * host through ethtool netlink (offload_nl.c) where the kernel has it, else
 * and for --dry-run through the ethtool program; on a peer through a runner.
 */
#ifndef IPSECPERF_OFFLOAD_H
#define IPSECPERF_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>


#include "offload_list.h"

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

/* Apply the settings (journaling the old values) and verify they took. */
int offload_apply(const char *netns, const char *dev, const struct offload_list *ol,
		  char *why, size_t whylen);

/*
 * Where the ethtool commands run. offload_apply runs them on this host (in
 * netns); the peer testbed passes a runner that runs them on the peer.
 * run: a command that changes nothing; change: a journaled change (host_do's
 * contract). where: for messages ("" or " on HOST"). shared: the device is
 * not in a namespace of the run's own, so others may use it too: it is
 * changed under the host-wide lock (journal_hostwide).
 */
struct offload_runner {
	int (*run)(void *arg, char *const argv[], char **out, char **err);
	int (*change)(void *arg, char *const do_argv[], char *const undo_argv[], char **err);
	void *arg;
	const char *where;
	bool shared;
};

int offload_apply_via(const struct offload_runner *r, const char *dev, const struct offload_list *ol,
		      char *why, size_t whylen);

#endif
