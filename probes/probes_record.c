// SPDX-License-Identifier: GPL-2.0
/*
 * A window's record: the counters' differences between the snapshots the
 * loader (probes_snap.c) took at the window's and the load's edges, their
 * per-packet ratios, the SAs' counters over the window, and what the
 * probes say about themselves (probe_missed, probe_cost).
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "perfcount.h"
#include "probes.h"
#include "probes_int.h"

static json_t *sa_find(json_t *list, json_t *e)
{
	/* netns: the netns testbed's ends; host: the peer testbed's (a key neither has is alike) */
	const char *keys[] = { "spi", "dir", "netns", "host" };
	size_t i;
	json_t *o;

	json_array_foreach(list, i, o) {
		bool same = true;

		for (int k = 0; k < 4 && same; k++) {
			json_t *a = json_object_get(o, keys[k]), *b = json_object_get(e, keys[k]);

			same = (!a && !b) || json_equal(a, b);
		}
		if (same)
			return o;
	}
	return NULL;
}

json_t *probe_sa_window(json_t *open, json_t *close)
{
	static const char *const nums[] = { "packets", "bytes", "wire_packets" };
	json_t *out = json_array(), *e;
	size_t i;

	json_array_foreach(close, i, e) {
		json_t *o = json_deep_copy(e), *b = sa_find(open, e);

		for (int k = 0; k < 3; k++) {
			json_t *v1 = json_object_get(e, nums[k]), *v0 = b ? json_object_get(b, nums[k]) : NULL;

			/* counters wrap as the kernel's u64 do: never a signed overflow */
			if (json_is_integer(v1) && json_is_integer(v0))
				json_object_set_new(o, nums[k], json_integer((json_int_t)((uint64_t)json_integer_value(v1) -
										    (uint64_t)json_integer_value(v0))));
		}
		json_array_append_new(out, o);
	}
	return out;
}

void probe_bases_from_sa(struct probe_bases *b, json_t *sa, bool have_segs, uint64_t segs)
{
	size_t i;
	json_t *e;

	*b = (struct probe_bases){ .tcp_segments = segs, .has_tcp = have_segs };
	json_array_foreach(sa, i, e) {
		json_t *wire = json_object_get(e, "wire_packets"), *pk = json_object_get(e, "packets");
		const char *dir = json_string_value(json_object_get(e, "dir"));

		if (!dir || strcmp(dir, "out"))
			continue;
		if (json_is_integer(wire)) {
			b->esp_packets += json_integer_value(wire);
			b->has_esp = true;
		}
		if (json_is_integer(pk)) {
			b->superpackets += json_integer_value(pk);
			b->has_super = true;
		}
	}
}

double probe_ratio(uint64_t count, uint64_t base, bool has)
{
	if (!has || !base)
		return -1.0;
	return (double)count / (double)base;
}

static json_t *ratio_json(uint64_t count, uint64_t base, bool has)
{
	double r = probe_ratio(count, base, has);

	return r < 0 ? json_null() : json_real(r);
}

/*
 * "per_packet_load": count_load per packet over the whole load, quiet at
 * both ends, against the SAs' own counts of it ("sa_load") or, without
 * SAs, the segments sent (xmit_segs' count_load): exact where the window's
 * edges are not (the SAs and the programs are read a moment apart).
 */
static void per_packet_load(json_t *out, json_t *rec)
{
	json_t *segs = json_object_get(json_object_get(out, "xmit_segs"), "count_load"), *o;
	struct probe_bases b;
	const char *name;

	if (!json_is_array(json_object_get(rec, "sa_load")))
		return;
	probe_bases_from_sa(&b, json_object_get(rec, "sa_load"), json_is_integer(segs),
			    json_is_integer(segs) ? json_integer_value(segs) : 0);
	json_object_foreach(out, name, o) {
		json_t *n = json_object_get(o, "count_load");

		if (json_is_integer(n))
			json_object_set_new(o, "per_packet_load",
					    b.has_esp && b.esp_packets ? ratio_json(json_integer_value(n), b.esp_packets, true)
								       : ratio_json(json_integer_value(n), b.tcp_segments, b.has_tcp));
	}
}

static uint64_t sa_value(const struct snapshot *s, const struct ipp_sa_key *k)
{
	for (int i = 0; i < s->nsa; i++)
		if (s->sa[i].k.spi == k->spi && s->sa[i].k.ctr == k->ctr)
			return s->sa[i].v;
	return 0;
}

