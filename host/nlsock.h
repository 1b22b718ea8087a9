/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One netlink request and its answer, with libmnl, in a named network
 * namespace: the plumbing under rtnl.c and ethtool_nl.c.
 */
#ifndef IPSECPERF_NLSOCK_H
#define IPSECPERF_NLSOCK_H

#include <libmnl/libmnl.h>
#include <stddef.h>

/* A request buffer: ours are well under a page. */
#define NLSOCK_BUF 4096

/*
 * A socket of netlink bus (NETLINK_ROUTE, NETLINK_GENERIC) opened inside
 * /run/netns/NETNS (NULL: here), with extended acks. NULL with errno set.
 */
struct mnl_socket *nlsock_open(const char *netns, int bus);

/*
 * Send the request in buf (NLM_F_ACK is added) and read until its ack;
 * every other answer to it goes to cb (may be NULL). 0, or -errno with the
 * kernel's extended ack message in err (if any; err may be NULL).
 */
int nlsock_talk(struct mnl_socket *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		char *err, size_t errlen);

/* Open, talk once, close. */
int nlsock_request(const char *netns, int bus, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   char *err, size_t errlen);

#endif
