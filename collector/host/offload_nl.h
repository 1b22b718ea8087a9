/* SPDX-License-Identifier: GPL-2.0 */
/* Offload features of a device on this host through ethtool netlink (offload.c's fast path). */
#ifndef IPSECPERF_OFFLOAD_NL_H
#define IPSECPERF_OFFLOAD_NL_H

#include <stddef.h>

#include "ethtool_nl.h"
#include "offload_list.h"

/*
 * The kernel features a scenario's name stands for: ethtool's short and
 * long names (tso, tcp-segmentation-offload) are groups, as ethtool -K
 * takes them (tx-tcp*-segmentation); any other name is the kernel's own.
 * Fills idx (ETHNL_FEATURES_MAX), returns how many.
 */
int offload_nl_members(const struct ethnl_features *f, const char *feature, int idx[]);

/* As offload_check and offload_apply (offload.h), through netlink. */
int offload_nl_check(const struct ethnl_features *f, const char *dev, const struct offload_list *ol,
		     char *why, size_t whylen);
int offload_nl_apply(const char *netns, const char *dev, const struct offload_list *ol,
		     char *why, size_t whylen);

#endif
