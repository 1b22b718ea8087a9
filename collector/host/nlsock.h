/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One netlink request and its answer, with libmnl, in a named network
 * namespace: the plumbing under rtnl.c, ethtool_nl.c and xfrm.c.
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

/* nlsock_talk's flags */
#define NLSOCK_SECRET 1u /* the request or its answer holds keys: both are wiped after use */

/*
 * Send the request in buf (NLM_F_ACK is added) and read until its ack
 * (a dump's, NLM_F_DUMP: until its NLMSG_DONE); every other answer to it
 * goes to cb (may be NULL). 0, or -errno with the
 * kernel's extended ack message in err (if any; err may be NULL). With
 * NLSOCK_SECRET the request is zeroed once sent (or not), and the answers'
 * buffer before it returns.
 */
int nlsock_talk(struct mnl_socket *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		char *err, size_t errlen, unsigned flags);

/* Open, talk once, close. */
int nlsock_request(const char *netns, int bus, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   char *err, size_t errlen);

#endif
