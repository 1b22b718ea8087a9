// SPDX-License-Identifier: GPL-2.0
/*
 * ESP on the peer testbed: the same SAs and policies as on the netns
 * testbed (ipsec.c), one end on each host. This host's are made with xfrm
 * netlink here and journaled as ipsec.c journals them; the peer's are made
 * by the agent (the key on its stdin, never on a command line) and
 * journaled here as remote-argv records that run
 *     ipsecperf peer-agent --undo '<the same record>'
 * on the peer, so the undo is ipsec.c's own, run where the SA is, and
 * `ipsecperf cleanup` can reach it after a SIGKILL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ipsec.h"
#include "journal.h"
#include "log.h"
#include "secret.h"
#include "testbed_peer_int.h"
#include "xfrm.h"


static const char *fam_tag(int family)
{
	return family == AF_INET ? "4" : "6";
}

/* The undo of a change on the peer: the agent runs ipsec.c's undo of rec there (steals rec). */
static json_t *agent_undo(struct peer *p, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	json_t *r;

	json_decref(rec);
	if (!text)
		return NULL;
	r = remote_undo_record(&p->h, (char *[]){ (char *)p->prog, "peer-agent", "--undo", text, NULL });
	free(text);
	return r;
}

static int journal_remote(struct peer *p, json_t *rec)
{
	json_t *r = agent_undo(p, rec);

	return r ? journal_add(r) : -1;
}

/* The spec as the agent reads it (agent_sa_spec in testbed_peer_agent.c). */
static json_t *sa_json(const struct xfrm_sa_spec *s)
{
	return json_pack("{s:i, s:s, s:s, s:I, s:b, s:s, s:i, s:s, s:i, s:i, s:s, s:i, s:i}", "family",
			 s->family == AF_INET ? 4 : 6, "src", s->src, "dst", s->dst, "spi", (json_int_t)s->spi, "tunnel",
			 s->tunnel, "enc", s->enc, "enc_key_bits", s->enc_key_bits, "auth", s->auth, "auth_key_bits",
			 s->auth_key_bits, "auth_icv_bits", s->auth_icv_bits, "aead", s->aead, "aead_key_bits",
			 s->aead_key_bits, "aead_icv_bits", s->aead_icv_bits);
}

/* ---- the peer's modules window (kmod.h), through the agent ---- */

static json_t *peer_modules(void *arg)
{
	json_t *r = agent_call(arg, json_pack("{s:s}", "op", "modules")), *loaded;

	loaded = json_is_array(json_object_get(r, "loaded")) ? json_incref(json_object_get(r, "loaded")) : NULL;
	json_decref(r);
	return loaded;
}

static int peer_journal(void *arg, json_t *rec)
{
	return journal_remote(arg, rec);
}

static int peer_amend(void *arg, int seq, json_t *rec)
{
	json_t *r = agent_undo(arg, rec);

	return r ? journal_amend(seq, r) : -1;
}

/* The ESP GSO module in the state the scenario needs, on one host; 0, 1 (skip) or -1. */
static int kmod_both(struct peer *p, const char *name, bool load, char *why, size_t len)
{
	int ref = 0, rc;
	char *err = NULL;

	/* here */
	rc = kmod_set(name, load, why, len);
	if (rc) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "this host: %s", why);
		snprintf(why, len, "%s", tmp);
		return rc;
	}
	/* the peer */
	json_t *r = agent_call(p, json_pack("{s:s, s:s}", "op", "kmod", "name", name));
	const char *pst;

	if (!r)
		return -1;
	pst = json_string_value(json_object_get(r, "state"));
	ref = (int)json_integer_value(json_object_get(r, "refcnt"));
	if (!pst) {
		json_decref(r);
		snprintf(why, len, "the peer's agent did not say whether %s is loaded", name);
		return -1;
	}
	rc = 0;
	if (load ? !strcmp(pst, "missing") : !strcmp(pst, "built in") || (!strcmp(pst, "loaded") && ref > 0)) {
		snprintf(why, len, "the peer: %s is %s%s", name, pst, !load && ref > 0 ? " and in use" : "");
		rc = 1;
	} else if (load ? !strcmp(pst, "loadable module") : !strcmp(pst, "loaded")) {
		/* a load's undo is the peer's modules window around it; an unload's, loading it again */
		if (remote_do(&p->h, load ? (char *[]){ "modprobe", (char *)name, NULL } : (char *[]){ "rmmod", (char *)name, NULL },
			      load ? NULL : (char *[]){ "modprobe", (char *)name, NULL }, &err) < 0) {
			snprintf(why, len, "the peer: %s %s: %s", load ? "modprobe" : "rmmod", name, err && *err ? err : "failed");
			rc = 1;
		}
		free(err);
	}
	json_decref(r);
	return rc;
}

