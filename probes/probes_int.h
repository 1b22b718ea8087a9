/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the probe set: its state, shared by the loader (probes.c) and
 * the record it makes of a window (probes_record.c). Nothing else uses it.
 */
#ifndef IPSECPERF_PROBES_INT_H
#define IPSECPERF_PROBES_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipsecperf.h"
#include "kcount.h"
#include "probes.h"

struct ipsecperf_bpf;
struct bpf_link;
struct perfcount;
struct anchors;

#define MAX_LINKS 64
#define MAX_SA 256
#define MAX_SITES 8
#define MAX_PROGS 24

struct sa_val {
	struct ipp_sa_key k;
	uint64_t v;
};

struct snapshot {
	struct ipp_counts c;
	uint64_t prog_ns, prog_runs; /* time in our programs, with probes_stats_enable */
	uint64_t pns[MAX_PROGS], pruns[MAX_PROGS]; /* the same per program, in the object's order */
	uint64_t missed;             /* runs the kernel skipped: a BPF program already running on that CPU */
	struct kcount_vals k;        /* the kernel's own counters of skbs and segments */
	struct sa_val sa[MAX_SA];
	int nsa;
};

struct probes {
	struct ipsecperf_bpf *skel;
	char nobpf[256];             /* why there is no BPF, when there is none */
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
	bool avail[IPP_NR_COUNTERS];
	char how[IPP_NR_COUNTERS][256];
	int ncpus;
	struct snapshot begin, end;   /* the measured window */
	struct snapshot lbegin, lend; /* the whole load */
	bool have_window, have_load;
	bool list;                   /* probe --list: change nothing on the host */
	struct perfcount *pc;        /* the fallback without BPF */
	bool force_perf;             /* $IPSECPERF_PROBE_BACKEND=perf: test the fallback here (raw-tp: the raw xmit) */
	int stats_fd;                /* bpf_enable_stats: run time per program while open */
	enum probe_set set;          /* --probe-set */
	bool esp;                    /* the scenario has SAs: attach the ESP programs */
	bool xmit_bpf;               /* skbs and segments counted by a program (or the perf fallback) */
	struct kcount kc;            /* the kernel's counters of the same */
	enum { XMIT_CAST, XMIT_BTF, XMIT_RAW } xmit; /* which xmit program is loaded */
	bool raw_tp;                 /* $IPSECPERF_PROBE_BACKEND=raw-tp: the raw xmit only */
	bool load_tried;             /* the BPF object was loaded, or refused (once) */
	struct anchors *anc;         /* inlined functions' places from the kernel's DWARF, or NULL */
	bool anc_tried;              /* looked for them (once per probe set) */
	char anc_why[512];           /* why there are none */
};

/* Say how counter c is counted (avail) or why not; unavailable ones get "unavailable: " first. */
void probes_set_how(struct probes *p, int c, bool avail, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* --probe-cost per program that ran between the window's snapshots (needs the skeleton: probes.c). */
json_t *probes_programs_cost(const struct probes *p);

#endif
