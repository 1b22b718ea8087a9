/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Were two sets of runs measured alike? The fields of a results directory
 * (and of its records) that change what a run measures: the host, its CPU,
 * the testbed and the guest's accelerator, the run's duration and warm-up,
 * the load, the scenario's definition, --profile, the probe set and the
 * tools' versions.
 * compare checks its two sides with it, and compare and report check the
 * directories they pool.
 */
#ifndef IPSECPERF_PROVENANCE_H
#define IPSECPERF_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "notes.h"
#include "results.h"

enum prov_field {
	PROV_HOST, PROV_CPU_MODEL, PROV_CPU_COUNT, PROV_TESTBED, PROV_ACCEL, PROV_DURATION,
	PROV_OMIT, PROV_LOAD, PROV_SCENARIO, PROV_PROFILE, PROV_PROBES, PROV_TOOL, PROV_IPERF3, PROV_FLOWS, PROV_NFIELDS
};

/* The name --allow-mismatch takes: "host", "cpu_model", ..., "iperf3_version". */
const char *prov_field_name(enum prov_field f);

/* --allow-mismatch LIST: field names or "all", comma separated. -1 after a message. */
int prov_parse_allow(const char *cmd, const char *list, unsigned *allow);

/* Runs of one kernel and scenario from one directory of a pool (pool.h). */
struct prov_src {
	const char *side;            /* "base", "new", or NULL */
	const struct results *src;   /* the pool's directories (meta) */
	const struct results *all;   /* its runs */
	int s;                       /* this directory: an index in src */
	const char *kernel;
};

/*
 * The field's value for those runs, as text in buf; NULL when it was not
 * recorded. Scenario definitions are compared by content: comments, blank
 * lines, spacing and the description are left out.
 */
const char *prov_value(const struct prov_src *p, const char *scenario, enum prov_field f, char *buf,
		       size_t len);

/* The same over every kernel and scenario of directory s (values joined with '+'). */
const char *prov_dir_value(const struct results *src, const struct results *all, int s,
			   enum prov_field f, char *buf, size_t len);

struct prov_check {
	unsigned allow;             /* fields accepted with --allow-mismatch */
	unsigned differ;            /* fields found to differ */
	unsigned unrecorded;        /* fields not recorded somewhere: not checked */
	int note_of[PROV_NFIELDS];  /* each differing field's note */
	struct notes *notes;
};

void prov_check_init(struct prov_check *pc, struct notes *notes, unsigned allow);

/*
 * Compare a's and b's runs of scenario field by field. A field that differs
 * gets one note ("mismatch"), the first time; a field that a directory
 * lacks gets one note ("not_recorded").
 */
void prov_check_pair(struct prov_check *pc, const struct prov_src *a, const struct prov_src *b,
		     const char *scenario);

/*
 * The directories of a pool (pool.h) that hold runs of group g, each
 * against the first: the runs pooled must have been measured alike.
 */
void prov_check_group(struct prov_check *pc, const char *side, const struct results *src, int nsrc,
		      const struct results *all, const struct run_group *g);

/* The same for every group of the pool. */
void prov_check_pool(struct prov_check *pc, const char *side, const struct results *src, int nsrc,
		     const struct results *all);

/* The accelerators of directory s ("none", "tcg", "kvm", joined with '+'); "not recorded" if none. */
const char *prov_accel(const struct results *src, const struct results *all, int s, char *buf, size_t len);

/* Did any run of directory s run on an emulated CPU (TCG)? */
bool prov_emulated(const struct results *src, const struct results *all, int s);

/* The one-line caution every output carries when prov_emulated() holds. */
const char *prov_emulated_caution(void);

/* The fields that differ and were not allowed. */
unsigned prov_refused(const struct prov_check *pc);

/* Print each refused mismatch as an "ipsecperf: CMD: ..." line, then the way out. */
void prov_print_refused(const struct prov_check *pc, const char *cmd);

#endif
