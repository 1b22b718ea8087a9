/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink (NETLINK_GENERIC) with libmnl: a request's header, and a
 * family's id asked of the controller by name. Under ethtool_nl.c, wg.c
 * and macsec.c.
 */
#ifndef IPSECPERF_GENL_H
#define IPSECPERF_GENL_H

#include <libmnl/libmnl.h>
#include <stdint.h>

/* A request of family type, command cmd, in buf (NLSOCK_BUF bytes, zeroed first). */
struct nlmsghdr *genl_msg(void *buf, uint16_t type, uint8_t cmd, uint8_t version);

/*
 * The id of the family called name, asked in netns (NULL: here; families
 * are the kernel's, but a socket there answers for its namespace): > 0, or
 * 0 when the kernel has none by that name (its module not loaded), or
 * -errno when the controller could not be asked.
 */
int genl_family(const char *netns, const char *name);

#endif
