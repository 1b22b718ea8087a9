/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe set the collector runs around each measured window: loaded
 * once per `ipsecperf run`, attached per scenario (after the scenario has
 * loaded its modules, so that esp4's symbols can be found), read at the
 * open and the close of each window, detached before the scenario is undone.
 *
 * A façade over the loader's files (probes*.c: probes_int.h says which
 * holds what), the window's record (probes_record.c), another host's
 * record taken (probes_taken.c) and --probe-overhead (overhead.c).
 */
#ifndef IPSECPERF_PROBES_H
#define IPSECPERF_PROBES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ipsecperf.h"

struct probes;
struct ksyms;

/* What a counter is (struct probe_counter's flags). */
#define PC_ESP 0x01        /* an ESP program's: attached in ESP scenarios, with --probe-set esp, all or tracepoints */
#define PC_KPROBE 0x02     /* attached by kprobes: left out without them or with --probe-set tracepoints */
#define PC_KMEM 0x04       /* a kmem tracepoint's, attached with the others (probes_attach_kmem) */
#define PC_XMIT 0x08       /* skbs or segments sent: the kernel's own counters, or the xmit program */
#define PC_PER_SA 0x10     /* its program counts per SA ("per_sa", "per_sa_load") */
#define PC_ESP4 0x20       /* its function is esp4's: a missing symbol says whether esp4 is there */
#define PC_READS_CODE 0x40 /* placed by reading the kernel's code: attached before the other kprobes */
#define PC_BYTES_ALWAYS 0x80 /* its bytes are counted by the perf fallback too */
#define PC_PER_CPU 0x100   /* the record says which CPUs ran it ("per_cpu", "per_cpu_load") */

/*
 * One counter of the table probe_counters[] (probes.c), by slot
 * (ipsecperf.h): a record's "counters" key and what it holds.
 */
struct probe_counter {
	const char *name;  /* the record's key (docs/probes.md) */
	unsigned flags;    /* PC_* */
	const char *prog;  /* its program in ipsecperf.bpf.c, on a kprobe of the function of that name; or NULL */
	/* Where prog on its function is not enough: attach, or say why not (probes_set_how). */
	void (*attach)(struct probes *p, const struct ksyms *ks, int c);
	int bytes;         /* the slot of the bytes it counts beside its calls ("bytes"), or 0 */
	const char *check; /* what the kernel's own figures check it against, or NULL */
};
extern const struct probe_counter probe_counters[IPP_NR_COUNTERS];

/* Open and load the BPF programs. Never NULL: without BPF every counter says why. */
struct probes *probes_open(void);
/*
 * Attach what this kernel allows; devs: the testbed's link ends
 * (NULL-terminated) or NULL for all devices; netns: the namespace of each
 * (names under /run/netns), so that another run's devices of the same
 * names are not counted. probes_attach: devices by name in any namespace.
 */
int probes_attach_ns(struct probes *p, const char *const *devs, const char *const *netns);
int probes_attach(struct probes *p, const char *const *devs);
void probes_detach(struct probes *p);
/*
 * Have the kernel time our programs (bpf_enable_stats, undone when the
 * probe set is closed); records then carry "probe_cost": runs, ns and
 * ns_per_run of all programs over the window. --probe-overhead uses it.
 */
int probes_stats_enable(struct probes *p);
/*
 * --probe-set: which counters come from where (docs/probes.md).
 *   default      the kernel's own counters for skbs and segments (device
 *                statistics, Tcp SNMP) and the SAs'; BPF only where a
 *                scenario cuts GSO in software (skb_segment, tcp_gso_segment:
 *                a run per superpacket). Meets the probes' 0.98 target;
 *   esp          default and the ESP programs (esp_output, esp_output_tail,
 *                the transport output, both memmoves, kmalloc/kfree), in
 *                ESP scenarios only: about 12 runs per ESP packet;
 *   all          esp, and skbs and segments counted by the xmit
 *                tracepoint program as well (a program run per skb);
 *   tracepoints  no kprobes: the xmit program and the kmem tracepoints;
 *   kernel       the kernel's own counters only, no BPF at all.
 */
