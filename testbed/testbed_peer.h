/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer testbed (docs/peer-testbed.md): the sender on this host, the
 * receiver on another one reached with ssh, over a real link (--dev here,
 * --peer-dev there). Offloads are set on both NICs and journaled on the host
 * they were made on; keys go to the peer only through the agent's stdin
 * (`ipsecperf peer-agent`, testbed_peer_agent.c).
 */
#ifndef IPSECPERF_TESTBED_PEER_H
#define IPSECPERF_TESTBED_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* The peer testbed's operations for the matrix are peer_testbed_ops (run/matrix.h). */

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

/*
 * The agent's run request. It runs only what the peer testbed sends:
 * ip -j addr show dev DEV; ethtool DEV, -i DEV, -k DEV, -K DEV FEATURE
 * on|off ...; iperf3 --version; timeout --version; uname -r; printenv
 * SSH_CONNECTION; cat of files under /proc and /sys. 0 when argv (argc
 * words) is one of those, else -1 with why.
 */
int peer_run_allowed(char *const argv[], int argc, char *why, size_t len);

/* How long the agent lets a program run (the run waits AGENT_TIMEOUT_MS for the answer). */
#define PEER_RUN_DEADLINE_MS 10000

/* What a program the agent ran did (exec_run_limited's result). */
struct peer_run_output {
	int status;              /* its exit status; -1: it could not be started */
	const char *out, *err;   /* what it printed; may hold NULs */
	size_t out_len, err_len;
	bool too_long, timed_out;
};

/*
 * The run answer's line (malloc'd, without its newline), never longer
 * than REMOTE_ANSWER_MAX: {"ok":true,"ran":true,"status","out","err"},
 * or "ok" false with "ran" (whether the program ran), "error", and
 * "too_long", "timed_out" or "binary" for output the answer cannot carry.
 */
char *peer_run_answer(const struct peer_run_output *o);

#define PEER_RUN_NOT_RUN (-2)
/*
 * A run answer read: the exit status, with *out and *err (malloc'd; NULL
 * pointers skip them); PEER_RUN_NOT_RUN when the agent did not run the
 * program (an agent without the request, or an argv it does not run: ssh
 * may); -1 when it ran but its output did not come, *err saying why.
 */
int peer_run_result(json_t *r, char **out, char **err);

/* Sum of the busy ticks of every "cpuN" line of /proc/stat text; -1 on no line. */
long long peer_stat_busy_ticks(const char *text);

#endif
