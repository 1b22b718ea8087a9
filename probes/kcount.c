// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel counters for xmit_skbs and xmit_segs (kcount.h), read at the
 * edges of the window and of the load.
 *
 * Skbs: a veth's tx_packets + tx_dropped is one per call of its
 * ndo_start_xmit (drivers/net/veth.c, veth_xmit: every skb is either
 * forwarded and counted, or dropped and counted; with NAPI on the peer,
 * the count is the peer queue's, added when it is taken off the ring), the
 * same event as net:net_dev_start_xmit on that device. Another driver may
 * count wire segments in tx_packets, so only veth is taken.
 *
 * Segments: Tcp OutSegs counts every segment TCP sends except
 * retransmissions, which RetransSegs counts (net/ipv4/tcp_output.c,
 * __tcp_transmit_skb and __tcp_retransmit_skb, both by tcp_skb_pcount;
 * ACKs, SYN-ACKs and RSTs count in OutSegs too). Their sum over the
 * testbed's namespaces is the TCP segments handed down, data and ACKs.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kcount.h"
#include "netns_call.h"
#include "nlsock.h"
#include "rtnl.h"
#include "snmp.h"

int kcount_tcp_segs(const char *text, uint64_t *segs)
{
	uint64_t out, re;

	if (snmp_field(text, "Tcp", "OutSegs", &out) < 0 || snmp_field(text, "Tcp", "RetransSegs", &re) < 0)
		return -1;
	*segs = out + re;
	return 0;
}

/* The ends, their sockets and kinds; skbs_ok/skbs_how said. */
static void open_devs(struct kcount *k, const char *const *devs, const char *const *netns)
{
	char list[80] = "";

	k->skbs_ok = true;
	for (int i = 0; devs[i] && i < KCOUNT_ENDS; i++) {
		const char *ns = netns ? netns[i] : NULL;
		struct rtnl_link_stats64 st;
		unsigned int inum;
		char kind[32];
		int rc;

		snprintf(k->end[i].dev, sizeof(k->end[i].dev), "%s", devs[i]);
		snprintf(k->end[i].netns, sizeof(k->end[i].netns), "%s", ns ? ns : "");
		k->nends = i + 1;
		if (netns_ifindex(ns, devs[i], &k->end[i].ifindex, &inum) < 0) {
			snprintf(k->skbs_how, sizeof(k->skbs_how), "no device %s%s%s: %s", devs[i],
				 ns ? " in namespace " : "", ns ? ns : "", strerror(errno));
			k->skbs_ok = false;
			return;
		}
		k->end[i].nl = nlsock_open(ns, NETLINK_ROUTE);
		rc = k->end[i].nl ? rtnl_link_stats(k->end[i].nl, k->end[i].ifindex, &st, kind, sizeof(kind))
				  : -errno;
		if (rc < 0) {
			snprintf(k->skbs_how, sizeof(k->skbs_how), "cannot read the statistics of %s: %s", devs[i],
				 strerror(-rc));
			k->skbs_ok = false;
			return;
		}
		if (strcmp(kind, "veth")) {
			snprintf(k->skbs_how, sizeof(k->skbs_how),
				 "%s is %s%s device, whose tx_packets may count wire segments, not skbs (--probe-set all counts skbs at net:net_dev_start_xmit)",
				 devs[i], *kind ? "a " : "not a veth but another", *kind ? kind : "");
			k->skbs_ok = false;
			return;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", *list ? " and " : "", devs[i]);
	}
	snprintf(k->skbs_how, sizeof(k->skbs_how),
		 "device statistics tx_packets + tx_dropped of %s%s (rtnetlink IFLA_STATS64; veth: one per skb handed to it)",
		 list, netns ? " in the testbed's namespaces" : "");
}

/* /proc/net/snmp of each distinct namespace of the ends; segs_ok/segs_how said. */
static void open_snmp(struct kcount *k, const char *const *netns, int nends)
{
	char buf[4096];
	uint64_t v;

	k->segs_ok = true;
	for (int i = 0; i < (nends ? nends : 1); i++) {
		const char *ns = netns ? netns[i] : NULL;
		bool seen = false;

		for (int j = 0; j < i && netns; j++)
			seen |= !strcmp(netns[j] ? netns[j] : "", ns ? ns : "");
		if (seen || (i > 0 && !netns))
			continue;
		errno = 0;
		k->snmp_fd[k->nsnmp] = snmp_open(ns);
		if (k->snmp_fd[k->nsnmp] < 0 || snmp_read(k->snmp_fd[k->nsnmp], buf, sizeof(buf)) < 0 ||
		    kcount_tcp_segs(buf, &v) < 0) {
			snprintf(k->segs_how, sizeof(k->segs_how), "cannot read Tcp OutSegs and RetransSegs from /proc/net/snmp%s%s: %s",
				 ns ? " of namespace " : "", ns ? ns : "", errno ? strerror(errno) : "not there");
			if (k->snmp_fd[k->nsnmp] >= 0)
				close(k->snmp_fd[k->nsnmp]);
			k->segs_ok = false;
			return;
		}
		k->nsnmp++;
	}
	snprintf(k->segs_how, sizeof(k->segs_how), "Tcp OutSegs + RetransSegs (/proc/net/snmp) of %s",
		 netns ? "the testbed's namespaces: TCP segments sent, data and ACKs"
		       : "this host's namespace: every TCP segment it sent, on any device");
}

void kcount_open(struct kcount *k, const char *const *devs, const char *const *netns)
{
	memset(k, 0, sizeof(*k));
	if (!devs || !devs[0]) {
		snprintf(k->skbs_how, sizeof(k->skbs_how),
			 "device statistics tx_packets + tx_dropped of the testbed's veth ends (at run time)");
		snprintf(k->segs_how, sizeof(k->segs_how),
			 "Tcp OutSegs + RetransSegs (/proc/net/snmp) of the testbed's namespaces (at run time)");
		k->skbs_ok = k->segs_ok = true; /* described, nothing to read */
		return;
	}
	open_devs(k, devs, netns);
	int n = 0;

	while (n < KCOUNT_ENDS && devs[n])
		n++;
	open_snmp(k, netns, n);
}

void kcount_read(struct kcount *k, struct kcount_vals *v)
{
	char buf[4096];

	memset(v, 0, sizeof(*v));
	v->skbs_ok = k->skbs_ok;
	for (int i = 0; i < k->nends && v->skbs_ok; i++) {
		struct rtnl_link_stats64 st;

		if (rtnl_link_stats(k->end[i].nl, k->end[i].ifindex, &st, NULL, 0) < 0)
			v->skbs_ok = false;
		else
			v->skbs += st.tx_packets + st.tx_dropped;
	}
	v->segs_ok = k->segs_ok;
	for (int i = 0; i < k->nsnmp && v->segs_ok; i++) {
		uint64_t s;

		if (snmp_read(k->snmp_fd[i], buf, sizeof(buf)) < 0 || kcount_tcp_segs(buf, &s) < 0)
			v->segs_ok = false;
		else
			v->segs += s;
	}
}

bool kcount_active(const struct kcount *k)
{
	return (k->skbs_ok && k->nends) || (k->segs_ok && k->nsnmp);
}

void kcount_close(struct kcount *k)
{
	for (int i = 0; i < k->nends; i++)
		if (k->end[i].nl)
			mnl_socket_close(k->end[i].nl);
	for (int i = 0; i < k->nsnmp; i++)
		close(k->snmp_fd[i]);
	memset(k, 0, sizeof(*k));
}
