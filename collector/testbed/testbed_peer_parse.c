// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed's parsers: ethtool's link report, ip -j addr, /proc/stat,
 * and the agent's requests. Unit-tested; the requests are fuzzed too
 * (tests/fuzz/fuzz_peer_request.c).
 */
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "log.h"
#include "hex.h"
#include "testbed_peer.h"

int peer_parse_ethtool(const char *text, struct link_info *li)
{
	li->speed_mbps = -1;
	li->link = -1;
	li->duplex[0] = '\0';
	for (const char *line = text; line && *line;) {
		const char *s = line + strspn(line, " \t");
		int v;

		if (!strncmp(s, "Speed: ", 7) && sscanf(s + 7, "%dMb/s", &v) == 1 && v > 0)
			li->speed_mbps = v;
		else if (!strncmp(s, "Link detected: ", 15))
			li->link = !strncmp(s + 15, "yes", 3);
		else if (!strncmp(s, "Duplex: ", 8))
			sscanf(s + 8, "%15s", li->duplex);
		msg_clean(li->duplex, true);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return li->link < 0 && li->speed_mbps < 0 ? -1 : 0;
}

static json_t *first_link(const char *json)
{
	json_t *root = json_loads(json, 0, NULL);
	json_t *l;

	if (!json_is_array(root) || !json_is_object(l = json_array_get(root, 0))) {
		json_decref(root);
		return NULL;
	}
	json_incref(l);
	json_decref(root);
	return l;
}

int peer_parse_ip_link(const char *json, int *mtu, char *state, size_t len)
{
	json_t *l = first_link(json);

	if (!l)
		return -1;
	*mtu = json_is_integer(json_object_get(l, "mtu")) ? (int)json_integer_value(json_object_get(l, "mtu")) : -1;
	snprintf(state, len, "%s", json_string_value(json_object_get(l, "operstate")) ?: "UNKNOWN");
	msg_clean(state, true); /* JSON escapes may spell a control character */
	json_decref(l);
	return *mtu > 0 ? 0 : -1;
}

int peer_parse_ip_addr(const char *json, const char *family, const char *want, char *addr, size_t len,
		       int *prefix_len)
{
	json_t *l = first_link(json), *ai, *a;
	size_t i;
	int rc = -1;

	if (!l)
		return -1;
	ai = json_object_get(l, "addr_info");
	json_array_foreach(ai, i, a) {
		const char *fam = json_string_value(json_object_get(a, "family"));
		const char *local = json_string_value(json_object_get(a, "local"));
		const char *scope = json_string_value(json_object_get(a, "scope"));

		if (!fam || !local)
			continue;
		if (want) {
			if (strcmp(local, want))
				continue;
		} else if (strcmp(fam, family) || (scope && strcmp(scope, "global"))) {
			continue;
		}
		snprintf(addr, len, "%s", local);
		msg_clean(addr, true);
		if (prefix_len)
			*prefix_len = (int)json_integer_value(json_object_get(a, "prefixlen"));
		rc = 0;
		break;
	}
	json_decref(l);
	return rc;
}

long long peer_stat_busy_ticks(const char *text)
{
	long long sum = 0;
	int lines = 0;

	for (const char *line = text; line && *line;) {
		unsigned long long b, t;
		int cpu;

		/* "cpuN ..." lines only: the "cpu " line is their sum */
		if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9' &&
		    parse_stat_cpu_line(line, &cpu, &b, &t) == 0) {
			sum += (long long)b;
			lines++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return lines ? sum : -1;
}

int peer_hex_decode(const char *hex, uint8_t *out, size_t max)
{
	return hex_decode(hex, out, max);
}

int peer_request_take(char *buf, size_t *have, json_t **req)
{
	char *nl = memchr(buf, '\n', *have);
	size_t used, rest;

	*req = NULL;
	if (!nl)
		return 0;
	used = (size_t)(nl + 1 - buf);
	rest = *have - used;
	*req = json_loadb(buf, used - 1, 0, NULL);
	if (*req && !json_is_object(*req)) {
		json_decref(*req);
		*req = NULL;
	}
	/* the line may hold a key: wipe it, and the copy of the rest that the move leaves behind */
	memmove(buf, nl + 1, rest);
	explicit_bzero(buf + rest, used);
	*have = rest;
	return 1;
}

static void wipe_free(void *p)
{
	if (p)
		explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

void peer_json_wipe_frees(void)
{
	json_set_alloc_funcs(malloc, wipe_free);
}

