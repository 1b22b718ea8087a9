// SPDX-License-Identifier: GPL-2.0
/* The records' builder, one for every testbed (matrix.h; docs/results-format.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "cpu.h"
#include "log.h"
#include "enclink.h"
#include "kstat.h"
#include "matrix.h"

const char *const run_clock_names[] = { "auto", "real", "virtual", NULL };

json_t *record_new(const char *testbed, const char *scenario, int repeat)
{
	char start[40];
	struct utsname u;

	uname(&u);
	iso8601_now(start, sizeof(start));
	/* measured here, on this host's clock (a vm host's virtual clock replaces it: record_clock) */
	return json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:s}", "version", 1, "kernel", u.release,
			 "scenario", scenario, "repeat", repeat, "testbed", testbed, "start", start, "clock",
			 "real");
}

/*
 * The virtual clock advances one guest second per 10^9 / 2^shift executed
 * instructions, idle time skipped: the guest's busy seconds are its
 * instructions. -1 when the record has no busy time or no bytes.
 */
double record_icount_per_byte(json_t *rec, int shift)
{
	json_t *busy = json_object_get(json_object_get(rec, "cpu_busy_s"), "total");
	json_t *win = json_object_get(rec, "cpu_window_s"), *bytes = json_object_get(rec, "bytes");
	double b = json_is_number(bytes) ? json_number_value(bytes) : 0, s;

	if (!json_is_number(busy) || !(b > 0) || json_number_value(busy) < 0)
		return -1;
	s = json_number_value(busy);
	/*
	 * /proc/stat counts busy time in 10 ms ticks, the window is read to
	 * the nanosecond: the one vCPU cannot be busier than the window is
	 * long, and a saturated one (a stream's) is busy the whole window.
	 */
	if (json_is_number(win) && json_number_value(win) > 0 && s > json_number_value(win))
		s = json_number_value(win);
	return s * (1e9 / (double)(1u << shift)) / b;
}

void record_clock(json_t *rec, bool virtual_clock, int shift)
{
	json_object_set_new(rec, "clock", json_string(virtual_clock ? "virtual" : "real"));
	if (!virtual_clock)
		return;
	double ipb = record_icount_per_byte(rec, shift);

	/*
	 * The guest counted its cycles as busy time x its TSC: under -icount
	 * neither is the host's, and the figure would be fiction. Its cost is
	 * the instructions below; its cycles are not written.
	 */
	for (const char *const *k = (const char *const[]){ "cycles", "cycles_method", "cycles_per_byte",
		     "cycles_per_byte_sender", "cycles_per_byte_receiver", "cycles_method_sender",
		     "cycles_method_receiver", "cycles_per_transaction", "cycles_per_datagram", NULL }; *k; k++)
		json_object_del(rec, *k);
	json_object_set_new(rec, "instructions_per_byte", ipb >= 0 ? json_real(ipb) : json_null());
	json_object_set_new(rec, "instructions_method",
			    json_string(ipb >= 0 ? "icount" : "unavailable: the run measured no busy time or no bytes"));
	if (ipb < 0)
		return;
	double ins = ipb * json_number_value(json_object_get(rec, "bytes"));
	const char *unit = json_string_value(json_object_get(rec, "unit"));
	char key[64];

	json_object_set_new(rec, "instructions", json_integer((json_int_t)ins));
	/* a request/response or packet-rate load: its cost per transaction or datagram, as cycles were */
	if (!unit || strlen(unit) > 20)
		return;
	snprintf(key, sizeof(key), "%ss", unit);
	double units = json_number_value(json_object_get(rec, key));

	snprintf(key, sizeof(key), "instructions_per_%s", unit);
	json_object_set_new(rec, key, units > 0 ? json_real(ins / units) : json_null());
}

