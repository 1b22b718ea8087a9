// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the scenario reader (collector/run/scenario.c):
 * scenario_load() reads a path, so each input is written to a file in
 * /dev/shm first. The table of loads is the target's own (the loads' code
 * starts programs and is not linked here), with every load's name and
 * caps, the table's look-ups the real ones (loads_find.c); the stand-ins'
 * [load] keys are whole numbers, so that a `load =` line, [tcp-auth] on a
 * load without it and [load] keys, taken or refused, reach the reader's
 * checks (the real loads' checks are unit-tested). Build and run: make
 * fuzz (docs/fuzzing.md).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enclink.h"
#include "loads.h"
#include "scenario.h"

/* [load] keys: each a whole number from 0 to 2^20. */
static int keys_numbers(const struct scenario *sc, char *why, size_t len)
{
	for (int i = 0; i < sc->nload_keys; i++) {
		const char *v = sc->load_keys[i].value;
		char *end;
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < 0 || n > (1L << 20)) {
			snprintf(why, len, "[load] %s must be a whole number, not '%s'", sc->load_keys[i].key, v);
			return -1;
		}
	}
	return 0;
}

#define STAND_IN(n, c, k) (&(const struct load_kind){ .name = n, .title = "the load " n, .caps = c, .check_keys = k })
const struct load_kind *const load_kinds[] = {
	STAND_IN("iperf3", LOAD_FLOWS, NULL),
	STAND_IN("stream", LOAD_TCP_AUTH | LOAD_AGENT, NULL),
	STAND_IN("tcp-rr", LOAD_AGENT, keys_numbers),
	STAND_IN("tcp-crr", LOAD_AGENT, keys_numbers),
	STAND_IN("udp-rr", LOAD_AGENT, keys_numbers),
	STAND_IN("udp-rate", LOAD_AGENT | LOAD_ONE_WAY, keys_numbers),
	NULL,
};

/* The encrypted links likewise: the sections' names and their ciphers only. */
static const struct enclink_kind fz_wireguard = { .name = "wireguard", .title = "WireGuard",
						  .ciphers = (const char *const[]){ "chacha20-poly1305", NULL } };
static const struct enclink_kind fz_macsec = { .name = "macsec", .title = "MACsec",
					       .ciphers = (const char *const[]){ "gcm-aes-128", "gcm-aes-256", NULL } };
const struct enclink_kind *const enclink_kinds[] = { &fz_wireguard, &fz_macsec, NULL };

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
