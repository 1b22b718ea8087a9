/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the loads' own files share, below the table of loads (so that no
 * load calls back into the table or the scenario reader): starting their
 * children and reading their scenario's [load] keys.
 */
#ifndef IPSECPERF_LOAD_UTIL_H
#define IPSECPERF_LOAD_UTIL_H

#include <jansson.h>
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
