// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshots at the window's and the load's edges: the programs'
 * per-CPU counts and per-SA map, the kernel's counters, or the perf
 * fallback's; and what our programs cost in between (bpf_enable_stats).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipsecperf.skel.h"
#include "kcount.h"
#include "log.h"
#include "perfcount.h"
#include "probes.h"
#include "probes_int.h"
#include "wait.h"

/*
 * struct bpf_link_info as 6.7+ fills it for a kprobe perf link, mirrored
 * here since the build's headers may be older: its "missed" is the
 * kprobe's own (the probe hit while another kprobe's handler ran on that
 * CPU, through an interrupt), which the program's recursion_misses do not
 * hold. Older kernels leave it 0.
 */
struct kprobe_link_info {
	__u32 type, id, prog_id, pad;
	__u32 perf_type, pad2;
	__u64 func_name;
	__u32 name_len, offset;
	__u64 addr, missed, cookie;
};

/* The kprobe links' own missed hits, summed. */
static uint64_t kprobe_links_missed(const struct probes *p)
{
	uint64_t n = 0;

	for (int i = 0; i < p->nlinks; i++) {
		struct kprobe_link_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_link__fd(p->links[i]), &info, &len) == 0 &&
		    info.type == BPF_LINK_TYPE_PERF_EVENT && len >= sizeof(info) &&
		    (info.perf_type == 3 /* BPF_PERF_EVENT_KPROBE */ || info.perf_type == 4 /* KRETPROBE */))
			n += info.missed;
	}
	return n;
}

int probes_pcpu_index(int c)
{
	int n = 0;

	if (c < 0 || c >= IPP_NR_COUNTERS || !(probe_counters[c].flags & PC_PER_CPU))
		return -1;
	for (int i = 0; i < c; i++)
		n += !!(probe_counters[i].flags & PC_PER_CPU);
	return n < MAX_PCPU ? n : -1;
}

/* Counter c's count on CPU cpu, kept beside the sums (the sums are what the record's "count" is). */
static void pcpu_add(struct snapshot *s, int c, int cpu, uint64_t n)
{
	int i = probes_pcpu_index(c);

	if (i >= 0 && cpu < PROBES_MAX_CPUS)
		s->pcpu[i][cpu] += n;
}

static void snap(struct probes *p, struct snapshot *s)
{
	struct ipp_counts *pc = calloc(p->ncpus, sizeof(*pc));
	uint64_t *v = calloc(p->ncpus, sizeof(*v));
	struct ipp_sa_key k, next, *prev = NULL;
	__u32 zero = 0;

	memset(s, 0, sizeof(*s));
	if (p->pc || !p->skel || !p->nlinks) {
		uint64_t t[IPP_NR_SLOTS];

		kcount_read(&p->kc, &s->k);
		if (!p->pc)
			goto out_free;
		perfcount_read(p->pc, t);
		for (int i = 0; i < IPP_NR_SLOTS; i++)
			s->c.v[i] = t[i];
		goto out_free;
	}
	if (!pc || !v)
		goto out_free;
	struct bpf_program *prog;
	int np = 0;

	bpf_object__for_each_program(prog, p->skel->obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) >= 0 &&
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0) {
			s->prog_ns += info.run_time_ns;
			s->prog_runs += info.run_cnt;
			s->missed += info.recursion_misses;
			if (np < MAX_PROGS) {
				s->pns[np] = info.run_time_ns;
				s->pruns[np] = info.run_cnt;
			}
		}
		np++;
	}
	s->missed += kprobe_links_missed(p);
	kcount_read(&p->kc, &s->k); /* next to the programs' counts: the window's edges agree */
	if (bpf_map__lookup_elem(p->skel->maps.counts, &zero, sizeof(zero), pc, p->ncpus * sizeof(*pc), 0) == 0)
		for (int cpu = 0; cpu < p->ncpus; cpu++)
			for (int i = 0; i < IPP_NR_SLOTS; i++) {
				s->c.v[i] += pc[cpu].v[i];
				if (i < IPP_NR_COUNTERS && !(probe_counters[i].flags & PC_PER_SA))
					pcpu_add(s, i, cpu, pc[cpu].v[i]);
			}
	s->have_pcpu = p->ncpus <= PROBES_MAX_CPUS;
	while (s->nsa < MAX_SA &&
	       bpf_map__get_next_key(p->skel->maps.per_sa, prev, &next, sizeof(next)) == 0) {
		if (bpf_map__lookup_elem(p->skel->maps.per_sa, &next, sizeof(next), v, p->ncpus * sizeof(*v), 0) == 0) {
			struct sa_val *e = &s->sa[s->nsa++];

			e->k = next;
			for (int cpu = 0; cpu < p->ncpus; cpu++)
				e->v += v[cpu];
			/* the programs count per SA only: one map update per call */
			if (e->k.ctr < IPP_NR_COUNTERS && (probe_counters[e->k.ctr].flags & PC_PER_SA)) {
				s->c.v[e->k.ctr] += e->v;
				for (int cpu = 0; cpu < p->ncpus; cpu++)
					pcpu_add(s, e->k.ctr, cpu, v[cpu]);
			}
		}
		k = next;
		prev = &k;
	}