/* ---- the peer's side of an xfrm add (ipsec_add_journaled) ---- */

struct remote_add {
	struct peer *p;
	const struct xfrm_pol_spec *pol;
	const struct xfrm_sa_spec *s;
	const uint8_t *key;
	size_t klen;
};

/* A policy's selector as the agent takes it, for op ("policy-get", "policy-add"). */
static json_t *policy_req(const char *op, const struct xfrm_pol_spec *pol)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s}", "op", op, "family", pol->family == AF_INET ? 4 : 6,
			 "src", pol->src, "dst", pol->dst, "dir", pol->dir == XFRM_POLICY_IN ? "in" : "out");
}

static int remote_exists(void *arg)
{
	struct remote_add *ra = arg;
	json_t *r;
	int err;

	if (ra->pol)
		r = agent_call(ra->p, policy_req("policy-get", ra->pol));
	else
		r = agent_call(ra->p, json_pack("{s:s, s:i, s:s, s:I}", "op", "sa-get", "family",
						 ra->s->family == AF_INET ? 4 : 6, "dst", ra->s->dst, "spi",
						 (json_int_t)ra->s->spi));
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

static int remote_journal(void *arg, json_t *undo)
{
	return peer_journal(((struct remote_add *)arg)->p, undo);
}

/* The key spliced into the request line: it never passes through a json_t here. */
static json_t *sa_add_call(struct remote_add *ra)
{
	char hex[4 * XFRM_KEY_MAX + 1], *head, line[2048];
	json_t *req = sa_json(ra->s), *r;

	json_object_set_new(req, "op", json_string("sa-add"));
	head = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!head)
		return NULL;
	for (size_t i = 0; i < ra->klen; i++)
		snprintf(hex + 2 * i, 3, "%02x", ra->key[i]);
	hex[2 * ra->klen] = '\0';
	head[strlen(head) - 1] = '\0';
	snprintf(line, sizeof(line), "%s,\"key\":\"%s\"}", head, hex);
	explicit_bzero(hex, sizeof(hex));
	free(head);
	r = remote_session_call(&ra->p->agent, line, 15000);
	explicit_bzero(line, sizeof(line));
	if (!r)
		peer_lost(ra->p, ra->p->agent.lost_why);
	return r;
}

static int remote_add(void *arg, char *kmsg, size_t len)
{
	struct remote_add *ra = arg;
	json_t *r;
	int err;

	if (ra->pol) {
		json_t *req = policy_req("policy-add", ra->pol);

		json_object_set_new(req, "tunnel", json_boolean(ra->pol->tunnel));
		r = agent_call(ra->p, req);
	} else
		r = sa_add_call(ra);
	/* the session lost: the peer may or may not have made it, and its undo stays */
	if (!r)
		return -EPIPE;
	err = (int)json_integer_value(json_object_get(r, "err"));
	snprintf(kmsg, len, "%s", json_string_value(json_object_get(r, "kmsg")) ?: "");
	json_decref(r);
	return err;
}

/* One policy (host 0: here, 1: the peer); 0, 1 (skip) or -1, with why. */
static int add_policy(struct peer *p, int host, const struct xfrm_pol_spec *pol, char *why, size_t len)
{
	struct remote_add ra = { .p = p, .pol = pol };
	char what[200], kmsg[200];
	int err, rc;

	if (!host) {
		rc = ipsec_add_policy_here(NULL, pol, " on this host", &err, kmsg, sizeof(kmsg), why, len);
	} else {
		struct xfrm_add a = { what, " on the peer", ipsec_policy_record(NULL, pol), remote_exists,
				      remote_journal, remote_add, &ra };

		ipsec_policy_name(what, sizeof(what), pol);
		rc = ipsec_add_journaled(&a, &err, kmsg, sizeof(kmsg), why, len);
	}
	if (p->lost)
		snprintf(why, len, "%.300s", p->lost_why);
	else if (rc && err)
		snprintf(why, len, "%s: adding policy %s %s -> %s failed: %s%s%s", host ? "the peer" : "this host",
			 pol->dir == XFRM_POLICY_IN ? "in" : "out", pol->src, pol->dst, strerror(-err),
			 kmsg[0] ? ": " : "", kmsg);
	return p->lost ? -1 : rc;
}

