/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario's [ipsec] section on a testbed: the ESP module state it needs
 * (esp4_offload loaded or not), two SAs per direction (one at each end)
 * and an in and an out policy at each end, all journaled before they are
 * made, and the modules loaded meanwhile (kmod.h), in each kernel. Written
 * once over the two endpoints' operations (endpoint_xfrm.h): namespaces of
 * this host, or this host and the peer through its agent. The SAs' own
 * counters prove the traffic went through them.
 *
 * A façade of ipsec.c (the set-up, the undo) and ipsec_counters.c (the
 * SAs' counters, their verdicts and the SA pairs' record).
 */
#ifndef IPSECPERF_IPSEC_H
#define IPSECPERF_IPSEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmod.h"
#include "scenario.h"
#include "endpoint.h"
#include "xfrm.h"

/*
 * How the load's flows meet the SAs (run --sas, the scenario's sas): npairs
 * SA pairs; with more than one, flow k (its server on port + k, of nports)
 * goes through pair k mod npairs, picked by the flow's port in the
 * policies' selectors (each pair its reqid, k mod npairs + 1).
 */
struct ipsec_flows {
	int npairs;   /* 0 or 1: one pair, no ports in the policies, as always */
	int port, nports;
};

/*
 * The SAs a scenario installed (two per direction and pair), and their
 * counters at the run's start: the testbed's own, passed to every call, no
 * state here.
 */
/* Per-CPU SAs (pcpu = yes): one a CPU of the sending end, up to this many CPUs. */
#define IPSEC_PCPU_MAX 64

struct ipsec_sas {
	int n;
	/*
	 * pcpu = yes (xfrm_pcpu.h): the data's way (tx -> rx) has, beside
	 * pair 0's SAs (the fallback, no CPU), one SA a CPU of the sending end
	 * (at tx: out, bound to the CPU; at rx: in), each its own SPI and key;
	 * tx's out policy has XFRM_POLICY_CPU_ACQUIRE. npcpu: those CPUs, 0 none.
	 */
	int npcpu;
	int cpus[IPSEC_PCPU_MAX];
	int npairs;       /* SA pairs (1 unless run --sas or the scenario's sas) */
	int port, nports; /* the flows' ports: port + k through pair k mod npairs */
	struct {
		int pair;     /* which pair, from 0 */
		struct xfrm_sa_spec spec;
		const struct endpoint *ep; /* the end that has it (the testbed's) */
		const char *role; /* "tx" or "rx", whose it is */
		const char *dir;  /* "out" or "in", as seen by the end that has it */
		bool pcpu;    /* one of the per-CPU set (npcpu > 0): a CPU's SA, or the fallback */
		int cpu;      /* with pcpu: the CPU its out SA is bound to, -1 the fallback */
		struct xfrm_sa_counters c0;
		int err0;
	} sa[4 * SCENARIO_MAX_SAS + 2 * IPSEC_PCPU_MAX];
	bool hosts; /* the ends are two hosts (peer testbed): "sa" names the host, not the namespace */
	bool one_way; /* the scenario's load sends from tx only (loads.h, LOAD_ONE_WAY): rx's SAs out carry nothing */
};

/*
 * Make the scenario's SAs and policies (nothing without [ipsec]) at the
 * two ends, tx and rx (endpoint_xfrm.h: in namespaces of this host, or
 * here and on the peer), into sas. 0 done; 1 a kernel cannot (skip,
 * reason in why); -1 failed. In dry-run, print the equivalent commands
 * with key placeholders (a peer's: one line saying what would be made).
 */
int ipsec_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		const struct ipsec_flows *fl, struct ipsec_sas *sas, char *why, size_t len);

/*
 * With several SA pairs: "sa_pair", each pair's SPIs, its flows' ports,
 * bytes and throughput (from rec's "flow"), its SAs' packets over the load
 * ("sa_load", else "sa") and esp_output's count per SPI where the probes
 * gave one. Nothing with one pair.
 */
void ipsec_pairs_record(const struct ipsec_sas *sas, json_t *rec);

/* Read the SAs' counters before a run's load starts. */
void ipsec_counters_begin(struct ipsec_sas *sas);

/*
 * Add "sa" (what each SA counted since ipsec_counters_begin) to rec.
 * Returns -1 with why set when an SA counted nothing ("policy did not
 * match: ...") or could not be read; 0 otherwise.
 */
int ipsec_counters_record(struct ipsec_sas *sas, json_t *rec, char *why, size_t len);
/*
 * The "sa" list ipsec_counters_record would add now, of the SAs where:
 * all, this host's (here, or its namespaces), or the peer's (there). A
 * window's edge, each host's read next to its probes' snapshot.
 */
