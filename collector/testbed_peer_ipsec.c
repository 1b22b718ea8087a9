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

/* The SAs of the current scenario: [0..1] here, [2..3] on the peer. */
static struct {
	int n;
	struct {
		struct xfrm_sa_spec spec;
		bool remote;
		const char *dir; /* "out" or "in", as seen by the host that has it */
		struct xfrm_sa_counters c0;
		int err0;
	} sa[4];
} cur;

static const char *fam_tag(int family)
{
	return family == AF_INET ? "4" : "6";
}

/* The undo of a change on the peer: the agent runs ipsec.c's undo of rec there. */
static int journal_remote(struct peer *p, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	int err;

	json_decref(rec);
	if (!text)
		return -1;
	err = remote_do(&p->h, NULL, (char *[]){ (char *)p->prog, "peer-agent", "--undo", text, NULL }, NULL);
	free(text);
	return err;
}

static json_t *sa_record(const struct xfrm_sa_spec *s)
{
	char spi[16];

	snprintf(spi, sizeof(spi), "0x%08x", s->spi);
	return json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-state", "family", s->family == AF_INET ? 4 : 6,
			 "dst", s->dst, "spi", spi, "proto", "esp");
}

static json_t *policy_record(const struct xfrm_pol_spec *pol)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-policy", "family", pol->family == AF_INET ? 4 : 6,
			 "src", pol->src, "dst", pol->dst, "dir", pol->dir == XFRM_POLICY_IN ? "in" : "out");
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

/* The ESP GSO module in the state the scenario needs, on one host; 0, 1 (skip) or -1. */
static int kmod_both(struct peer *p, const char *name, bool load, char *why, size_t len)
{
	int ref = 0, rc;
	enum kmod_state st = kmod_state(name, &ref);
	char *err = NULL;

	/* here */
	if (load ? st == KMOD_MISSING : st == KMOD_BUILTIN || (st == KMOD_LOADED && ref > 0)) {
		snprintf(why, len, "this host: %s %s", name, load ? "is missing" : st == KMOD_BUILTIN ?
			 "is built in and cannot be unloaded" : "is loaded and in use");
		return 1;
	}
	if (load ? st == KMOD_LOADABLE : st == KMOD_LOADED) {
		rc = host_do(NULL, load ? (char *[]){ "modprobe", (char *)name, NULL } : (char *[]){ "modprobe", "-r", (char *)name, NULL },
			     load ? (char *[]){ "modprobe", "-r", (char *)name, NULL } : (char *[]){ "modprobe", (char *)name, NULL }, &err);
		if (rc < 0) {
			snprintf(why, len, "this host: modprobe %s%s: %s", load ? "" : "-r ", name, err && *err ? err : "failed");
			free(err);
			return 1;
		}
		free(err);
		err = NULL;
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
		if (remote_do(&p->h, load ? (char *[]){ "modprobe", (char *)name, NULL } : (char *[]){ "modprobe", "-r", (char *)name, NULL },
			      load ? (char *[]){ "modprobe", "-r", (char *)name, NULL } : (char *[]){ "modprobe", (char *)name, NULL },
			      &err) < 0) {
			snprintf(why, len, "the peer: modprobe %s%s: %s", load ? "" : "-r ", name, err && *err ? err : "failed");
			rc = 1;
		}
		free(err);
	}
	json_decref(r);
	return rc;
}

