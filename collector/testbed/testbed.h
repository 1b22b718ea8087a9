/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A testbed is where the sender and the receiver live. Two network
 * namespaces joined by a veth pair is the default: every Linux host has it.
 * A façade of testbed_netns.c (the namespaces and the veth pair),
 * tb_netns.c (the netns testbed's operations for the matrix) and the
 * registry's entries (tb_netns.c, tb_peer.c, tb_vm.c).
 */
#ifndef IPSECPERF_TESTBED_H
#define IPSECPERF_TESTBED_H

#include <stdbool.h>

#include "endpoint.h"

/* What a testbed is made from: the run's options it needs, nothing more. */
struct testbed_config {
	const char *addr_tx, *addr_rx; /* addresses without prefix length */
	bool addr_tx_set, addr_rx_set; /* given (peer: else the devices' own) */
	int prefix_len;
	/* the peer testbed (testbed_peer.c) */
	const char *peer;              /* [user@]host */
	const char *dev, *peer_dev;    /* the link's two ends */
	const char *peer_ipsecperf;    /* the agent's program on the peer, or NULL */
	const char *const *ssh_opts;   /* each passed to ssh as -o */
	int nssh_opts;
	int cpu_tx, cpu_rx;            /* pin sender, receiver; -1: not pinned */
	int port;                      /* the load's TCP port */
};

struct testbed {
	char ns_tx[64];      /* sender's namespace */
	char ns_rx[64];      /* receiver's namespace */
	char dev_tx[16];     /* sender's end of the link */
	char dev_rx[16];
	char addr_tx[64];    /* address without prefix length */
	char addr_rx[64];
	int prefix_len;
	int cpu_tx;          /* CPU the sender is pinned to, or -1 */
	int cpu_rx;
	struct endpoint ep_tx, ep_rx; /* the two ends, as the loads see them */
};

struct run_config;
struct testbed_ops;
struct testbed_entry;

/* What the testbeds take of the run's options. */
struct testbed_config testbed_config_of(const struct run_config *c);

/* The netns testbed's operations for the matrix (tb_netns.c). */
extern const struct testbed_ops netns_testbed_ops;

/*
 * The testbeds' registry entries (testbed_ops.h), each beside its code:
 * tb_netns.c, tb_peer.c, tb_vm.c (vm, vm-pair). testbeds.c lists them.
 */
extern const struct testbed_entry testbed_netns, testbed_peer, testbed_vm, testbed_vm_pair;

/* Create the namespaces and the veth pair (journaled). */
int netns_setup(struct testbed *tb, const struct testbed_config *cfg);

/* The default address pair: RFC 2544's benchmarking range. */
#define DEFAULT_ADDR_TX "198.18.0.1"
#define DEFAULT_ADDR_RX "198.18.0.2"

#endif
