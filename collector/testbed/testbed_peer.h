/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer testbed (docs/peer-testbed.md): the sender on this host, the
 * receiver on another one reached with ssh, over a real link (--dev here,
 * --peer-dev there). Offloads are set on both NICs and journaled on the host
 * they were made on; keys go to the peer only through the agent's stdin
 * (`ipsecperf peer-agent`, collector/testbed/peer_agent.c).
 *
 * A façade of testbed_peer.c (open, close, the view of a peer),
 * testbed_peer_call.c (the agent's calls) and testbed_peer_parse.c (its
 * answers and requests, parsed).
 */
#ifndef IPSECPERF_TESTBED_PEER_H
#define IPSECPERF_TESTBED_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "testbed.h"

struct endpoint;

/* The peer testbed's operations for the matrix (tb_peer.c). */
struct testbed_ops;
extern const struct testbed_ops peer_testbed_ops;

/* ---- the peer (its state is testbed_peer*.c's own: testbed_peer_int.h) ---- */

struct peer;

/*
 * The peer testbed opened (both ends checked, the agent started, provenance
 * into meta when not NULL) or NULL, having said why; and closed.
 */
struct peer *peer_open(const struct testbed_config *cfg, json_t *meta);
void peer_close(struct peer *p);
/*
 * The peer options given (--peer, --dev, --peer-dev), the ssh destination
 * and each --ssh-option usable? 0, or -1 with why; checked with the command
 * line, before anything is made.
 */
int peer_host_check(const struct testbed_config *cfg, char *why, size_t len);
/* Why the peer is lost (p as void *), or NULL. */
const char *peer_lost_why(void *p);
/* Busy ticks of the peer's CPUs, from its /proc/stat through ssh; -1 with why. */
long long peer_stat(struct peer *p, char *why, size_t len);

/* What a run reads of an opened peer; it holds while the peer is open (lost or not). */
struct peer_view {
	const struct testbed_config *cfg; /* the options it was opened with */
	const char *ssh_dest;             /* [user@]host */
	const char *peer_kernel;          /* the peer's release */
	const char *addr_tx, *addr_rx;    /* the link's addresses, this host's and the peer's */
	struct endpoint *ep_tx, *ep_rx;   /* this host's end, the peer's */
	bool have_agent;                  /* ipsecperf's agent runs on the peer */
	const char *no_agent_why;         /* else why not */
	/* ssh reaches the peer over the link under test: ESP policies would take it too */
	bool ssh_on_link;
};
struct peer_view peer_view(struct peer *p);

/* testbed_peer_call.c, the transport to the agent: one request (steals req); NULL, and the peer lost, when the session died. */
json_t *agent_call(struct peer *p, json_t *req);
/* The call in two halves, for work done here while the agent works: send (0 or -1), then the answer. */
int agent_send(struct peer *p, json_t *req);
json_t *agent_recv(struct peer *p);
/* A request whose answer is not waited for (the next receive skips it): 0, or -1 with the peer lost. */
int agent_send_ahead(struct peer *p, json_t *req);

/* ---- parsers, exposed for the unit tests ---- */

/* What `ethtool DEV` says about the link. speed_mbps -1: unknown; link -1: not said. */
struct link_info {
	int speed_mbps;
	int link;     /* "Link detected: yes" 1, "no" 0 */
	char duplex[16];
};
int peer_parse_ethtool(const char *text, struct link_info *li);

/*
 * The first address of family ("inet" or "inet6", global scope) in `ip -j
 * addr show dev DEV` output, into addr; with want set, whether want is one
 * of the device's addresses instead. 0 found, -1 not (or not JSON).
 */
int peer_parse_ip_addr(const char *json, const char *family, const char *want, char *addr, size_t len,
		       int *prefix_len);

/* MTU and operstate ("UP", "DOWN", "UNKNOWN") from `ip -j link show dev DEV` (or addr show). */
int peer_parse_ip_link(const char *json, int *mtu, char *state, size_t len);

/* Hex text to bytes; returns the byte count or -1 (odd length, not hex, more than max). */
int peer_hex_decode(const char *hex, uint8_t *out, size_t max);

/*
 * The agent's next request out of buf, which holds *have bytes read from
 * the run: the text before the first '\n', parsed as JSON. The line (it
 * may hold a key) is wiped, the rest moved to the front, and the bytes the
 * move leaves behind wiped too, so that buf beyond *have is all zeroes.
 * 1 with *req (NULL when the line is not a JSON object; the caller
 * decrefs), or 0 when buf holds no whole line yet.
 */
int peer_request_take(char *buf, size_t *have, json_t **req);

/* From now on what jansson frees is wiped first: the agent's requests carry keys. */
void peer_json_wipe_frees(void);

/* Sum of the busy ticks of every "cpuN" line of /proc/stat text; -1 on no line. */
long long peer_stat_busy_ticks(const char *text);

#endif