out_free:
	free(pc);
	free(v);
}

int probes_stats_enable(struct probes *p)
{
	if (!p || !p->skel || p->stats_fd >= 0)
		return p && p->stats_fd >= 0 ? 0 : -1;
	p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (p->stats_fd < 0)
		pr_warn("probe: cannot enable BPF run-time statistics: %s", strerror(errno));
	return p->stats_fd < 0 ? -1 : 0;
}

void probes_window(struct probes *p, int open)
{
	if (!p || !probes_nattached(p))
		return;
	snap(p, open ? &p->begin : &p->end);
	if (!open)
		p->have_window = true;
}

/* Did anything count between snapshots a and b: the programs, the kernel's counters, an SA? */
static bool snap_moved(const struct snapshot *a, const struct snapshot *b)
{
	bool moved = memcmp(&a->c, &b->c, sizeof(a->c)) != 0 || a->k.skbs != b->k.skbs ||
		     a->k.segs != b->k.segs || a->nsa != b->nsa;

	for (int i = 0; !moved && i < a->nsa; i++)
		moved = memcmp(&a->sa[i].k, &b->sa[i].k, sizeof(a->sa[i].k)) != 0 || a->sa[i].v != b->sa[i].v;
	return moved;
}

/*
 * A snapshot no packet went through: snap() reads the kernel's counters
 * just before the programs', so a packet sent between the two reads is
 * in the programs' count and not the kernel's, and the load's counts then
 * differ by one. Taken again until a second snapshot right after it
 * finds nothing moved (at most 10 times; the load has not started, so
 * what flows is the links' own chatter).
 */
static void snap_settled(struct probes *p, struct snapshot *s)
{
	struct snapshot *again = malloc(sizeof(*again));

	for (int i = 0; i < 10; i++) {
		snap(p, s);
		if (!again)
			break;
		snap(p, again);
		if (!snap_moved(s, again))
			break;
	}
	free(again);
}

/*
 * The load's end: after the load the connections still close (FIN, last
 * ACKs), and a packet may be halfway through ESP (its tmp buffer
 * allocated, not yet freed; under TCG a vCPU can stall there, between
 * the SA's count and esp_output, longer than 50 ms on a loaded host).
 * Snapshots every 10 ms until twenty in a row find nothing moved, the
 * programs', the kernel's and the SAs' counters alike (200 ms; at most
 * 6 s), the last of them the load's end: then it and the SAs' counters
 * read next agree.
 * The load's processes have exited, so every socket is closed and what is
 * left is the closing handshake, each step of it answered at once (a FIN
 * received in FIN_WAIT is acked without delay; a closing socket's own FIN
 * carries its pending ACK): no delayed ACK is left to wait for. (Measured:
 * a second more after 30, 50, 100 or 500 ms of quiet sees the same strays
 * each time, the links' own IPv6 chatter.)
 */
static void snap_quiet(struct probes *p, struct snapshot *s)
{
	struct snapshot *prev = malloc(sizeof(*prev));
	int quiet = 0;

	snap(p, s);
	for (int i = 0; prev && i < 600 && quiet < 20; i++) {
		*prev = *s;
		wait_ms(10);
		snap(p, s);
		quiet = snap_moved(s, prev) ? 0 : quiet + 1;
	}
	free(prev);
}

void probes_load_mark(struct probes *p, int begin)
{
	if (!p || !probes_nattached(p))
		return;
	if (begin)
		snap_settled(p, &p->lbegin);
	else
		snap_quiet(p, &p->lend);
	p->have_load = !begin;
}

bool probes_load_moved(struct probes *p)
{
	struct snapshot *now;
	bool moved;

	if (!p || !probes_nattached(p) || !p->have_load)
		return false;
	now = malloc(sizeof(*now));
	if (!now)
		return false;
	snap(p, now);
	moved = snap_moved(now, &p->lend);
	free(now);
	return moved;
}

/* Did the probes count on since the load-begin snapshot? */
bool probes_begin_moved(struct probes *p)
{
	struct snapshot *now;
	bool moved;

	if (!p || !probes_nattached(p))
		return false;
	now = malloc(sizeof(*now));
	if (!now)
		return false;
	snap(p, now);
	moved = snap_moved(now, &p->lbegin);
	free(now);
	return moved;
}

/* --probe-cost per program that ran in the window: {"<program>": {"runs", "ns", "ns_per_run"}} */
json_t *probes_programs_cost(const struct probes *p)
{
	json_t *o = json_object();
	struct bpf_program *prog;
	int i = 0;

	bpf_object__for_each_program(prog, p->skel->obj) {
		uint64_t runs = i < MAX_PROGS ? p->end.pruns[i] - p->begin.pruns[i] : 0;
		uint64_t ns = i < MAX_PROGS ? p->end.pns[i] - p->begin.pns[i] : 0;

		i++;
		if (!runs)
			continue;
		json_object_set_new(o, bpf_program__name(prog),
				    json_pack("{s:I, s:I, s:f}", "runs", (json_int_t)runs, "ns", (json_int_t)ns,
					      "ns_per_run", (double)ns / runs));
	}
	return o;
}
