/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the loads' own files share, below the table of loads (so that no
 * load calls back into the table or the scenario reader): starting their
 * children and reading their scenario's [load] keys.
 */
#ifndef IPSECPERF_LOAD_UTIL_H
#define IPSECPERF_LOAD_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "scenario.h"

/*
 * A load's child: forked into netns (NULL: here) and pinned to cpu (-1:
 * not), without the descriptors ipsecperf holds (the journal's, the
 * results'); an error of its start goes to err. As fork(): 0 in the child.
 */
pid_t load_fork(const char *netns, int cpu, char *err, size_t errlen);

/* Wait until *flag is set by child (0), or child ended, a stop was asked or timeout_ms passed (-1). */
int load_wait_flag(_Atomic int *flag, pid_t child, int timeout_ms);

/*
 * A child forked for a load (pid, -1: fork failed): journaled as the run's
 * process, then waited for until it sets *flag. 0, or -1 with why (its
 * err, "interrupted", or late when it did not within 5 s).
 */
int load_child_ready(pid_t pid, _Atomic int *flag, const char *err, const char *late, char *why, size_t len);

/*
 * Must the load end now? -1 with why when a stop was asked or the child
 * *pid (named who) ended (then *pid = -1, and why quotes its err); else 0.
 */
int load_child_gone(pid_t *pid, const char *who, const char *err, char *why, size_t len);

/* Stop a child by setting its flag to value, by a signal if it has not ended within 3 s; *pid = -1 after. */
void load_child_stop(pid_t *pid, _Atomic int *flag, int value);

/* A load's child run by the peer agent (loads.h, agent_ops): its pid and the page it shares. */
struct load_agent {
	pid_t pid;
	void *page;
};

/* The load's agent state, made at the first request with a page of size bytes (MAP_SHARED); NULL: no memory. */
struct load_agent *load_agent_of(void **state, size_t size);

/* Is its child running? One that ended is reaped: its pid is no longer ours to signal. */
bool load_agent_running(struct load_agent *a);

/*
 * The answer to the request that forked a->pid: {"ok": true, "pid"} once
 * the child sets *flag, else {"ok": false, "error"} (its err, or late) with
 * the child stopped through *stop.
 */
json_t *load_agent_started(struct load_agent *a, _Atomic int *flag, _Atomic int *stop, const char *err,
			   const char *late);

/* The value of the scenario's [load] key, or NULL. */
const char *load_key(const struct scenario *sc, const char *key);

/*
 * Where the agent's request asks a load's receiver to listen: "addr" (a
 * string), "port" and "cpu" as peer_req_port and peer_req_cpu take them
 * (a key pinned to the agent may send anything). NULL, or why not (a
 * static buffer).
 */
const char *load_agent_where(json_t *req, int *port, int *cpu);

/* The [load] key as a whole number in [min, max] (def when absent or sc NULL): 0, or -1 with why. */
int load_key_int(const struct scenario *sc, const char *key, long def, long min, long max, long *v, char *why,
		 size_t len);

#endif
