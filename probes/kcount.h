/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own counters of what the xmit program counted: the
 * testbed's devices' statistics (skbs handed to them) and the TCP SNMP
 * counters of their namespaces (segments sent). The kernel keeps them
 * anyway: reading them at the window's edges costs the data path nothing.
 */
#ifndef IPSECPERF_KCOUNT_H
#define IPSECPERF_KCOUNT_H

#include <stdbool.h>
#include <stdint.h>

struct mnl_socket;

#define KCOUNT_ENDS 2

struct kcount {
	int nends;
	struct {
		char dev[16];
		char netns[64];          /* "" = this namespace */
		unsigned int ifindex;
		struct mnl_socket *nl;   /* NETLINK_ROUTE, opened in the end's namespace */
	} end[KCOUNT_ENDS];
	int snmp_fd[KCOUNT_ENDS];    /* /proc/net/snmp of each distinct namespace */
	int nsnmp;
	bool skbs_ok, segs_ok;       /* can be read here */
	char skbs_how[256], segs_how[256]; /* how, or why not */
};

/* One reading; a false *_ok: that read failed. */
struct kcount_vals {
	uint64_t skbs, segs;
	bool skbs_ok, segs_ok;
};

/*
 * The counters of the link ends devs (NULL-terminated, at most two) in
 * netns (names under /run/netns; NULL: this namespace). devs NULL: only
 * describe (probe --list; *_ok set, nothing read). Never fails: what
 * cannot be had says why.
 */
void kcount_open(struct kcount *k, const char *const *devs, const char *const *netns);
void kcount_read(struct kcount *k, struct kcount_vals *v);
void kcount_close(struct kcount *k);
/* Anything open to read? */
bool kcount_active(const struct kcount *k);

/* Tcp OutSegs + RetransSegs from /proc/net/snmp's text: 0, or -1. Unit-tested. */
int kcount_tcp_segs(const char *snmp_text, uint64_t *segs);

#endif
