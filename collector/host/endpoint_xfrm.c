// SPDX-License-Identifier: GPL-2.0
/* An endpoint's xfrm and module operations, here or through the peer's agent (endpoint_xfrm.h). */
#include <errno.h>
#include <sys/socket.h>
#include <linux/xfrm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint_xfrm.h"
#include "journal.h"
#include "peer_run.h"
#include "remote.h"

/* One request to e's agent (steals req); NULL when lost, or when it answered neither ok nor an error. */
static json_t *agent_req(const struct endpoint *e, json_t *req)
{
	char *line = json_dumps(req, JSON_COMPACT);
	json_t *r;

	json_decref(req);
	if (!line || !e->agent) {
		free(line);
		return NULL;
	}
	r = e->agent(e->arg, line);
	free(line);
	return peer_answer(r);
}

/* The undo of a change on the peer: its agent runs rec's undo there (steals rec). */
static json_t *remote_undo(const struct endpoint *e, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	json_t *r;

	json_decref(rec);
	if (!text)
		return NULL;
	r = remote_undo_record(e->host, (char *[]){ (char *)e->prog, "peer-agent", "--undo", text, NULL });
	free(text);
	return r;
}

int ep_journal_undo(const struct endpoint *e, json_t *rec)
{
	if (ep_remote(e))
		rec = remote_undo(e, rec);
	return rec ? journal_add(rec) : -1;
}

static int fam(int family)
{
	return family == AF_INET ? 4 : 6;
}

void ep_xfrm_ports_json(json_t *o, const struct xfrm_pol_spec *p)
{
	if (p->l4proto)
		json_object_set_new(o, "l4proto", json_integer(p->l4proto));
	if (p->sport)
		json_object_set_new(o, "sport", json_integer(p->sport));
	if (p->dport)
		json_object_set_new(o, "dport", json_integer(p->dport));
}

/* A policy's selector as the agent takes it, for op ("policy-get", "policy-add"). */
static json_t *policy_req(const char *op, const struct xfrm_pol_spec *p)
{
	json_t *r = json_pack("{s:s, s:i, s:s, s:s, s:s}", "op", op, "family", fam(p->family), "src", p->src, "dst",
			      p->dst, "dir", p->dir == XFRM_POLICY_IN ? "in" : "out");

	/* several SA pairs: a flow's ports (the selector), its priority and its SA's reqid; absent: 0 */
	ep_xfrm_ports_json(r, p);
	if (p->priority)
		json_object_set_new(r, "priority", json_integer(p->priority));
	if (p->reqid)
		json_object_set_new(r, "reqid", json_integer(p->reqid));
	return r;
}

static json_t *sa_get_req(const struct xfrm_sa_spec *s)
{
	return json_pack("{s:s, s:i, s:s, s:I}", "op", "sa-get", "family", fam(s->family), "dst", s->dst, "spi",
			 (json_int_t)s->spi);
}

/* An agent's answer to a look-up: 1 there, 0 not, or -errno. */
static int exists_answer(json_t *r)
{
	int err;

	if (!r)
		return -EPIPE;
	if (!json_is_integer(json_object_get(r, "err"))) {
		json_decref(r);
		return -EOPNOTSUPP; /* an agent that cannot look (an older ipsecperf on the peer) */
	}
	err = (int)json_integer_value(json_object_get(r, "err"));
	json_decref(r);
	return !err ? 1 : err == -ENOENT || err == -ESRCH ? 0 : err;
}

int ep_xfrm_policy_exists(const struct endpoint *e, const struct xfrm_pol_spec *p)
{
	if (!ep_remote(e))
		return xfrm_policy_exists(e->netns, p);
	return exists_answer(agent_req(e, policy_req("policy-get", p)));
}

int ep_xfrm_sa_exists(const struct endpoint *e, const struct xfrm_sa_spec *s)
{
	if (!ep_remote(e))
		return xfrm_sa_exists(e->netns, s->family, s->dst, s->spi, s->proto);
	return exists_answer(agent_req(e, sa_get_req(s)));
}

/* An agent's answer to an add: 0 or -errno, the kernel's message in kmsg (-EPIPE: lost, made or not). */
static int add_answer(json_t *r, char *kmsg, size_t len)
{
	int err;

	if (!r)
		return -EPIPE;
	err = (int)json_integer_value(json_object_get(r, "err"));
	snprintf(kmsg, len, "%s", json_string_value(json_object_get(r, "kmsg")) ?: "");
	json_decref(r);
	return err;
}

