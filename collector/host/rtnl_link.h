/* SPDX-License-Identifier: GPL-2.0 */
/*
 * More links through rtnetlink (libmnl), for the vm-pair testbed: a
 * bridge and its ports on the host, a device renamed in the guest.
 */
#ifndef IPSECPERF_RTNL_LINK_H
#define IPSECPERF_RTNL_LINK_H

#include <stddef.h>

/* `ip -n NETNS link add NAME type bridge`: 0 or -errno with why in err. */
int rtnl_bridge_add(const char *netns, const char *name, char *err, size_t errlen);

/* `ip -n NETNS link set DEV [mtu MTU] master MASTER up` (mtu 0: as it is): 0 or -errno with why in err. */
int rtnl_link_master_up(const char *netns, const char *dev, const char *master, int mtu, char *err, size_t errlen);

/* `ip -n NETNS link set DEV name NAME` (DEV down): 0 or -errno with why in err. */
int rtnl_link_rename(const char *netns, const char *dev, const char *name, char *err, size_t errlen);

#endif