enum { IPSEC_SA_ALL, IPSEC_SA_HERE, IPSEC_SA_THERE };
json_t *ipsec_counters_read(struct ipsec_sas *sas, int where, char *why, size_t len);
/*
 * The same from answers read elsewhere: the agent's to ipsec_sa_requests'
 * list, in its order (cpu-start and cpu-stop carry it, so that the peer
 * reads its SAs next to its probes' snapshot). NULL when answers is not
 * one answer per SA.
 */
json_t *ipsec_sa_requests(struct ipsec_sas *sas, int where);
json_t *ipsec_counters_answered(struct ipsec_sas *sas, int where, json_t *answers, char *why, size_t len);

/* The verdict on a record's "sa" list: -1 with why when an SA counted nothing. */
int ipsec_sa_check(json_t *sas, char *why, size_t len);

/*
 * Did a run of a scenario with esp-gso = off take the ESP GSO path all the
 * same (rec: its record, with "sa" or "sa_load" and, with probes,
 * "counters")? 1 with why when it did, whatever the cause; 0 otherwise.
 */
int ipsec_path_check(const struct ipsec_config *c, json_t *rec, char *why, size_t len);

/* One SA of scenario c from src to dst (shared with the peer testbed). */
void ipsec_fill_sa(struct xfrm_sa_spec *s, const struct ipsec_config *c, int family, const char *src,
		   const char *dst, uint32_t spi);

/* Two different random SPIs above the reserved 1-255 (RFC 4303); no secret. */
void ipsec_random_spis(uint32_t spi[2]);

/* The undo records of an SA and a policy (netns NULL: the host's own namespace). */
json_t *ipsec_sa_record(const char *netns, const struct xfrm_sa_spec *s);
json_t *ipsec_policy_record(const char *netns, const struct xfrm_pol_spec *p);
/* "SA spi 0x... dst ADDR", "policy out SRC -> DST": for messages. */
void ipsec_sa_name(char *buf, size_t len, const struct xfrm_sa_spec *s);
void ipsec_policy_name(char *buf, size_t len, const struct xfrm_pol_spec *p);

/*
 * One xfrm object (a policy or an SA) added by this run, here or on the
 * peer, always the same way: one that is there already is not this run's
 * (adds are exclusive), so it is left alone and named, and the scenario
 * skipped; else its undo is journaled, it is added, and the undo cancelled
 * (journal_cancel) when the add failed. Journaling the undo before the add
 * keeps a run killed in between from leaving the object behind; looking
 * first keeps that undo from ever removing an object this run did not
 * make (one that appeared between the look-up and the add fails the add
 * with EEXIST, and is left alone as well).
 */
struct xfrm_add {
	const char *what;  /* ipsec_*_name() */
	const char *where; /* " in NS", " on the peer" */
	json_t *undo;      /* the undo record (stolen) */
	int (*exists)(void *arg);                      /* 1, 0, or -errno */
	int (*journal)(void *arg, json_t *undo);       /* < 0: not written */
	/* 0, or -errno and the kernel's message; -EPIPE: the outcome is unknown (the peer was lost) */
	int (*add)(void *arg, char *kmsg, size_t len);
	void *arg;
};

/*
 * 0 added; 1 there already (why names it: skip the scenario); -1 failed:
 * with *kerr the add's -errno (kmsg holds the kernel's message: the caller
 * says what it means), or *kerr 0 and why says.
 */
int ipsec_add_journaled(const struct xfrm_add *a, int *kerr, char *kmsg, size_t klen, char *why, size_t len);
/* The same at endpoint e (keylen: xfrm_sa_key_len(s)). */
int ipsec_add_policy_at(const struct endpoint *e, const struct xfrm_pol_spec *p, const char *where, int *kerr,
			char *kmsg, size_t klen, char *why, size_t len);
int ipsec_add_sa_at(const struct endpoint *e, const struct xfrm_sa_spec *s, const uint8_t *key, size_t keylen,
		    const char *where, int *kerr, char *kmsg, size_t klen, char *why, size_t len);
/* The same on this host, in ns (NULL: our own namespace). */
int ipsec_add_policy_here(const char *ns, const struct xfrm_pol_spec *p, const char *where, int *kerr,
			  char *kmsg, size_t klen, char *why, size_t len);
int ipsec_add_sa_here(const char *ns, const struct xfrm_sa_spec *s, const uint8_t *key, const char *where,
		      int *kerr, char *kmsg, size_t klen, char *why, size_t len);

/* Journal undo handlers (rows in collector/cmd/undo_kinds.c). */
int ipsec_undo_state(json_t *r);
int ipsec_undo_policy(json_t *r);

#endif
