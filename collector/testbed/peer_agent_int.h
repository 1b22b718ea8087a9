/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer agent's answers and requests, shared by peer_agent*.c only
 * (peer_agent.h is what the rest sees). A façade of peer_agent_answer.c
 * (the answers, and what a request says) and peer_agent_host.c (the
 * requests that act on the host: programs, modules, SAs, policies), which
 * peer_agent.c (the loop, the stream, CPUs and probes) dispatches to.
 */
#ifndef IPSECPERF_PEER_AGENT_INT_H
#define IPSECPERF_PEER_AGENT_INT_H

#include <jansson.h>
#include <stddef.h>

/* One answer line of o (taken); one longer than the run reads, or none (o NULL), becomes an error. */
void agent_answer(json_t *o);
/* {"ok": false, "error": ...}, cut on a character boundary to fit. */
void agent_answer_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line already made (a run answer), or an error when it is NULL. */
void agent_answer_line(const char *line);
/* The string at key of req, or "". */
const char *agent_str(json_t *req, const char *key);
/* The request's "family": AF_INET6 for 6, else AF_INET. */
int agent_family(json_t *req);
/* At most len - 1 bytes of s (from a request), for a message: cut between two characters. */
const char *agent_shown(const char *s, char *buf, size_t len);

/* peer_agent_host.c: the requests of these names. */
void agent_op_run(json_t *req);
void agent_op_modules(json_t *req);
void agent_op_kmod(json_t *req);
void agent_op_policy_add(json_t *req);
void agent_op_policy_get(json_t *req);
void agent_op_sa_add(json_t *req);
void agent_op_sa_get(json_t *req);
/* cpu-start and cpu-stop's "sa": those SAs' counters read now, into ans's "sa". */
void agent_answer_sas(json_t *ans, json_t *req);

#endif