/* One SA (host 0: here, 1: the peer); 0, 1 (skip) or -1, with why. */
static int add_sa(struct peer *p, int host, const struct xfrm_sa_spec *s, const uint8_t *key, size_t klen,
		  char *why, size_t len)
{
	struct remote_add ra = { .p = p, .s = s, .key = key, .klen = klen };
	char what[200], kmsg[200];
	int err, rc;

	if (!host) {
		rc = ipsec_add_sa_here(NULL, s, key, " on this host", &err, kmsg, sizeof(kmsg), why, len);
	} else {
		struct xfrm_add a = { what, " on the peer", ipsec_sa_record(NULL, s), remote_exists,
				      remote_journal, remote_add, &ra };

		ipsec_sa_name(what, sizeof(what), s);
		rc = ipsec_add_journaled(&a, &err, kmsg, sizeof(kmsg), why, len);
	}
	if (p->lost) {
		snprintf(why, len, "%.300s", p->lost_why);
		return -1;
	}
	if (rc && err) {
		/* no ESP or no algorithm in a kernel: skip; anything else: fail */
		bool cannot = err == -EPROTONOSUPPORT || err == -ENOSYS || err == -ENOENT ||
			      (err == -EINVAL && strstr(kmsg, "crypto"));

		snprintf(why, len, "%s (%s): adding SA 0x%08x failed: %s%s%s%s", host ? "the peer" : "this host",
			 host ? p->peer_kernel : p->kernel, s->spi, strerror(-err), kmsg[0] ? ": " : "", kmsg,
			 err == -EPROTONOSUPPORT ? " (no ESP in this kernel: CONFIG_INET_ESP)" : "");
		rc = cannot ? 1 : -1;
	}
	return rc;
}

/* What peer_ipsec_apply changes inside the modules windows of both hosts. */
static int apply_in_windows(struct peer *p, const struct ipsec_config *c, const char *esp, char *why, size_t len)
{
	char offload[32];
	uint8_t key[2][2 * XFRM_KEY_MAX];
	uint32_t spi[2];
	int rc;

	snprintf(offload, sizeof(offload), "%s_offload", esp);
	rc = kmod_both(p, offload, c->esp_gso, why, len);
	if (rc)
		return rc;

	ipsec_random_spis(spi);

	struct xfrm_sa_spec probe;

	ipsec_fill_sa(&probe, c, p->family, p->addr_tx, p->addr_rx, spi[0]);
	size_t klen = xfrm_sa_key_len(&probe);

	secret_hold(); /* until the keys, here and in the agent's request line, are wiped */
	if (klen > sizeof(key[0]) ||
	    (klen && (getrandom(key[0], klen, 0) != (ssize_t)klen || getrandom(key[1], klen, 0) != (ssize_t)klen))) {
		snprintf(why, len, "cannot make keys: %s", klen > sizeof(key[0]) ? "too long" : strerror(errno));
		secret_release();
		return -1;
	}

	/* policies first: until the SAs exist, matching packets are held, never sent in clear */
	for (int host = 0; host < 2 && rc == 0; host++)
		for (int d = 0; d < 2 && rc == 0; d++) {
			const char *self = host ? p->addr_rx : p->addr_tx, *other = host ? p->addr_tx : p->addr_rx;
			struct xfrm_pol_spec pol = { .family = p->family, .proto = IPPROTO_ESP, .tunnel = c->tunnel,
						     .dir = d ? XFRM_POLICY_IN : XFRM_POLICY_OUT };

			snprintf(pol.src, sizeof(pol.src), "%s", d ? other : self);
			snprintf(pol.dst, sizeof(pol.dst), "%s", d ? self : other);
			rc = add_policy(p, host, &pol, why, len);
		}

	/* direction 0: here -> peer (the data); 1: peer -> here (the ACKs); each SA on both hosts */
	for (int d = 0; d < 2 && rc == 0; d++) {
		const char *src = d ? p->addr_rx : p->addr_tx, *dst = d ? p->addr_tx : p->addr_rx;

		for (int host = 0; host < 2 && rc == 0; host++) {
			struct xfrm_sa_spec *s = &p->sas->sa[p->sas->n].spec;

			ipsec_fill_sa(s, c, p->family, src, dst, spi[d]);
			p->sas->sa[p->sas->n].remote = host;
			p->sas->sa[p->sas->n].dir = (d == 0) == (host == 0) ? "out" : "in";
			p->sas->n++;
			rc = add_sa(p, host, s, key[d], klen, why, len);
		}
	}
	explicit_bzero(key, sizeof(key));
	secret_release();
	return rc;
}

