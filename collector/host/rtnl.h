/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netns testbed's links through rtnetlink (NETLINK_ROUTE, libmnl), not
 * `ip`: named namespaces as iproute2 makes them (a bind mount of a new
 * network namespace on /run/netns/NAME), a veth pair with its ends made
 * in two namespaces, addresses, links up. Each call says what failed in
 * err, with the kernel's extended ack message when there is one.
 */
#ifndef IPSECPERF_RTNL_H
#define IPSECPERF_RTNL_H

#include <jansson.h>
#include <stddef.h>

struct mnl_socket;

/* `ip netns add NAME`: 0 or -errno (-EEXIST: there is one, not ours). */
int rtnl_netns_add(const char *name, char *err, size_t errlen);

/* `ip netns del NAME`: 0 (also when it is not there) or -errno. */
int rtnl_netns_del(const char *name);

/*
 * `ip link add DEV0 netns NS0 type veth peer name DEV1 netns NS1`: both ends
 * made inside their namespaces, so the caller's own links never change.
 */
int rtnl_veth_add(const char *dev0, const char *ns0, const char *dev1, const char *ns1,
		  char *err, size_t errlen);

/* `ip -n NS addr add ADDR/PLEN dev DEV` (IPv4 or IPv6). */
int rtnl_addr_add(const char *netns, const char *dev, const char *addr, int plen,
		  char *err, size_t errlen);

/* `ip -n NS link set DEV up`. */
int rtnl_link_up(const char *netns, const char *dev, char *err, size_t errlen);

/*
 * A device's statistics (`ip -s link show DEV`): RTM_GETLINK of ifindex on
 * nl, a NETLINK_ROUTE socket opened in the device's namespace (kept open,
 * so that reading costs one round trip). kind gets IFLA_INFO_KIND ("veth";
 * "" for a device without one). 0 or -errno.
 */
struct rtnl_link_stats64;
int rtnl_link_stats(struct mnl_socket *nl, unsigned int ifindex, struct rtnl_link_stats64 *st,
		    char *kind, size_t kindlen);
int rtnl_getlink_build(void *buf, unsigned int ifindex);

/* The messages, built into buf (NLSOCK_BUF bytes); exposed for the unit tests. -1: bad input. */
int rtnl_veth_build(void *buf, const char *dev0, int nsfd0, const char *dev1, int nsfd1);
int rtnl_addr_build(void *buf, unsigned int ifindex, const char *addr, int plen);
int rtnl_link_up_build(void *buf, unsigned int ifindex);

/*
 * This run's namespace for role ("tx", "rx", "pair"): ipsecperf-PID-START-ROLE,
 * START the process's start time (clock ticks since boot), so that a run
 * that gets a killed run's pid never takes, or has its undo delete, that
 * run's namespace.
 */
void rtnl_netns_name(char *buf, size_t len, const char *role);

/*
 * The journal's "netns" record, undone by a process that may not be the
 * one that made it: {"kind": "netns", "name": NAME}. Only a plain name
 * starting "ipsecperf-" is deleted (the record is hostile input).
 */
json_t *rtnl_netns_record(const char *name);
int rtnl_undo_netns(json_t *r);

#endif
