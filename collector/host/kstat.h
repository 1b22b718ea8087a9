/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own drop and error counters around a load: /proc/net/snmp's
 * Ip and Udp groups and /proc/net/xfrm_stat (CONFIG_XFRM_STATISTICS), named
 * as nstat names them (UdpRcvbufErrors, IpInDiscards, XfrmInStateSeqError).
 * Read at a window's edges; the difference says where packets went that a
 * receiver did not get. The kernel counts them anyway: reading costs the
 * data path nothing.
 */
#ifndef IPSECPERF_KSTAT_H
#define IPSECPERF_KSTAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define KSTAT_MAX 128

struct kstat {
	int n;
	bool xfrm;            /* xfrm_stat was there */
	char name[KSTAT_MAX][40];
	uint64_t v[KSTAT_MAX];
};

/*
 * Parse the texts of /proc/net/snmp (its Ip and Udp groups) and of
 * /proc/net/xfrm_stat (NULL: not there) into k. 0, or -1 when snmp holds
 * neither group. Unit-tested.
 */
int kstat_parse(struct kstat *k, const char *snmp, const char *xfrm_stat);

/*
 * What moved from a to b: {"UdpRcvbufErrors": 12, ...}, only the counters
 * that changed and are in both (a counter that went down is left out: the
 * namespace was made again).
 */
json_t *kstat_delta(const struct kstat *a, const struct kstat *b);

/* One counter by its name, or -1 when it is not there. */
int kstat_get(const struct kstat *k, const char *name, uint64_t *v);

/* Read them in network namespace NETNS (NULL: this one). 0, or -1 with errno. */
int kstat_read_netns(const char *netns, struct kstat *k);

struct endpoint;
/*
 * Read them at endpoint e: in its namespace here, or on the peer through
 * its agent's file reads (/proc/net/snmp and /proc/net/xfrm_stat are on
 * its list, peer_files.h). 0, or -1.
 */
int kstat_read_ep(const struct endpoint *e, struct kstat *k);

/*
 * Every /proc/net/xfrm_stat counter of b that a has too, and what it moved
 * from a to b, zeros included: {"XfrmInNoStates": 0, ...}. NULL when
 * either has no xfrm_stat (CONFIG_XFRM_STATISTICS unset). A counter that
 * went down (the namespace was made again) is left out.
 */
json_t *kstat_xfrm_delta(const struct kstat *a, const struct kstat *b);

#endif