int peer_ipsec_apply(struct peer *p, const struct scenario *sc, char *why, size_t len)
{
	const struct ipsec_config *c = &sc->ipsec;
	const char *esp = p->family == AF_INET ? "esp4" : "esp6";
	char offload[32], hex[4 * XFRM_KEY_MAX + 1], kmsg[200];
	uint8_t key[2][2 * XFRM_KEY_MAX];
	uint32_t spi[2];
	int rc = 0, err;
	json_t *r;

	memset(&cur, 0, sizeof(cur));
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
	/* modules the kernels load on demand (esp4, crypto templates) are unloaded at undo time, on both */
	if (kmod_journal_snapshot() < 0)
		return -1;
	r = agent_call(p, json_pack("{s:s}", "op", "modules"));
	if (!r)
		return -1;
	if (json_is_array(json_object_get(r, "loaded")) &&
	    journal_remote(p, json_pack("{s:s, s:O}", "kind", "modules", "before", json_object_get(r, "loaded"))) < 0) {
		json_decref(r);
		snprintf(why, len, "cannot write the journal");
		return -1;
	}
	json_decref(r);
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
			if (!host) {
				if (journal_add(policy_record(&pol)) < 0)
					return -1;
				err = xfrm_policy_add(NULL, &pol, kmsg, sizeof(kmsg));
			} else {
				if (journal_remote(p, policy_record(&pol)) < 0)
					return -1;
				r = agent_call(p, json_pack("{s:s, s:i, s:s, s:s, s:s, s:b}", "op", "policy-add", "family",
							    p->family == AF_INET ? 4 : 6, "src", pol.src, "dst", pol.dst,
							    "dir", d ? "in" : "out", "tunnel", c->tunnel));
				if (!r)
					return -1;
				err = (int)json_integer_value(json_object_get(r, "err"));
				snprintf(kmsg, sizeof(kmsg), "%s", json_string_value(json_object_get(r, "kmsg")) ?: "");
				json_decref(r);
			}
			if (err) {
				snprintf(why, len, "%s: adding policy %s %s -> %s failed: %s%s%s", host ? "the peer" : "this host",
					 d ? "in" : "out", pol.src, pol.dst, strerror(-err), kmsg[0] ? ": " : "", kmsg);
				rc = -1;
			}
		}

	/* direction 0: here -> peer (the data); 1: peer -> here (the ACKs); each SA on both hosts */
	for (int d = 0; d < 2 && rc == 0; d++) {
		const char *src = d ? p->addr_rx : p->addr_tx, *dst = d ? p->addr_tx : p->addr_rx;

		for (int host = 0; host < 2 && rc == 0; host++) {
			struct xfrm_sa_spec *s = &cur.sa[cur.n].spec;

			ipsec_fill_sa(s, c, p->family, src, dst, spi[d]);
			cur.sa[cur.n].remote = host;
			cur.sa[cur.n].dir = (d == 0) == (host == 0) ? "out" : "in";
			cur.n++;
			if (!host) {
				if (journal_add(sa_record(s)) < 0) {
					rc = -1;
					break;
				}
				err = xfrm_sa_add(NULL, s, key[d], kmsg, sizeof(kmsg));
			} else {
				json_t *req = sa_json(s);
				char *head, line[2048];

				if (journal_remote(p, sa_record(s)) < 0) {
					json_decref(req);
					rc = -1;
					break;
				}
				json_object_set_new(req, "op", json_string("sa-add"));
				head = json_dumps(req, JSON_COMPACT);
				json_decref(req);
				if (!head) {
					rc = -1;
					break;
				}
				/* the key spliced into the line: it never passes through a json_t here */
				for (size_t i = 0; i < klen; i++)
					snprintf(hex + 2 * i, 3, "%02x", key[d][i]);
				hex[2 * klen] = '\0';
				head[strlen(head) - 1] = '\0';
				snprintf(line, sizeof(line), "%s,\"key\":\"%s\"}", head, hex);
				explicit_bzero(hex, sizeof(hex));
				free(head);
				r = remote_session_call(&p->agent, line, 15000);
				explicit_bzero(line, sizeof(line));
				if (!r) {
					peer_lost(p, p->agent.lost_why);
					snprintf(why, len, "%.300s", p->lost_why);
					rc = -1;
					break;
				}
				err = (int)json_integer_value(json_object_get(r, "err"));
				snprintf(kmsg, sizeof(kmsg), "%s", json_string_value(json_object_get(r, "kmsg")) ?: "");
				json_decref(r);
			}
			if (err) {
				/* no ESP or no algorithm in a kernel: skip; anything else: fail */
				bool cannot = err == -EPROTONOSUPPORT || err == -ENOSYS || err == -ENOENT ||
					      (err == -EINVAL && strstr(kmsg, "crypto"));

				snprintf(why, len, "%s (%s): adding SA 0x%08x failed: %s%s%s%s", host ? "the peer" : "this host",
					 host ? p->peer_kernel : p->kernel, s->spi, strerror(-err), kmsg[0] ? ": " : "", kmsg,
					 err == -EPROTONOSUPPORT ? " (no ESP in this kernel: CONFIG_INET_ESP)" : "");
				rc = cannot ? 1 : -1;
			}
		}
	}
	explicit_bzero(key, sizeof(key));
	secret_release();
	return rc;
}

static int sa_get(struct peer *p, int i, struct xfrm_sa_counters *c)
{
	struct xfrm_sa_spec *s = &cur.sa[i].spec;
	json_t *r;
	int err;

	if (!cur.sa[i].remote)
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
	for (int i = 0; i < cur.n; i++)
		cur.sa[i].err0 = sa_get(p, i, &cur.sa[i].c0);
}

int peer_ipsec_record(struct peer *p, json_t *rec, char *why, size_t len)
{
	json_t *a = json_array();
	int rc = 0;

	for (int i = 0; i < cur.n; i++) {
		struct xfrm_sa_spec *s = &cur.sa[i].spec;
		struct xfrm_sa_counters c1, *c0 = &cur.sa[i].c0;
		bool out = !strcmp(cur.sa[i].dir, "out");
		char spi[16];
		int err = sa_get(p, i, &c1);

		snprintf(spi, sizeof(spi), "0x%08x", s->spi);
		if (err || cur.sa[i].err0) {
			snprintf(why, len, "cannot read SA %s %s on %s: %s", spi, cur.sa[i].dir,
				 cur.sa[i].remote ? "the peer" : "this host", strerror(-(err ? err : cur.sa[i].err0)));
			rc = -1;
			continue;
		}
		uint64_t pk = c1.packets - c0->packets, by = c1.bytes - c0->bytes;

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "spi", spi, "dir",
						   cur.sa[i].dir, "host", cur.sa[i].remote ? "receiver" : "sender",
						   "family", fam_tag(s->family), "src", s->src, "packets", (json_int_t)pk,
						   "bytes", (json_int_t)by, "wire_packets",
						   (json_int_t)(out ? c1.oseq - c0->oseq : c1.seq - c0->seq)));
		if (pk == 0 && rc == 0) {
			snprintf(why, len, "policy did not match: SA %s (%s, %s) counted no packets", spi, cur.sa[i].dir,
				 cur.sa[i].remote ? "the peer" : "this host");
			rc = -1;
		}
	}
	json_object_set_new(rec, "sa", a);
	return rc;
}