int peer_ipsec_apply(struct peer *p, const struct scenario *sc, char *why, size_t len)
{
	const struct ipsec_config *c = &sc->ipsec;
	struct kmod_window here, there = { .list = peer_modules, .journal = peer_journal, .amend = peer_amend, .arg = p };
	int rc;

	memset(p->sas, 0, sizeof(*p->sas));
	if (!c->on)
		return 0;
	if (!p->have_agent) {
		snprintf(why, len, "ESP needs ipsecperf on the peer to make its SAs (keys only on the agent's stdin): %s",
			 p->no_agent_why);
		return 1;
	}
	if (journal_dry_run()) {
		printf("# ESP: SAs and policies here with xfrm netlink, on %s through `%s peer-agent` (keys on its stdin)\n",
		       p->h.ssh_dest, p->prog);
		return 0;
	}
	/* modules the kernels load (esp4, crypto templates) are unloaded at undo time, on both */
	if (journal_hostwide(why, len) < 0)
		return -1;
	kmod_window_here(&here);
	if (kmod_window_open(&here) < 0 || kmod_window_open(&there) < 0) {
		kmod_window_close(&here);
		snprintf(why, len, "%s", p->lost ? p->lost_why : "cannot write the journal");
		return -1;
	}
	rc = apply_in_windows(p, c, p->family == AF_INET ? "esp4" : "esp6", why, len);
	if ((kmod_window_close(&here) < 0 || kmod_window_close(&there) < 0) && rc == 0) {
		snprintf(why, len, "%s", p->lost ? p->lost_why : "cannot write the journal");
		rc = -1;
	}
	return rc;
}

static int sa_get(struct peer *p, int i, struct xfrm_sa_counters *c)
{
	struct xfrm_sa_spec *s = &p->sas->sa[i].spec;
	json_t *r;
	int err;

	if (!p->sas->sa[i].remote)
		return xfrm_sa_get(NULL, s->family, s->dst, s->spi, s->proto, c);
	r = agent_call(p, json_pack("{s:s, s:i, s:s, s:I}", "op", "sa-get", "family", s->family == AF_INET ? 4 : 6,
				    "dst", s->dst, "spi", (json_int_t)s->spi));
	if (!r)
		return -EPIPE;
	err = (int)json_integer_value(json_object_get(r, "err"));
	c->packets = json_integer_value(json_object_get(r, "packets"));
	c->bytes = json_integer_value(json_object_get(r, "bytes"));
	c->oseq = json_integer_value(json_object_get(r, "oseq"));
	c->seq = json_integer_value(json_object_get(r, "seq"));
	json_decref(r);
	return err;
}

void peer_ipsec_begin(struct peer *p)
{
	for (int i = 0; i < p->sas->n; i++)
		p->sas->sa[i].err0 = sa_get(p, i, &p->sas->sa[i].c0);
}

int peer_ipsec_record(struct peer *p, json_t *rec, char *why, size_t len)
{
	json_t *a = json_array();
	int rc = 0;

	for (int i = 0; i < p->sas->n; i++) {
		struct xfrm_sa_spec *s = &p->sas->sa[i].spec;
		struct xfrm_sa_counters c1, *c0 = &p->sas->sa[i].c0;
		bool out = !strcmp(p->sas->sa[i].dir, "out");
		char spi[16];
		int err = sa_get(p, i, &c1);

		snprintf(spi, sizeof(spi), "0x%08x", s->spi);
		if (err || p->sas->sa[i].err0) {
			snprintf(why, len, "cannot read SA %s %s on %s: %s", spi, p->sas->sa[i].dir,
				 p->sas->sa[i].remote ? "the peer" : "this host", strerror(-(err ? err : p->sas->sa[i].err0)));
			rc = -1;
			continue;
		}
		uint64_t pk = c1.packets - c0->packets, by = c1.bytes - c0->bytes;

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "spi", spi, "dir",
						   p->sas->sa[i].dir, "host", p->sas->sa[i].remote ? "receiver" : "sender",
						   "family", fam_tag(s->family), "src", s->src, "packets", (json_int_t)pk,
						   "bytes", (json_int_t)by, "wire_packets",
						   (json_int_t)(out ? c1.oseq - c0->oseq : c1.seq - c0->seq)));
		if (pk == 0 && rc == 0) {
			snprintf(why, len, "policy did not match: SA %s (%s, %s) counted no packets", spi, p->sas->sa[i].dir,
				 p->sas->sa[i].remote ? "the peer" : "this host");
			rc = -1;
		}
	}
	json_object_set_new(rec, "sa", a);
	return rc;
}
