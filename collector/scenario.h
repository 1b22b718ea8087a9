/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario files: scenarios/NAME.ini, read with inih. Format (docs/scenarios.md):
 *
 *   [scenario]
 *   description = one line for `ipsecperf list`
 *   load = iperf3            ; or "stream", the built-in sender
 *
 *   [offload]                ; ethtool -K features, set on both ends
 *   tso = off
 *   gso = on
 *
 * An unknown section or key is an error naming file:line.
 */
#ifndef IPSECPERF_SCENARIO_H
#define IPSECPERF_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define SCENARIO_MAX_OFFLOADS 16

struct offload_setting {
	char feature[48]; /* ethtool -K name: tso, gso, gro, rx-gro-list, ... */
	bool on;
};

struct scenario {
	char name[64];       /* file name without .ini */
	char path[PATH_MAX];
	char description[160];
	char load[16];       /* "iperf3" (default) or "stream" */
	struct offload_setting offloads[SCENARIO_MAX_OFFLOADS];
	int noffloads;
	char *text;          /* the file as read, for meta.json */
};

/*
 * Parse one scenario file. On error returns -1 and writes one line
 * "FILE:LINE: why" into err.
 */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
void scenario_free(struct scenario *sc);

/* Where scenario files are looked up ($IPSECPERF_SCENARIOS, or installed). */
const char *scenario_dir(void);

/*
 * Resolve a name (or a path with '/' or ending in .ini) to a file and load it.
 * Unknown names get an error listing what exists.
 */
int scenario_find(const char *name, struct scenario *sc, char *err, size_t errlen);

/* All scenario files in scenario_dir(), sorted by name; caller frees. */
int scenario_load_all(struct scenario **out, int *n, char *err, size_t errlen);

/* Parse "on"/"off" (also yes/no, true/false, 1/0); -1 if neither. */
int parse_bool(const char *s);

#endif
