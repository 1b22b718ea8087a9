/* SPDX-License-Identifier: GPL-2.0 */
/* A scenario's [link] mtu on one end of the link, journaled and put back. */
#ifndef IPSECPERF_LINK_MTU_H
#define IPSECPERF_LINK_MTU_H

#include <stddef.h>

struct endpoint;

/* The MTU of e's device (ip -j addr show), or -1 with why. */
int link_mtu_read(const struct endpoint *e, char *why, size_t len);

/*
 * Set e's device to mtu (0: leave it), its old MTU journaled first as the
 * undo: 0 done; 1 the device (where: " on the peer" or "") refused it,
 * the scenario is skipped, why says so; -1 failed (it could not be read).
 */
int link_mtu_apply(const struct endpoint *e, int mtu, const char *where, char *why, size_t len);

#endif
