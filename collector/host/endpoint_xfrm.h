/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xfrm and module operations of an endpoint (endpoint.h), the same
 * calls for both kinds of end: here, xfrm netlink in the end's namespace
 * (xfrm.h) and this host's modules (kmod.h); on the peer, the requests of
 * its agent (collector/testbed/peer_agent.c), the key spliced into the request line so
 * that it never sits in a json_t. The IPsec set-up (collector/run/ipsec.c) is
 * written once over them. No state: everything is in the endpoint.
 */
#ifndef IPSECPERF_ENDPOINT_XFRM_H
#define IPSECPERF_ENDPOINT_XFRM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"
#include "kmod.h"
#include "xfrm.h"

/*
 * Journal rec, the undo of a change at e (stolen): as it is here; on the
 * peer, as a remote record that runs `PROG peer-agent --undo REC` there,
 * so that `ipsecperf cleanup` undoes it after a SIGKILL. < 0: not written.
 */
int ep_journal_undo(const struct endpoint *e, json_t *rec);

/* A flow's selector (several SA pairs: l4proto, sport, dport; those that are 0 left out) into o. */
void ep_xfrm_ports_json(json_t *o, const struct xfrm_pol_spec *p);

/* Is the policy / SA there at e? 1, 0, or -errno (-EOPNOTSUPP: the agent cannot look; -EPIPE: lost). */
int ep_xfrm_policy_exists(const struct endpoint *e, const struct xfrm_pol_spec *p);
int ep_xfrm_sa_exists(const struct endpoint *e, const struct xfrm_sa_spec *s);

/* Add it at e: 0, or -errno and the kernel's message in kmsg; -EPIPE: outcome unknown (lost). */
int ep_xfrm_policy_add(const struct endpoint *e, const struct xfrm_pol_spec *p, char *kmsg, size_t len);
int ep_xfrm_sa_add(const struct endpoint *e, const struct xfrm_sa_spec *s, const uint8_t *key, size_t klen,
		   char *kmsg, size_t len);

/* An SA's counters at e: 0 or -errno. */
int ep_xfrm_sa_get(const struct endpoint *e, const struct xfrm_sa_spec *s, struct xfrm_sa_counters *c);
/*
 * The same in two halves, for requests that ride on another (the agent's
 * cpu-start and cpu-stop read the peer's SAs next to its probes): the
 * agent's request for s, and its answer r read into c (r is consumed;
 * NULL: lost, -EPIPE; not an answer, or a count that is not a whole number
 * from 0, -EPROTO).
 */
json_t *ep_xfrm_sa_req(const struct xfrm_sa_spec *s);
int ep_xfrm_sa_answer(json_t *r, struct xfrm_sa_counters *c);

/* The modules window of e's kernel (kmod.h). */
void ep_kmod_window(const struct endpoint *e, struct kmod_window *w);

/* A module's state at e's kernel (kmod_state): 0, or -1 (lost or no answer, why). */
int ep_kmod_state(const struct endpoint *e, const char *name, enum kmod_state *st, char *why, size_t len);

/* A module loaded or not at e, as kmod_set: 0, 1 (skip, why), or -1 (lost, why). */
int ep_kmod_set(const struct endpoint *e, const char *name, bool load, char *why, size_t len);

/*
 * Can e's kernel make TCP-MD5 or TCP-AO with ao_alg? 0 yes; 1 no (why);
 * -1 e was lost (why). Here by trying (tcp_auth_probe in run/, passed as
 * probe so this layer does not call up); on the peer, by its agent.
 */
int ep_tcp_auth_check(const struct endpoint *e, const char *method, const char *ao_alg,
		      int (*probe)(const char *, const char *, char *, size_t), char *why, size_t len);

#endif