int ep_xfrm_policy_add(const struct endpoint *e, const struct xfrm_pol_spec *p, char *kmsg, size_t len)
{
	json_t *req;

	if (!ep_remote(e))
		return xfrm_policy_add(e->netns, p, kmsg, len);
	req = policy_req("policy-add", p);
	json_object_set_new(req, "tunnel", json_boolean(p->tunnel));
	return add_answer(agent_req(e, req), kmsg, len);
}

/* The spec as the agent reads it (agent_sa_spec in collector/testbed/peer_agent.c). */
static json_t *sa_json(const struct xfrm_sa_spec *s)
{
	json_t *r = json_pack("{s:s, s:i, s:s, s:s, s:I, s:b, s:s, s:i, s:s, s:i, s:i, s:s, s:i, s:i}", "op", "sa-add",
			 "family", fam(s->family), "src", s->src, "dst", s->dst, "spi", (json_int_t)s->spi, "tunnel",
			 s->tunnel, "enc", s->enc, "enc_key_bits", s->enc_key_bits, "auth", s->auth, "auth_key_bits",
			 s->auth_key_bits, "auth_icv_bits", s->auth_icv_bits, "aead", s->aead, "aead_key_bits",
			 s->aead_key_bits, "aead_icv_bits", s->aead_icv_bits);

	if (r && s->reqid) /* several SA pairs: the pair's, which its policies' templates name */
		json_object_set_new(r, "reqid", json_integer(s->reqid));
	return r;
}

int ep_xfrm_sa_add(const struct endpoint *e, const struct xfrm_sa_spec *s, const uint8_t *key, size_t klen,
		   char *kmsg, size_t len)
{
	char hex[4 * XFRM_KEY_MAX + 1], *head, line[2048];
	json_t *req, *r;

	if (!ep_remote(e))
		return xfrm_sa_add(e->netns, s, key, kmsg, len);
	if (!e->agent || 2 * klen >= sizeof(hex))
		return -EINVAL;
	/* the key spliced into the request line: it never passes through a json_t */
	req = sa_json(s);
	head = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!head)
		return -ENOMEM;
	for (size_t i = 0; i < klen; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	hex[2 * klen] = '\0';
	head[strlen(head) - 1] = '\0';
	snprintf(line, sizeof(line), "%s,\"key\":\"%s\"}", head, hex);
	explicit_bzero(hex, sizeof(hex));
	free(head);
	r = e->agent(e->arg, line);
	explicit_bzero(line, sizeof(line));
	return add_answer(r, kmsg, len);
}

json_t *ep_xfrm_sa_req(const struct xfrm_sa_spec *s)
{
	return sa_get_req(s);
}

int ep_xfrm_sa_answer(json_t *r, struct xfrm_sa_counters *c)
{
	int err;

	if (!r)
		return -EPIPE;
	if (!json_is_object(r) || !json_is_integer(json_object_get(r, "err"))) {
		json_decref(r);
		return -EPROTO;
	}
	err = (int)json_integer_value(json_object_get(r, "err"));
	/* the peer's counts: each a count from 0 (the kernel's are u64 below 2^63), else not the SA's */
	for (int i = 0; i < 4 && !err; i++) {
		static const char *const keys[] = { "packets", "bytes", "oseq", "seq" };
		uint64_t *f[] = { &c->packets, &c->bytes, &c->oseq, &c->seq };
		json_t *v = json_object_get(r, keys[i]);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			err = -EPROTO;
		else
			*f[i] = (uint64_t)json_integer_value(v);
	}
	json_decref(r);
	return err;
}

int ep_xfrm_sa_get(const struct endpoint *e, const struct xfrm_sa_spec *s, struct xfrm_sa_counters *c)
{
	if (!ep_remote(e))
		return xfrm_sa_get(e->netns, s->family, s->dst, s->spi, s->proto, c);
	return ep_xfrm_sa_answer(agent_req(e, sa_get_req(s)), c);
}

/* ---- the peer's modules window, through its agent ---- */

static json_t *remote_modules(void *arg)
{
	json_t *r = agent_req(arg, json_pack("{s:s}", "op", "modules")), *loaded;

	loaded = json_is_array(json_object_get(r, "loaded")) ? json_incref(json_object_get(r, "loaded")) : NULL;
	json_decref(r);
	return loaded;
}

