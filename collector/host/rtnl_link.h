/* SPDX-License-Identifier: GPL-2.0 */
/*
 * More links through rtnetlink (libmnl): for the vm-pair testbed, a bridge
 * and its ports on the host, a device renamed in the guest; for the
 * encrypted links (enclink.h), a device of a kind on a lower one, looked
 * up and deleted by its kind.
 */
#ifndef IPSECPERF_RTNL_LINK_H
#define IPSECPERF_RTNL_LINK_H

#include <stddef.h>

/* `ip -n NETNS link add NAME type bridge`: 0 or -errno with why in err. */
int rtnl_bridge_add(const char *netns, const char *name, char *err, size_t errlen);

/*
 * `ip -n NETNS link set DEV [mtu MTU] [master MASTER] up` (mtu 0: as it is;
 * master NULL: none): 0 or -errno with why in err.
 */
int rtnl_link_master_up(const char *netns, const char *dev, const char *master, int mtu, char *err, size_t errlen);

/* `ip -n NETNS link set DEV name NAME` (DEV down): 0 or -errno with why in err. */
int rtnl_link_rename(const char *netns, const char *dev, const char *name, char *err, size_t errlen);

/*
 * `ip -n NETNS link add NAME [link LOWER] type KIND [DATA]`, made exclusive
 * (NLM_F_EXCL): data(nlh, arg), when not NULL, puts the kind's attributes
 * into IFLA_INFO_DATA. 0 or -errno (-EEXIST: there is one) with why in err.
 * The builder (for the unit tests): lower an ifindex or 0; -1 bad input.
 */
struct nlmsghdr;
int rtnl_link_add(const char *netns, const char *name, const char *kind, const char *lower,
		  void (*data)(struct nlmsghdr *nlh, void *arg), void *arg, char *err, size_t errlen);
int rtnl_link_add_build(void *buf, const char *name, const char *kind, unsigned int lower,
			void (*data)(struct nlmsghdr *nlh, void *arg), void *arg);

/* Is there a device NAME in NETNS? 1 (its IFLA_INFO_KIND into kind, "" for none), 0, or -errno. */
int rtnl_link_kind(const char *netns, const char *name, char *kind, size_t len);

/*
 * `ip -n NETNS link del NAME`, only when it is a KIND device: 0 deleted, 1
 * not there, -EPERM another kind (left alone), or -errno; why in err.
 */
int rtnl_link_del(const char *netns, const char *name, const char *kind, char *err, size_t errlen);

#endif
