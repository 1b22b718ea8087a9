// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the scenario reader (collector/run/scenario.c):
 * scenario_load() reads a path, so each input is written to a file in
 * /dev/shm first. Build and run: make fuzz (docs/fuzzing.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loads.h"
#include "scenario.h"

/* The table of loads, names and caps only: the loads' code is not linked here. */
static const struct load_kind fz_iperf3 = { .name = "iperf3", .caps = LOAD_FLOWS };
static const struct load_kind fz_stream = { .name = "stream", .caps = LOAD_TCP_AUTH };
const struct load_kind *const load_kinds[] = { &fz_iperf3, &fz_stream, NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct scenario sc;
	char err[512];
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/ipsecperf-fuzz-%d.ini", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	if (scenario_load(path, &sc, err, sizeof(err)) == 0) {
		if (strlen(sc.name) >= sizeof(sc.name) || sc.noffloads > SCENARIO_MAX_OFFLOADS)
			abort();
		scenario_free(&sc);
	} else if (strncmp(err, path, strlen(path))) {
		abort(); /* every message names the file */
	}
	return 0;
}