static int remote_journal(void *arg, json_t *rec)
{
	return ep_journal_undo(arg, rec);
}

static int remote_amend(void *arg, int seq, json_t *rec)
{
	json_t *r = remote_undo(arg, rec);

	return r ? journal_amend(seq, r) : -1;
}

void ep_kmod_window(const struct endpoint *e, struct kmod_window *w)
{
	if (!ep_remote(e))
		kmod_window_here(w);
	else
		*w = (struct kmod_window){ .list = remote_modules, .journal = remote_journal, .amend = remote_amend,
					   .arg = (void *)e };
}

/* The peer's side of ep_kmod_set: its agent says the module's state, remote_do changes it. */
static int remote_kmod_set(const struct endpoint *e, const char *name, bool load, char *why, size_t len)
{
	json_t *r = agent_req(e, json_pack("{s:s, s:s}", "op", "kmod", "name", name));
	const char *st;
	char *err = NULL;
	int ref, rc = 0;

	if (!r) {
		snprintf(why, len, "%.300s", ep_lost(e) ?: "the agent did not answer");
		return -1;
	}
	st = json_string_value(json_object_get(r, "state"));
	ref = (int)json_integer_value(json_object_get(r, "refcnt"));
	if (!st) {
		snprintf(why, len, "the agent did not say whether %s is loaded", name);
		rc = -1;
	} else if (load ? !strcmp(st, "missing") : !strcmp(st, "built in") || (!strcmp(st, "loaded") && ref > 0)) {
		snprintf(why, len, "%s is %s%s", name, st, !load && ref > 0 ? " and in use" : "");
		rc = 1;
	} else if (load ? !strcmp(st, "loadable module") : !strcmp(st, "loaded")) {
		/* a load's undo is the modules window around it; an unload's, loading it again */
		if (remote_do(e->host, load ? (char *[]){ "modprobe", (char *)name, NULL } : (char *[]){ "rmmod", (char *)name, NULL },
			      load ? NULL : (char *[]){ "modprobe", (char *)name, NULL }, &err) < 0) {
			snprintf(why, len, "%s %s: %s", load ? "modprobe" : "rmmod", name, err && *err ? err : "failed");
			rc = 1;
		}
		free(err);
	}
	json_decref(r);
	return rc;
}

int ep_kmod_state(const struct endpoint *e, const char *name, enum kmod_state *st, char *why, size_t len)
{
	const char *name_st;
	json_t *r;
	int rc = -1;

	if (!ep_remote(e)) {
		*st = kmod_state(name, NULL);
		return 0;
	}
	r = agent_req(e, json_pack("{s:s, s:s}", "op", "kmod", "name", name));
	if (!r) {
		snprintf(why, len, "%.300s", ep_lost(e) ?: "the agent did not answer");
		return -1;
	}
	name_st = json_string_value(json_object_get(r, "state"));
	for (enum kmod_state s = KMOD_MISSING; name_st && s <= KMOD_BUILTIN; s++)
		if (!strcmp(name_st, kmod_state_name(s))) {
			*st = s;
			rc = 0;
		}
	if (rc)
		snprintf(why, len, "the agent did not say whether %s is loaded", name);
	json_decref(r);
	return rc;
}

int ep_kmod_set(const struct endpoint *e, const char *name, bool load, char *why, size_t len)
{
	return ep_remote(e) ? remote_kmod_set(e, name, load, why, len) : kmod_set(name, load, why, len);
}

int ep_tcp_auth_check(const struct endpoint *e, const char *method, const char *ao_alg,
		      int (*probe)(const char *, const char *, char *, size_t), char *why, size_t len)
{
	json_t *r;
	int rc = 0;

	if (!ep_remote(e))
		return probe(method, ao_alg, why, len) ? 1 : 0;
	r = agent_req(e, json_pack("{s:s, s:s, s:s}", "op", "tcp-auth-check", "method", method, "ao_alg", ao_alg));
	if (!r) {
		snprintf(why, len, "%.250s", ep_lost(e) ?: "the agent did not answer");
		return -1;
	}
	if (!json_is_true(json_object_get(r, "can"))) {
		snprintf(why, len, "%s", json_string_value(json_object_get(r, "why")) ?: "cannot");
		rc = 1;
	}
	json_decref(r);
	return rc;
}
