/* SPDX-License-Identifier: GPL-2.0 */
/* The peer testbed's state, shared by testbed_peer*.c only. */
#ifndef IPSECPERF_TESTBED_PEER_INT_H
#define IPSECPERF_TESTBED_PEER_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "remote.h"
#include "testbed.h"

struct ipsec_sas;

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
	struct ipsec_sas *sas;     /* the scenario's SAs, at both ends (collector/run/ipsec.c) */
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
	bool no_probes;            /* --no-probes: none here, none on the peer (set by the run) */
	bool peer_probes;          /* the agent's probes attached for this scenario */
	bool peer_probes_off;      /* detached for the probe-less half of --probe-overhead */
	double last_ping;          /* when the agent was last pinged (monotonic seconds) */
	/* the run in progress, from the matrix's run_begin to its run_end */
	struct peer_window {
		json_t *rec;
		bool rx_ok;                /* the receiver's CPU was read at both edges */
		char rx_why[300];
		long long stat0;           /* without the agent: /proc/stat busy ticks of the peer */
		double rx_busy_s;
		uint64_t rx_cycles;
		bool rx_have_cycles;
		char rx_method[32];
		/*
		 * The SAs' counters since the load began, at the window's edges; the
		 * whole load (quiet at both ends, so exact) is kept as "sa_load", as
		 * the netns testbed does.
		 */
		json_t *sa_open, *sa_close;
		int sa_rc;
		char sa_why[400];
	} w;
};

/* testbed_peer_call.c: the transport to the agent. */
void peer_lost(struct peer *p, const char *why);

/* One request to the agent (steals req); NULL, and the peer marked lost, when the session died. */
json_t *agent_call(struct peer *p, json_t *req);
/* The call in two halves, for work done here while the agent works: send (0 or -1), then the answer. */
int agent_send(struct peer *p, json_t *req);
json_t *agent_recv(struct peer *p);
/* A request whose answer is not waited for (the next receive skips it): 0, or -1 with the peer lost. */
int agent_send_ahead(struct peer *p, json_t *req);

/*
 * testbed_peer.c: the peer testbed opened (both ends checked, the agent
 * started, provenance into meta when not NULL) or NULL, having said why;
 * and closed.
 */
struct peer *peer_open(const struct testbed_config *cfg, json_t *meta);
void peer_close(struct peer *p);
/* The ssh destination and options usable? 0, or -1 with why. */
int peer_host_check(const struct testbed_config *cfg, char *why, size_t len);
/* Why the peer is lost (p as void *), or NULL. */
const char *peer_lost_why(void *p);
/* Busy ticks of the peer's CPUs, from its /proc/stat through ssh; -1 with why. */
long long peer_stat(struct peer *p, char *why, size_t len);

#endif
