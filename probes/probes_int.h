/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header probes' own files share, a façade: the probe set's state,
 * and what they call in each other. Nothing else uses it.
 *   probes.c         the entry points: attaches per set and scenario, detaches
 *   probes_load.c    opens the probe set, loads the BPF object
 *   probes_attach.c  attaches one program at a time (probes_set_how)
 *   probes_sites.c   places the probes by the kernel's code and DWARF
 *   probes_snap.c    the snapshots at the window's and the load's edges
 *   probes_record.c  the record of a window
 */
#ifndef IPSECPERF_PROBES_INT_H
#define IPSECPERF_PROBES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipsecperf.h"
#include "kcount.h"
#include "probes.h"
#include "results.h"

struct ipsecperf_bpf;
struct bpf_link;
struct bpf_program;
struct ksyms;
struct perfcount;
struct anchors;

#define MAX_LINKS 64
#define MAX_SA 256
#define MAX_SITES 8
#define MAX_PROGS 24
#define MAX_PCPU 4          /* counters with PC_PER_CPU */
#define PROBES_MAX_CPUS 512 /* possible CPUs the per-CPU counts cover; beyond, no "per_cpu" */

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
	/* PC_PER_CPU counters by CPU (probes_pcpu_index), when have_pcpu */
	uint64_t pcpu[MAX_PCPU][PROBES_MAX_CPUS];
	bool have_pcpu;
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

/* Say how counter c is counted (avail) or why not; unavailable ones get "unavailable: " first (probes_attach.c). */
void probes_set_how(struct probes *p, int c, bool avail, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Counter c's row of struct snapshot's pcpu, or -1 when it has no PC_PER_CPU (probes_snap.c). */
int probes_pcpu_index(int c);

/* --probe-cost per program that ran between the window's snapshots (needs the skeleton: probes_snap.c). */
json_t *probes_programs_cost(const struct probes *p);

/*
 * probes_attach.c: attach one program, saying how or why not. The link
 * is kept in p->links; why (wlen bytes) says why not, on -1.
 */
int probes_attach_raw_tp(struct probes *p, struct bpf_program *prog, const char *tp, char *why, size_t wlen);
int probes_attach_kprobe(struct probes *p, struct bpf_program *prog, const char *sym, size_t off,
			 char *why, size_t wlen);
/* A kretprobe on sym, or -1 with why. */
int probes_attach_kretprobe(struct probes *p, struct bpf_program *prog, const char *sym, char *why, size_t wlen);

/*
 * Can the kernel's BTF tell a packet that xfrm decrypted, as
 * esp_gro_merged's program reads it with CO-RE (the sec_path extension:
 * SKB_EXT_SEC_PATH in enum skb_ext_id, sk_buff.active_extensions)? Where
 * it cannot, the program would count 0 whatever GRO did. 0, or -1 with why.
 */
struct btf;
int probes_btf_sec_path(const struct btf *btf, char *why, size_t wlen);
/* A kprobe on sym for counter c, or why not (esp: sym is esp4's, say whether esp4 is there). */
void probes_attach_simple_kprobe(struct probes *p, const struct ksyms *ks, int c, struct bpf_program *prog,
				 const char *sym, bool esp);
/* Why esp4's sym is not in /proc/kallsyms (a static buffer). */
const char *probes_esp_missing(const char *sym);
/* Without BPF: the tracepoints through perf_event_open (p->pc). */
int probes_attach_perf(struct probes *p, const char *const *devs, bool xmit, bool esp);
/* The xmit program on net_dev_start_xmit, filtered to devs in netns. */
void probes_attach_xmit(struct probes *p, const char *const *devs, const char *const *netns);

/* Why a counter of the ESP programs is left out (probes.c, probes_attach.c). */
#define NO_ESP_WHY RESULTS_NO_SAS_WHY " (the ESP programs attach only to ESP scenarios)"
#define NOT_IN_SET_WHY "not in the default probe set (about 12 program runs per ESP packet, docs/probes.md): --probe-set esp or all"

/*
 * probes_sites.c: the probes placed by reading the kernel's code and, where
 * a function was inlined, its DWARF: the calls to memmove in the transport
 * output and input (cands: the functions to look in, first that has any),
 * xfrm4_transport_output's inlined entries, and the ranges of ESP's
 * allocator calls for the kmem tracepoints.
 */
void probes_attach_call_sites(struct probes *p, const struct ksyms *ks, int c, struct bpf_program *prog,
			      const char *const *cands, int ncands);
void probes_attach_transport_output_dwarf(struct probes *p, const struct ksyms *ks);
void probes_attach_kmem(struct probes *p, const struct ksyms *ks);

#endif