enum probe_set { PROBE_SET_DEFAULT, PROBE_SET_ESP, PROBE_SET_ALL, PROBE_SET_TRACEPOINTS, PROBE_SET_KERNEL,
		 PROBE_SET_N };
/* Their names, in that order (--probe-set's choices), NULL last. */
extern const char *const probe_set_names[PROBE_SET_N + 1];
/* The set named s, or -1. */
int probe_set_parse(const char *s);
void probes_set_set(struct probes *p, enum probe_set set);
/*
 * Does the scenario attached next have SAs? Without, the ESP programs
 * (esp_output, the transport output and its memmoves, kmalloc/kfree)
 * stay detached: they would count nothing of the scenario's.
 */
void probes_need_esp(struct probes *p, bool esp);
/* Called about every 200 ms while the load runs (the fallback drains its sample buffers). */
void probes_tick(struct probes *p);
/* open = 1: take the window's start snapshot; 0: its end. */
void probes_window(struct probes *p, int open);
/*
 * begin = 1 before the load starts, 0 after it ended: the whole load, quiet
 * at both ends, which the SAs' own counters cover exactly too ("count_load",
 * "per_sa_load" beside "sa_load").
 */
void probes_load_mark(struct probes *p, int begin);
/*
 * After the load-end mark and the SAs' read: did the programs count on
 * since the mark (a packet on its way then)? Then mark and read again.
 */
bool probes_load_moved(struct probes *p);
/* Did the probes count on since the load-begin snapshot? Taken again then (matrix.c). */
bool probes_begin_moved(struct probes *p);
/* "sa" over the window: the SA list read at its close minus the one read at its open. Unit-tested. */
json_t *probe_sa_window(json_t *open, json_t *close);
/* The record's "counters" object, per-packet bases taken from rec's "sa" (may be NULL). */
json_t *probes_counters_json(struct probes *p, json_t *rec);
void probes_close(struct probes *p);
/* How many probes are attached (0 = the probes cost nothing). */
int probes_nattached(const struct probes *p);

/* A "counters" object with every counter unavailable for the one reason why. */
json_t *probes_counters_unavailable(const char *why);

/*
 * Another host's "counters" (sent, as its agent answered them) and
 * "probe_cost" (NULL when sent is not an object), rebuilt field by field
 * (probes_taken.c): this program's counters and keys only, each of its
 * type (counts from 0, finite ratios, SPIs as "0x%08x", programs by plain
 * names, at most 64 of them), text cleaned (msg_clean) and cut at 300
 * bytes. Unit-tested.
 */
json_t *probes_counters_taken(json_t *sent);
json_t *probes_cost_taken(json_t *sent);

/*
 * --probe-overhead: ov is {"<scenario>": {"on": [bps...], "off": [bps...]}}.
 * The ratio is median(on) / median(off). Write probe-overhead.json into
 * dir, and print a table.
 */
double probe_overhead_ratio(json_t *on, json_t *off);
int probe_overhead_write(const char *dir, json_t *ov);
void probe_overhead_print(FILE *f, json_t *ov);

/* `ipsecperf probe --list`: one row per counter, how it would attach here. */
int probes_list(FILE *f, bool json);

/* The bases of the per-packet ratios. Unit-tested. */
struct probe_bases {
	uint64_t esp_packets;   /* ESP packets on the wire: out SAs' replay seq advance */
	uint64_t superpackets;  /* out SAs' packet counters (one per xfrm_output_one) */
	uint64_t tcp_segments;  /* segments handed to the testbed's devices (xmit_segs) */
	bool has_esp, has_super, has_tcp;
};
/* Read the bases from a record's "sa" array; tcp from xmit_segs (or none). */
void probe_bases_from_sa(struct probe_bases *b, json_t *sa, bool have_segs, uint64_t segs);
/* count / base, or a negative value when there is no base. */
double probe_ratio(uint64_t count, uint64_t base, bool has);

#endif
