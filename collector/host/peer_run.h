/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer agent's run request (collector/testbed/peer_agent.c), both ends of it: which
 * programs the agent runs, the answer it sends for one it ran, and that
 * answer read on the run's side (collector/host/endpoint.c); and what any answer
 * of the agent must be. Pure: unit-tested, and fuzzed
 * (tests/fuzz/fuzz_peer_answer.c).
 */
#ifndef IPSECPERF_PEER_RUN_H
#define IPSECPERF_PEER_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The agent's run request. It runs only what the peer testbed sends:
 * ip -j addr show dev DEV; ethtool DEV, -i DEV, -k DEV, -K DEV FEATURE
 * on|off ...; iperf3 --version; timeout --version; uname -r; printenv
 * SSH_CONNECTION; cat of the files the testbed reads (peer_files.h),
 * which the agent reads itself. 0 when argv (argc words) is one of those,
 * else -1 with why (naming the agent's release: a run of another one may
 * send what this one does not run).
 */
int peer_run_allowed(char *const argv[], int argc, char *why, size_t len);

/* A network device's name as the kernel takes one (dev_valid_name), and never an option. */
bool peer_dev_ok(const char *s);

/*
 * What a request to the agent asks its receivers to use (a key pinned to
 * the agent may send any): "port" a port of run --port's range (the run
 * sends no other), else -1; "cpu" a CPU of this host, or -1 when it is
 * absent, null or -1 (not pinned), else -2.
 */
#define PEER_PORT_MIN 1024
int peer_req_port(json_t *req);
int peer_req_cpu(json_t *req);

/*
 * What a key pinned to the agent is served when ssh asks it for one
 * command (collector/testbed/peer_agent_ssh.c), besides the agent's session
 * and its --undo: what peer_run_allowed runs, and what the run sends only
 * through ssh, the iperf3 server or client under timeout(1) (load_iperf3.c,
 * with -A CPU when pinned, the client with -C NAME) and modprobe or rmmod of a module
 * (kmod_name_ok). 0, or -1 with why (naming the agent's release).
 */
int peer_ssh_allowed(char *const argv[], int argc, char *why, size_t len);

/*
 * The exit status of an agent started for a pinned key when it was asked
 * for something it does not serve (said on stderr): the run takes it as the
 * sign of such a key (testbed_peer.c).
 */
#define PEER_AGENT_PINNED_EXIT 4

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

/*
 * Any answer of the agent as the run takes it (steals r): r when it says
 * "ok" true or carries an "error", else NULL (r freed; r may be NULL).
 */
json_t *peer_answer(json_t *r);

#define PEER_RUN_NOT_RUN (-2)
#define PEER_RUN_TOO_LONG (-3)
/*
 * A run answer read: the exit status, with *out and *err (malloc'd; NULL
 * pointers skip them); PEER_RUN_NOT_RUN when the agent did not run the
 * program (an agent without the request, or an argv it does not run: ssh
 * may); -1 when it ran but its output did not come, *err saying why;
 * PEER_RUN_TOO_LONG likewise, when the output was more than an answer
 * holds (a read may be made again over ssh: endpoint.c).
 */
int peer_run_result(json_t *r, char **out, char **err);

#endif