/* {"0x<spi>": calls} between two snapshots, SAs that counted nothing left out. */
static json_t *per_sa_json(const struct snapshot *a, const struct snapshot *b, int c)
{
	json_t *per = json_object();

	for (int i = 0; i < b->nsa; i++) {
		uint64_t n;
		char spi[16];

		if (b->sa[i].k.ctr != (unsigned)c)
			continue;
		n = b->sa[i].v - sa_value(a, &b->sa[i].k);
		if (!n)
			continue;
		snprintf(spi, sizeof(spi), "0x%08x", ntohl(b->sa[i].k.spi));
		json_object_set_new(per, spi, json_integer((json_int_t)n));
	}
	return per;
}

/*
 * [count on CPU 0, on CPU 1, ...] of counter c between two snapshots, one
 * entry per possible CPU (the BPF maps' per-CPU slots): their sum is the
 * counter's count over the same snapshots, exactly. NULL where the
 * snapshots kept no per-CPU counts (the perf fallback, too many CPUs).
 */
static json_t *per_cpu_json(const struct probes *p, const struct snapshot *a, const struct snapshot *b, int c)
{
	int i = probes_pcpu_index(c);
	json_t *arr;

	if (i < 0 || !a->have_pcpu || !b->have_pcpu || p->ncpus <= 0 || p->ncpus > PROBES_MAX_CPUS)
		return NULL;
	arr = json_array();
	for (int cpu = 0; cpu < p->ncpus; cpu++)
		json_array_append_new(arr, json_integer((json_int_t)(b->pcpu[i][cpu] - a->pcpu[i][cpu])));
	return arr;
}

/* The kernel's own count of skbs (c = IPP_XMIT_SKBS) or segments between two snapshots. */
static bool kernel_delta(const struct snapshot *a, const struct snapshot *b, int c, uint64_t *d)
{
	bool ok = c == IPP_XMIT_SKBS ? a->k.skbs_ok && b->k.skbs_ok : a->k.segs_ok && b->k.segs_ok;

	*d = !ok ? 0 : c == IPP_XMIT_SKBS ? b->k.skbs - a->k.skbs : b->k.segs - a->k.segs;
	return ok;
}

/* count_load: the programs', or for skbs and segments the kernel's where no program counts them. */
static json_t *load_count(const struct probes *p, int c)
{
	uint64_t d;

	if (p->xmit_bpf || !(probe_counters[c].flags & PC_XMIT))
		return json_integer((json_int_t)(p->lend.c.v[c] - p->lbegin.c.v[c]));
	return kernel_delta(&p->lbegin, &p->lend, c, &d) ? json_integer((json_int_t)d) : json_null();
}

/*
 * Beside the xmit program's count, the kernel's own of the same event:
 * {"count", "count_load", "symbol"} (tests compare them).
 */
static json_t *kernel_json(const struct probes *p, int c)
{
	bool avail = c == IPP_XMIT_SKBS ? p->kc.skbs_ok : p->kc.segs_ok;
	const char *how = c == IPP_XMIT_SKBS ? p->kc.skbs_how : p->kc.segs_how;
	uint64_t d, dl;

	if (!avail || !kernel_delta(&p->begin, &p->end, c, &d))
		return json_pack("{s:n, s:s++}", "count", "symbol", "unavailable: ",
				 avail ? "the kernel's counter could not be read at the window's edges" : how);
	return json_pack("{s:I, s:o, s:s}", "count", (json_int_t)d, "count_load",
			 p->have_load && kernel_delta(&p->lbegin, &p->lend, c, &dl) ? json_integer((json_int_t)dl)
										    : json_null(),
			 "symbol", how);
}

/* The probes' missed runs and their cost over the window, into rec. */
static void cost_record(struct probes *p, json_t *rec)
{
	/*
	 * A program the kernel did not run because one of ours was already
	 * running on that CPU (a softirq on the way out of an interrupt) is a
	 * missed count; kernels that count these say how many.
	 */
	if (p->skel)
		json_object_set_new(rec, "probe_missed",
				    json_pack("{s:I, s:o}", "window", (json_int_t)(p->end.missed - p->begin.missed), "load",
					      p->have_load ? json_integer((json_int_t)(p->lend.missed - p->lbegin.missed))
							   : json_null()));
	if (p->stats_fd >= 0) {
		uint64_t ns = p->end.prog_ns - p->begin.prog_ns, runs = p->end.prog_runs - p->begin.prog_runs;

		json_object_set_new(rec, "probe_cost",
				    json_pack("{s:I, s:I, s:o, s:o}", "runs", (json_int_t)runs, "ns", (json_int_t)ns,
					      "ns_per_run", runs ? json_real((double)ns / runs) : json_null(),
					      "programs", probes_programs_cost(p)));
	}
}

