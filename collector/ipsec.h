/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario's [ipsec] section on a testbed: the ESP module state it needs
 * (esp4_offload loaded or not), two SAs per direction (one in each
 * namespace) and an in and an out policy in each namespace, all journaled
 * before they are made. The SAs' own counters prove the traffic went
 * through them.
 */
#ifndef IPSECPERF_IPSEC_H
#define IPSECPERF_IPSEC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "testbed.h"
#include "xfrm.h"

/*
 * Make the scenario's SAs and policies (nothing without [ipsec]).
 * 0 done; 1 this kernel cannot (skip, reason in why); -1 failed.
 * In dry-run, print the equivalent commands with key placeholders.
 */
int ipsec_apply(const struct testbed *tb, const struct scenario *sc, char *why, size_t len);

/* Read the SAs' counters before a run's load starts. */
void ipsec_counters_begin(void);

/*
 * Add "sa" (what each SA counted since ipsec_counters_begin) to rec.
 * Returns -1 with why set when an SA counted nothing ("policy did not
 * match: ...") or could not be read; 0 otherwise.
 */
int ipsec_counters_record(json_t *rec, char *why, size_t len);

/* The verdict on a record's "sa" list: -1 with why when an SA counted nothing. */
int ipsec_sa_check(json_t *sas, char *why, size_t len);

/* Kernel module state, probed: never from version numbers. */
enum kmod_state { KMOD_MISSING, KMOD_LOADABLE, KMOD_LOADED, KMOD_BUILTIN };
enum kmod_state kmod_state(const char *name, int *refcnt);
const char *kmod_state_name(enum kmod_state s);

/* Journal undo handlers (rows in journal_kinds.c). */
/* One SA of scenario c from src to dst (shared with the peer testbed). */
void ipsec_fill_sa(struct xfrm_sa_spec *s, const struct ipsec_config *c, int family, const char *src,
		   const char *dst, uint32_t spi);

/* Two different random SPIs above the reserved 1-255 (RFC 4303); no secret. */
void ipsec_random_spis(uint32_t spi[2]);

int ipsec_undo_state(json_t *r);
int ipsec_undo_policy(json_t *r);
int kmod_undo_snapshot(json_t *r);

/*
 * Journal the list of loaded modules, so that modules the kernel loads on
 * demand from here on (esp4, crypto templates) are unloaded at undo time.
 */
int kmod_journal_snapshot(void);

#endif
