/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer testbed's state, shared by testbed_peer*.c only; the rest sees
 * it through testbed_peer.h (a run's own state is the run layer's:
 * collector/testbed/tb_peer.c). A façade of testbed_peer.c's struct and
 * testbed_peer_call.c's shared calls.
 */
#ifndef IPSECPERF_TESTBED_PEER_INT_H
#define IPSECPERF_TESTBED_PEER_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "remote.h"
#include "testbed.h"
#include "testbed_peer.h"

/* How long the agent may take to answer one request. */
#define AGENT_TIMEOUT_MS 15000

struct peer {
	struct testbed_config cfg;
	struct host h;
	const char *prog;          /* ipsecperf on the peer */
	int port;
	char addr_tx[64], addr_rx[64];
	int family;
	/* the agent: one ssh session for the whole run */
	struct remote_session agent;
	struct endpoint ep_tx, ep_rx; /* this host's end, the peer's (made once both are checked) */
	bool have_agent;
	char no_agent_why[800];
	char kernel[128], peer_kernel[128];
	/* ssh reaches the peer over the link under test: ESP policies would take it too */
	bool ssh_on_link;
	char ssh_conn[160];        /* the peer's SSH_CONNECTION: client port server port */
	/* set when ssh lost the peer: every later run fails with this */
	bool lost;
	char lost_why[600];
};

/* testbed_peer_call.c: the peer lost (every later call fails, saying why). */
void peer_lost(struct peer *p, const char *why);

#endif
