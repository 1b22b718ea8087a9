// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "log.h"
#include "rtnl.h"
#include "rtnl_link.h"
#include "tap.h"
#include "vm_pair_link.h"

static const char *const bridges[2] = { "ipp-link", "ipp-ctl" };
/*
 * The link's taps (and so its bridge) carry frames up to this MTU: a
 * scenario's [link] mtu is set in the guests, and at 1500 here their
 * 9000-byte frames were dropped between them.
 */
#define PAIR_LINK_MTU 9000
static const char *const taps[2][2] = { { "ipp-tx-link", "ipp-tx-ctl" }, { "ipp-rx-link", "ipp-rx-ctl" } };

const char *pair_mac(int guest, int which)
{
	static const char *const macs[2][2] = { { "52:54:00:49:50:01", "52:54:00:49:50:11" },
						 { "52:54:00:49:50:02", "52:54:00:49:50:12" } };

	return macs[guest][which];
}

void pair_link_close(struct pair_link *l)
{
	for (int g = 0; g < 2; g++)
		for (int w = 0; w < 2; w++) {
			if (l->fd[g][w] >= 0)
				close(l->fd[g][w]);
			l->fd[g][w] = -1;
		}
}

/* What --dry-run prints: the ip commands a person would type for the same wires. */
static void print_dry(const struct pair_link *l)
{
	printf("ip netns add %s\n", l->netns);
	for (int w = 0; w < 2; w++) {
		printf("ip -n %s link add %s type bridge\n", l->netns, bridges[w]);
		printf("ip -n %s link set %s up\n", l->netns, bridges[w]);
		for (int g = 0; g < 2; g++) {
			printf("ip -n %s tuntap add dev %s mode tap vnet_hdr\n", l->netns, taps[g][w]);
			if (w == 0)
				printf("ip -n %s link set %s mtu %d master %s up\n", l->netns, taps[g][w], PAIR_LINK_MTU,
				       bridges[w]);
			else
				printf("ip -n %s link set %s master %s up\n", l->netns, taps[g][w], bridges[w]);
		}
	}
}

static int wires(struct pair_link *l, char *err, size_t len)
{
	for (int w = 0; w < 2; w++) {
		if (rtnl_bridge_add(l->netns, bridges[w], err, len) < 0 || rtnl_link_up(l->netns, bridges[w], err, len) < 0)
			return -1;
		for (int g = 0; g < 2; g++) {
			l->fd[g][w] = tap_open(l->netns, taps[g][w], err, len);
			if (l->fd[g][w] < 0 ||
			    rtnl_link_master_up(l->netns, taps[g][w], bridges[w], w == 0 ? PAIR_LINK_MTU : 0, err, len) < 0)
				return -1;
		}
	}
	return 0;
}

int pair_link_make(struct pair_link *l, bool dry_run)
{
	char err[512] = "";
	int seq, rc;

	memset(l->fd, -1, sizeof(l->fd));
	l->seq = 0;
	rtnl_netns_name(l->netns, sizeof(l->netns), "pair");
	if (dry_run) {
		print_dry(l);
		return 0;
	}
	if (journal_add(rtnl_netns_record(l->netns)) < 0)
		return -1;
	seq = l->seq = journal_last();
	rc = rtnl_netns_add(l->netns, err, sizeof(err));
	if (rc < 0) {
		journal_cancel(seq);
		l->seq = 0;
		pr_warn("vm-pair: cannot make namespace %s: %s", l->netns, err);
		return -1;
	}
	if (wires(l, err, sizeof(err)) < 0) {
		pr_warn("vm-pair: the link between the guests: %s", err);
		pair_link_close(l);
		return -1;
	}
	pr_debug("vm-pair: bridges %s and %s in namespace %s, taps passed to qemu", bridges[0], bridges[1], l->netns);
	return 0;
}

void pair_link_remove(struct pair_link *l)
{
	pair_link_close(l);
	if (!l->seq)
		return;
	/* --interleave makes the wires again for the next pair, under the same name */
	if (rtnl_netns_del(l->netns) < 0)
		pr_warn("vm-pair: cannot delete namespace %s; `ipsecperf cleanup` will", l->netns);
	else
		journal_cancel(l->seq);
	l->seq = 0;
}