void record_status(json_t *rec, const char *status, const char *reason)
{
	json_object_set_new(rec, "status", json_string(status));
	if (reason) {
		/* one line, and no control character: a reason may quote another host's stderr */
		char *r = strdup(reason);

		msg_clean(r, true);
		json_object_set_new(rec, "reason", json_string(r ?: reason));
		free(r);
	}
}

int record_is(json_t *rec, const char *s)
{
	const char *st = json_string_value(json_object_get(rec, "status"));

	return st && !strcmp(st, s);
}

/* t (CLOCK_REALTIME seconds) as ISO 8601 UTC with microseconds */
static json_t *iso8601_us(double t)
{
	time_t s = (time_t)t;
	long us = (long)((t - (double)s) * 1e6 + 0.5);
	char buf[80];
	struct tm tm;

	if (us >= 1000000) {
		s++;
		us -= 1000000;
	}
	gmtime_r(&s, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
	return json_string(buf);
}

void record_window(json_t *rec, const struct cpu_acct *cpu)
{
	json_object_set_new(rec, "window_start", iso8601_us(cpu->rt0));
	json_object_set_new(rec, "window_end", iso8601_us(cpu->rt1));
}

json_t *record_busy_per_cpu(const struct cpu_acct *cpu)
{
	json_t *a = json_array();

	for (int i = 0; i < cpu->ncpu; i++)
		json_array_append_new(a, json_real(cpu_busy_s(cpu, i)));
	return a;
}

json_t *record_cpb(uint64_t cycles, uint64_t bytes)
{
	double v = cycles_per_byte(cycles, bytes);

	return v >= 0 ? json_real(v) : json_null();
}

void record_instructions(json_t *rec, const struct cpu_acct *cpu, uint64_t bytes, const char *sfx)
{
	char why[160], key[64];
	uint64_t n;
	bool ok = cpu_instructions(cpu, &n, why, sizeof(why));
	char method[200];

	/* beside the cycles, from the same CPUs' counters over the same window; never estimated */
	snprintf(key, sizeof(key), "instructions%s", sfx);
	json_object_set_new(rec, key, ok ? json_integer((json_int_t)n) : json_null());
	snprintf(key, sizeof(key), "instructions_per_byte%s", sfx);
	json_object_set_new(rec, key, ok && bytes ? json_real((double)n / (double)bytes) : json_null());
	snprintf(method, sizeof(method), "unavailable: %s", why);
	snprintf(key, sizeof(key), "instructions_method%s", sfx);
	json_object_set_new(rec, key, json_string(ok ? "pmu" : method));
}

void record_load(json_t *rec, const struct scenario *sc, const struct load_result *lr)
{
	const struct load_kind *k = load_of(sc);

	json_object_set_new(rec, "load", json_string(k->name));
	json_object_set_new(rec, "duration_s", json_real(lr->duration_s));
	json_object_set_new(rec, "bytes", json_integer((json_int_t)lr->bytes));
	json_object_set_new(rec, "throughput_bps", json_real(lr->throughput_bps));
	json_object_set_new(rec, "sender_bps", json_real(lr->sender_bps));
	json_object_set_new(rec, "retransmits",
			    lr->retransmits >= 0 ? json_integer(lr->retransmits) : json_null());
	if (lr->congestion[0]) /* the sender's congestion control, as the load saw it */
		json_object_set_new(rec, "congestion", json_string(lr->congestion));
	if (lr->direction != LOAD_TX) /* --direction: which end sent */
		json_object_set_new(rec, "direction", json_string(load_direction_names[lr->direction]));
	if (lr->nflows > 1) { /* --flows: each flow, and how evenly they shared the link */
		json_t *a = json_array();

		for (int i = 0; i < lr->nflows; i++) {
			const struct load_flow *f = &lr->flows[i];

			json_array_append_new(a, json_pack("{s:i, s:I, s:f, s:o, s:o}", "port", f->port, "bytes",
							   (json_int_t)f->bytes, "throughput_bps", f->throughput_bps,
							   "cpu_sender", f->cpu_tx >= 0 ? json_integer(f->cpu_tx) : json_null(),
							   "cpu_receiver", f->cpu_rx >= 0 ? json_integer(f->cpu_rx) : json_null()));
			if (lr->direction != LOAD_TX)
				json_object_set_new(json_array_get(a, i), "reverse", json_boolean(f->back));
		}
		json_object_set_new(rec, "flows", json_integer(lr->nflows));
		json_object_set_new(rec, "flow", a);
		json_object_set_new(rec, "fairness", json_real(load_fairness(lr->flows, lr->nflows)));
	}
	if (lr->extra)
		json_object_update(rec, lr->extra);
	if (k->record)
		k->record(rec, sc, lr);
}

/* rec[key] / units as a JSON real, null when rec has no such number (or no units). */
static json_t *per(json_t *rec, const char *key, double units)
{
	json_t *v = json_object_get(rec, key);

	return json_is_number(v) && units > 0 ? json_real(json_number_value(v) / units) : json_null();
}

void record_encryption(json_t *rec, const struct scenario *sc)
{
	const struct enclink_kind *k = enclink_find(sc->enclink.kind);
	char alg[160];

	if (sc->ipsec.on) {
		scenario_esp_alg(sc, alg, sizeof(alg));
		json_object_set_new(rec, "encryption", json_pack("{s:s, s:s, s:s}", "kind", "esp", "title", "ESP",
								  "cipher", alg));
	} else if (k) {
		json_object_set_new(rec, "encryption", json_pack("{s:s, s:s, s:s}", "kind", k->name, "title", k->title,
								  "cipher", sc->enclink.cipher));
	}
}

void record_per_unit(json_t *rec, const struct scenario *sc)
{
	static const char *const costs[] = { "cycles", "cycles_sender", "cycles_receiver", "instructions",
					     "instructions_sender", "instructions_receiver" };
	const char *unit = load_of(sc)->unit, *name;
	char key[80], per_key[80];
	json_t *c;

	if (!unit)
		return;
	/* on every record of the load, so that a reader knows its figures even when none is ok */
	json_object_set_new(rec, "unit", json_string(unit));
	if (!record_is(rec, "ok"))
		return;
	snprintf(key, sizeof(key), "%ss", unit);
	double units = json_number_value(json_object_get(rec, key));

	for (size_t i = 0; i < sizeof(costs) / sizeof(costs[0]); i++) {
		/* only beside a per-byte figure: where that is null (a peer without its agent), so is this */
		char cpb[80];

		snprintf(cpb, sizeof(cpb), "%.*s_per_byte%s", (int)strcspn(costs[i], "_"), costs[i],
			 costs[i] + strcspn(costs[i], "_"));
		if (!json_object_get(rec, costs[i]))
			continue;
		snprintf(per_key, sizeof(per_key), "%.*s_per_%s%s", (int)strcspn(costs[i], "_"), costs[i], unit,
			 costs[i] + strcspn(costs[i], "_"));
		json_object_set_new(rec, per_key, json_is_number(json_object_get(rec, cpb)) ? per(rec, costs[i], units)
											 : json_null());
	}
	snprintf(per_key, sizeof(per_key), "per_%s", unit);
	json_object_foreach(json_object_get(rec, "counters"), name, c)
		if (json_is_object(c))
			json_object_set_new(c, per_key, per(c, "count", units));
}

void record_xfrm_stat(json_t *rec, const struct kstat *before, const bool *ok_before, const struct kstat *after,
		      const bool *ok_after)
{
	static const char *const side[2] = { "sender", "receiver" };
	json_t *o = json_object();

	for (int i = 0; i < 2; i++) {
		json_t *d = ok_before[i] && ok_after[i] ? kstat_xfrm_delta(&before[i], &after[i]) : NULL;

		json_object_set_new(o, side[i], d ? d : json_null());
	}
	json_object_set_new(rec, "xfrm_stat", o);
}
