// SPDX-License-Identifier: GPL-2.0
/*
 * Another host's counters and probe cost (the peer agent's probes-counters
 * answer), taken into a record field by field (probes.h): the counters of
 * probe_counters[] and the keys a record of this host holds, each of its
 * own type, strings cleaned and cut; anything else the peer sent is left
 * out, so that it can put no keys, depth or text of its own in runs.jsonl.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "files.h"
#include "log.h"
#include "probes.h"

#define TAKEN_TEXT_MAX 300 /* bytes of a "symbol" */
#define TAKEN_MAP_MAX 64   /* entries of "per_sa", programs of "programs" */
#define TAKEN_CPU_MAX 512  /* entries of "per_cpu": the CPUs the loader keeps at most */

/* A count: an integer from 0, else null. */
static json_t *count_of(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer(json_integer_value(v)) : json_null();
}

/* A ratio: a finite number from 0, else null. */
static json_t *ratio_of(json_t *v)
{
	double d = json_number_value(v);

	return json_is_number(v) && isfinite(d) && d >= 0 ? json_real(d) : json_null();
}

/* A line of text: the peer's, cleaned and cut between two characters. */
static json_t *text_of(json_t *v)
{
	char buf[TAKEN_TEXT_MAX + 1];

	snprintf(buf, sizeof(buf), "%s", json_is_string(v) ? json_string_value(v) : "unavailable: the peer did not say");
	msg_cut_utf8(buf);
	msg_clean(buf, true);
	return json_string(buf);
}

/* key of from, taken by take into to, when from has it. */
static void take(json_t *to, json_t *from, const char *key, json_t *(*take_fn)(json_t *))
{
	json_t *v = json_object_get(from, key);

	if (v)
		json_object_set_new(to, key, take_fn(v));
}

/* {"0x<spi>": count}: SPIs as this host writes them, at most TAKEN_MAP_MAX. */
static json_t *per_sa_of(json_t *v)
{
	json_t *out = json_object(), *n;
	const char *spi;

	json_object_foreach(v, spi, n) {
		if (json_object_size(out) >= TAKEN_MAP_MAX)
			break;
		if (strlen(spi) == 10 && !strncmp(spi, "0x", 2) && strspn(spi + 2, "0123456789abcdef") == 8)
			json_object_set_new(out, spi, count_of(n));
	}
	return out;
}

/* [count per CPU]: counts from 0, at most TAKEN_CPU_MAX CPUs; else null (a sum that no longer adds up is no spread). */
static json_t *per_cpu_of(json_t *v)
{
	json_t *out, *n;
	size_t i;

	if (json_array_size(v) > TAKEN_CPU_MAX)
		return json_null();
	out = json_array();
	json_array_foreach(v, i, n) {
		if (!json_is_integer(n) || json_integer_value(n) < 0) {
			json_decref(out);
			return json_null();
		}
		json_array_append_new(out, json_integer(json_integer_value(n)));
	}
	return out;
}

/* The kernel's own count beside a program's: {"count", "count_load", "symbol"}. */
static json_t *kernel_of(json_t *v)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", count_of(json_object_get(v, "count")));
	take(o, v, "count_load", count_of);
	json_object_set_new(o, "symbol", text_of(json_object_get(v, "symbol")));
	return o;
}

/* One counter as probes_counters_json makes it, from what was sent (an object or not). */
static json_t *counter_of(json_t *v)
{
	static const char *const ratios[] = { "per_packet", "per_esp_packet", "per_superpacket", "per_tcp_segment",
					      "per_packet_load" };
	json_t *o;

	if (!json_is_object(v))
		return json_pack("{s:n, s:n, s:s}", "count", "per_packet", "symbol",
				 "unavailable: the peer's agent did not count it");
	o = json_object();
	json_object_set_new(o, "count", count_of(json_object_get(v, "count")));
	json_object_set_new(o, "per_packet", ratio_of(json_object_get(v, "per_packet")));
	for (size_t i = 1; i < sizeof(ratios) / sizeof(ratios[0]); i++)
		take(o, v, ratios[i], ratio_of);
	json_object_set_new(o, "symbol", text_of(json_object_get(v, "symbol")));
	take(o, v, "bytes", count_of);
	take(o, v, "count_load", count_of);
	if (json_is_object(json_object_get(v, "kernel")))
		take(o, v, "kernel", kernel_of);
	if (json_is_object(json_object_get(v, "per_sa")))
		take(o, v, "per_sa", per_sa_of);
	if (json_is_object(json_object_get(v, "per_sa_load")))
		take(o, v, "per_sa_load", per_sa_of);
	if (json_is_array(json_object_get(v, "per_cpu")))
		take(o, v, "per_cpu", per_cpu_of);
	if (json_is_array(json_object_get(v, "per_cpu_load")))
		take(o, v, "per_cpu_load", per_cpu_of);
	return o;
}

json_t *probes_counters_taken(json_t *sent)
{
	json_t *out = json_object();

	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		json_object_set_new(out, probe_counters[c].name, counter_of(json_object_get(sent, probe_counters[c].name)));
	return out;
}

/* {"runs", "ns", "ns_per_run"} of one program, or of them all. */
static json_t *cost_of(json_t *v)
{
	return json_pack("{s:o, s:o, s:o}", "runs", count_of(json_object_get(v, "runs")), "ns",
			 count_of(json_object_get(v, "ns")), "ns_per_run", ratio_of(json_object_get(v, "ns_per_run")));
}

json_t *probes_cost_taken(json_t *sent)
{
	json_t *o, *progs, *v;
	const char *name;

	if (!json_is_object(sent))
		return NULL;
	o = cost_of(sent);
	progs = json_object();
	json_object_foreach(json_object_get(sent, "programs"), name, v) {
		if (json_object_size(progs) >= TAKEN_MAP_MAX)
			break;
		if (plain_name_ok(name, 64) && json_is_object(v))
			json_object_set_new(progs, name, cost_of(v));
	}
	json_object_set_new(o, "programs", progs);
	return o;
}