json_t *probes_counters_json(struct probes *p, json_t *rec)
{
	json_t *out = json_object();
	uint64_t d[IPP_NR_SLOTS];
	struct probe_bases b;
	bool ok = p && p->have_window;

	for (int i = 0; i < IPP_NR_SLOTS; i++)
		d[i] = ok ? p->end.c.v[i] - p->begin.c.v[i] : 0;
	if (ok && !p->xmit_bpf)
		for (int c = IPP_XMIT_SKBS; c <= IPP_XMIT_SEGS; c++)
			if (!kernel_delta(&p->begin, &p->end, c, &d[c]))
				probes_set_how(p, c, false, "the kernel's counter could not be read at the window's edges");
	probe_bases_from_sa(&b, rec ? json_object_get(rec, "sa") : NULL,
			    ok && p->avail[IPP_XMIT_SEGS], d[IPP_XMIT_SEGS]);
	if (ok && p->pc && perfcount_lost(p->pc))
		probes_set_how(p, IPP_XMIT_SEGS, false, "the fallback lost %llu samples of GSO skbs (its ring filled between drains)",
			(unsigned long long)perfcount_lost(p->pc));
	if (ok && rec)
		cost_record(p, rec);
	for (int c = 0; c < IPP_NR_COUNTERS; c++) {
		const struct probe_counter *pc = &probe_counters[c];
		json_t *o;

		if (!p || !ok || !p->avail[c]) {
			o = json_pack("{s:n, s:n, s:s}", "count", "per_packet", "symbol",
				      !p ? "unavailable: no probe set" :
				      p->avail[c] ? "unavailable: no measured window" : p->how[c]);
			json_object_set_new(out, probe_counters[c].name, o);
			continue;
		}
		o = json_object();
		json_object_set_new(o, "count", json_integer((json_int_t)d[c]));
		json_object_set_new(o, "per_packet",
				    b.has_esp && b.esp_packets ? ratio_json(d[c], b.esp_packets, true)
							       : ratio_json(d[c], b.tcp_segments, b.has_tcp));
		json_object_set_new(o, "per_esp_packet", ratio_json(d[c], b.esp_packets, b.has_esp));
		json_object_set_new(o, "per_superpacket", ratio_json(d[c], b.superpackets, b.has_super));
		json_object_set_new(o, "per_tcp_segment", ratio_json(d[c], b.tcp_segments, b.has_tcp));
		json_object_set_new(o, "symbol", json_string(p->how[c]));
		if (pc->bytes) /* the perf fallback only counts, but for those it counts always */
			json_object_set_new(o, "bytes", p->pc && !(pc->flags & PC_BYTES_ALWAYS)
								 ? json_null()
								 : json_integer((json_int_t)d[pc->bytes]));
		if (p->have_load)
			json_object_set_new(o, "count_load", load_count(p, c));
		if ((pc->flags & PC_XMIT) && p->xmit_bpf)
			json_object_set_new(o, "kernel", kernel_json(p, c));
		if (pc->flags & PC_PER_SA) {
			json_object_set_new(o, "per_sa", per_sa_json(&p->begin, &p->end, c));
			if (p->have_load)
				json_object_set_new(o, "per_sa_load", per_sa_json(&p->lbegin, &p->lend, c));
		}
		if (pc->flags & PC_PER_CPU) {
			json_t *w = per_cpu_json(p, &p->begin, &p->end, c);

			if (w)
				json_object_set_new(o, "per_cpu", w);
			if (p->have_load && (w = per_cpu_json(p, &p->lbegin, &p->lend, c)))
				json_object_set_new(o, "per_cpu_load", w);
		}
		json_object_set_new(out, probe_counters[c].name, o);
	}
	if (ok && rec)
		per_packet_load(out, rec);
	return out;
}

