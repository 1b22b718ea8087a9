// SPDX-License-Identifier: GPL-2.0
#include "ipsec.h"
#include "load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "kmod.h"
#include "log.h"
#include "probes.h"
#include "secret.h"
#include "endpoint_xfrm.h"
#include "remote.h"
#include "xfrm.h"
#include "xfrm_pcpu.h"


/* ---- SAs and policies ---- */

json_t *ipsec_sa_record(const char *netns, const struct xfrm_sa_spec *s)
{
	char spi[16];
	json_t *r;

	snprintf(spi, sizeof(spi), "0x%08x", s->spi);
	r = json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-state", "family", s->family == AF_INET ? 4 : 6,
		      "dst", s->dst, "spi", spi, "proto", "esp");
	if (netns)
		json_object_set_new(r, "netns", json_string(netns));
	return r;
}

static const char *dir_name(int dir)
{
	return dir == XFRM_POLICY_IN ? "in" : dir == XFRM_POLICY_OUT ? "out" : "fwd";
}

json_t *ipsec_policy_record(const char *netns, const struct xfrm_pol_spec *p)
{
	json_t *r = json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-policy", "family",
			      p->family == AF_INET ? 4 : 6, "src", p->src, "dst", p->dst, "dir", dir_name(p->dir));

	if (netns)
		json_object_set_new(r, "netns", json_string(netns));
	/* a flow's policy (several SA pairs): its selector's ports, which the delete must name */
	ep_xfrm_ports_json(r, p);
	return r;
}

void ipsec_policy_name(char *buf, size_t len, const struct xfrm_pol_spec *p)
{
	if (p->sport || p->dport)
		snprintf(buf, len, "policy %s %s -> %s %s %u", dir_name(p->dir), p->src, p->dst,
			 p->sport ? "sport" : "dport", p->sport ? p->sport : p->dport);
	else
		snprintf(buf, len, "policy %s %s -> %s", dir_name(p->dir), p->src, p->dst);
}

void ipsec_sa_name(char *buf, size_t len, const struct xfrm_sa_spec *s)
{
	snprintf(buf, len, "SA spi 0x%08x dst %s", s->spi, s->dst);
}

int ipsec_add_journaled(const struct xfrm_add *a, int *kerr, char *kmsg, size_t klen, char *why, size_t len)
{
	int there, seq;

	*kerr = 0;
	if (klen)
		kmsg[0] = '\0';
	if (journal_dry_run())
		return a->journal(a->arg, a->undo) < 0 ? -1 : 0;
	there = a->exists(a->arg);
	if (there < 0) {
		json_decref(a->undo);
		snprintf(why, len, "cannot tell whether %s is there%s: %s", a->what, a->where,
			 there == -EOPNOTSUPP ? "its ipsecperf cannot look (older than this one? install the same there)"
					      : strerror(-there));
		return -1;
	}
	if (there == 0) {
		if (a->journal(a->arg, a->undo) < 0) {
			snprintf(why, len, "cannot write the journal");
			return -1;
		}
		seq = journal_last();
		*kerr = a->add(a->arg, kmsg, klen);
		if (!*kerr)
			return 0;
		/*
		 * Not made: its undo would remove what is not ours (EEXIST: one
		 * made since the look-up). -EPIPE: the peer was lost and may have
		 * made it; the undo stays, for cleanup.
		 */
		if (*kerr != -EPIPE)
			journal_cancel(seq);
		if (*kerr != -EEXIST)
			return -1;
	} else {
		json_decref(a->undo);
	}
	*kerr = 0;
	snprintf(why, len, "%s is there already%s, not made by this run: left as it is (remove it, or run with other addresses)",
		 a->what, a->where);
	return 1;
}

/* An xfrm add at an endpoint (ipsec_add_journaled's callbacks). */
struct ep_add {
	const struct endpoint *e;
	const struct xfrm_pol_spec *p;
	const struct xfrm_sa_spec *s;
	const uint8_t *key;
	size_t klen;
};

static int ep_exists(void *arg)
{
	struct ep_add *l = arg;

	return l->p ? ep_xfrm_policy_exists(l->e, l->p) : ep_xfrm_sa_exists(l->e, l->s);
}

static int ep_journal(void *arg, json_t *undo)
{
	return ep_journal_undo(((struct ep_add *)arg)->e, undo);
}

static int ep_add(void *arg, char *kmsg, size_t len)
{
	struct ep_add *l = arg;

	return l->p ? ep_xfrm_policy_add(l->e, l->p, kmsg, len) : ep_xfrm_sa_add(l->e, l->s, l->key, l->klen, kmsg, len);
}

int ipsec_add_policy_at(const struct endpoint *e, const struct xfrm_pol_spec *p, const char *where, int *kerr,
			char *kmsg, size_t klen, char *why, size_t len)
{
	struct ep_add l = { .e = e, .p = p };
	char what[200];
	struct xfrm_add a = { what, where, ipsec_policy_record(ep_remote(e) ? NULL : e->netns, p), ep_exists,
			      ep_journal, ep_add, &l };

	ipsec_policy_name(what, sizeof(what), p);
	return ipsec_add_journaled(&a, kerr, kmsg, klen, why, len);
}

int ipsec_add_sa_at(const struct endpoint *e, const struct xfrm_sa_spec *s, const uint8_t *key, size_t keylen,
		    const char *where, int *kerr, char *kmsg, size_t klen, char *why, size_t len)
{
	struct ep_add l = { .e = e, .s = s, .key = key, .klen = keylen };
	char what[200];
	struct xfrm_add a = { what, where, ipsec_sa_record(ep_remote(e) ? NULL : e->netns, s), ep_exists,
			      ep_journal, ep_add, &l };

	ipsec_sa_name(what, sizeof(what), s);
	return ipsec_add_journaled(&a, kerr, kmsg, klen, why, len);
}

int ipsec_add_policy_here(const char *ns, const struct xfrm_pol_spec *p, const char *where, int *kerr,
			  char *kmsg, size_t klen, char *why, size_t len)
{
	struct endpoint e = { .netns = ns, .cpu = -1 };

	return ipsec_add_policy_at(&e, p, where, kerr, kmsg, klen, why, len);
}

int ipsec_add_sa_here(const char *ns, const struct xfrm_sa_spec *s, const uint8_t *key, const char *where,
		      int *kerr, char *kmsg, size_t klen, char *why, size_t len)
{
	struct endpoint e = { .netns = ns, .cpu = -1 };

	return ipsec_add_sa_at(&e, s, key, xfrm_sa_key_len(s), where, kerr, kmsg, klen, why, len);
}

static int rec_family(json_t *r)
{
	return json_integer_value(json_object_get(r, "family")) == 6 ? AF_INET6 : AF_INET;
}

int ipsec_undo_state(json_t *r)
{
	const char *ns = json_string_value(json_object_get(r, "netns"));
	const char *dst = json_string_value(json_object_get(r, "dst"));
	const char *spi = json_string_value(json_object_get(r, "spi"));
	int err;

	if (!dst || !spi)
		return -1;
	err = xfrm_sa_del(ns, rec_family(r), dst, (uint32_t)strtoul(spi, NULL, 16), IPPROTO_ESP);
	if (err)
		pr_warn("undo: delete SA spi %s dst %s%s%s: %s", spi, dst, ns ? " in " : "", ns ? ns : "",
			strerror(-err));
	return err ? -1 : 0;
}

int ipsec_undo_policy(json_t *r)
{
	const char *ns = json_string_value(json_object_get(r, "netns"));
	const char *src = json_string_value(json_object_get(r, "src"));
	const char *dst = json_string_value(json_object_get(r, "dst"));
	const char *dir = json_string_value(json_object_get(r, "dir"));
	struct xfrm_pol_spec p = { .family = rec_family(r), .proto = IPPROTO_ESP };
	int err;

	if (!src || !dst || !dir)
		return -1;
	snprintf(p.src, sizeof(p.src), "%s", src);
	snprintf(p.dst, sizeof(p.dst), "%s", dst);
	p.dir = !strcmp(dir, "in") ? XFRM_POLICY_IN : !strcmp(dir, "out") ? XFRM_POLICY_OUT : XFRM_POLICY_FWD;
	json_int_t l4 = json_integer_value(json_object_get(r, "l4proto"));
	json_int_t sport = json_integer_value(json_object_get(r, "sport"));
	json_int_t dport = json_integer_value(json_object_get(r, "dport"));

	if (l4 < 0 || l4 > 255 || sport < 0 || sport > 65535 || dport < 0 || dport > 65535)
		return -1;
	p.l4proto = (int)l4;
	p.sport = (uint16_t)sport;
	p.dport = (uint16_t)dport;
	err = xfrm_policy_del(ns, &p);
	if (err)
		pr_warn("undo: delete policy %s %s -> %s%s%s: %s", dir, src, dst, ns ? " in " : "",
			ns ? ns : "", strerror(-err));
	return err ? -1 : 0;
}

/* Why an SA could not be made, as a reason to skip (1) or to fail (-1). */
static int sa_error(int err, const char *kmsg, const struct xfrm_sa_spec *s, const char *esp,
		    char *why, size_t len)
{
	int ref;

	const char *alg = s->aead[0] ? s->aead : s->enc;
	char algs[200];

	if (s->aead[0])
		snprintf(algs, sizeof(algs), "aead %s", s->aead);
	else
		snprintf(algs, sizeof(algs), "enc %s, auth %s", s->enc, s->auth);
	switch (-err) {
	case EPROTONOSUPPORT:
		if (esp && kmod_state(esp, &ref) == KMOD_MISSING)
			snprintf(why, len, "this kernel has no ESP: %s is neither loaded, built in nor a loadable module (CONFIG_INET%s_ESP)",
				 esp, s->family == AF_INET ? "" : "6");
		else
			snprintf(why, len, "this kernel cannot make an ESP SA: %s",
				 kmsg[0] ? kmsg : "xfrm type esp not found");
		return 1;
	case ENOSYS:
		snprintf(why, len, "this kernel lacks the algorithm (%s): %s", algs,
			 kmsg[0] ? kmsg : "not known to xfrm");
		return 1;
	case ENOENT:
	case EINVAL:
		if (kmsg[0] && strstr(kmsg, "crypto")) {
			snprintf(why, len, "this kernel cannot make %s: %s", alg, kmsg);
			return 1;
		}
		/* fall through */
	default:
		snprintf(why, len, "adding SA 0x%08x failed: %s%s%s", s->spi, strerror(-err),
			 kmsg[0] ? ": " : "", kmsg);
		return -1;
	}
}

static int family_of(const char *addr)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, addr, buf) == 1 ? AF_INET : AF_INET6;
}

void ipsec_fill_sa(struct xfrm_sa_spec *s, const struct ipsec_config *c, int family, const char *src,
		   const char *dst, uint32_t spi)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	snprintf(s->src, sizeof(s->src), "%s", src);
	snprintf(s->dst, sizeof(s->dst), "%s", dst);
	s->spi = spi;
	s->proto = IPPROTO_ESP;
	s->tunnel = c->tunnel;
	snprintf(s->enc, sizeof(s->enc), "%s", c->enc);
	snprintf(s->auth, sizeof(s->auth), "%s", c->auth);
	snprintf(s->aead, sizeof(s->aead), "%s", c->aead);
	s->enc_key_bits = c->enc_key_bits;
	s->auth_key_bits = c->auth_key_bits;
	s->auth_icv_bits = c->auth_icv_bits;
	if (c->aead[0])
		s->aead_key_bits = c->aead_key_bits + c->aead_salt_bits;
	s->aead_icv_bits = c->aead_icv_bits;
}

static uint32_t ipsec_random_spi(void)
{
	uint32_t spi = 0;

	/* 1-255 are reserved (RFC 4303); the SPI is no secret */
	while (spi < 0x100)
		if (getrandom(&spi, sizeof(spi), 0) != sizeof(spi))
			spi = (uint32_t)getpid() << 8;
	return spi;
}

/* n different random SPIs */
static void random_spis(uint32_t *spi, int n)
{
	for (int i = 0; i < n; i++) {
		bool again;

		do {
			spi[i] = ipsec_random_spi();
			again = false;
			for (int k = 0; k < i; k++)
				again |= spi[k] == spi[i];
		} while (again);
	}
}

void ipsec_random_spis(uint32_t spi[2])
{
	random_spis(spi, 2);
}

/* The two ends of a set-up: tx and rx, on one host (netns) or two (peer). */
struct ends {
	const struct endpoint *ep[2];
	bool hosts; /* two hosts: each has its kernel, and messages say which host */
};

/* " in NS", " on this host", " on the peer": where e's objects are, for messages. */
static void ep_where(char *buf, size_t len, const struct ends *x, const struct endpoint *e)
{
	if (ep_remote(e))
		snprintf(buf, len, " on the peer");
	else if (e->netns && !x->hosts)
		snprintf(buf, len, " in %s", e->netns);
	else
		snprintf(buf, len, " on this host");
}

/* why prefixed with the host, when there are two ("this host: ...", "the peer: ..."). */
static void host_prefix(const struct ends *x, const struct endpoint *e, char *why, size_t len)
{
	char tmp[512];

	if (!x->hosts)
		return;
	snprintf(tmp, sizeof(tmp), "%s", why);
	snprintf(why, len, "%s: %s", ep_remote(e) ? "the peer" : "this host", tmp);
}

/* rc, or -1 with why when an end was lost meanwhile (the peer: its ssh session died). */
static int lost_check(const struct ends *x, int rc, char *why, size_t len)
{
	for (int i = 0; i < 2; i++)
		if (ep_lost(x->ep[i])) {
			snprintf(why, len, "%.300s", ep_lost(x->ep[i]));
			return -1;
		}
	return rc;
}

/*
 * Several SA pairs: the policies of the flows' ports come before the
 * catch-all (which takes what else passes between the two, through pair 0),
 * the kernel taking the lowest priority among those that match.
 */
#define PRIO_PORTS 100
#define PRIO_ALL 200
/* what the peer's agent takes (xfrm.h) */
_Static_assert(PRIO_ALL <= XFRM_RUN_PRIO_MAX && SCENARIO_MAX_SAS <= XFRM_RUN_REQID_MAX,
	       "the agent refuses a priority or reqid the run gives");

/*
 * Policy k of one end and direction: 0 the catch-all; then, with several
 * SA pairs, four a flow port (its source or its destination, whichever end
 * is its server), through the pair of that flow. 0, or -1 past the last.
 */
static int policy_of(const struct ipsec_sas *cur, int k, struct xfrm_pol_spec *p)
{
	if (k == 0) {
		if (cur->npairs > 1) {
			p->priority = PRIO_ALL;
			p->reqid = 1;
		}
		return 0;
	}
	if (cur->npairs < 2 || k > 2 * cur->nports)
		return -1;
	int flow = (k - 1) / 2;
	uint16_t port = (uint16_t)(cur->port + flow);

	p->l4proto = IPPROTO_TCP;
	p->priority = PRIO_PORTS;
	p->reqid = (uint32_t)(flow % cur->npairs) + 1;
	if ((k - 1) % 2)
		p->sport = port;
	else
		p->dport = port;
	return 0;
}

static int make_policies(const struct ends *x, const struct ipsec_config *c, int family, const struct ipsec_sas *cur,
			 char *why, size_t len)
{
	for (int i = 0; i < 2; i++)
		for (int k = 0, d = 0; ; d = !d, k += !d) {
			const struct endpoint *e = x->ep[i];
			struct xfrm_pol_spec p = { .family = family, .proto = IPPROTO_ESP, .tunnel = c->tunnel,
						   .dir = d ? XFRM_POLICY_IN : XFRM_POLICY_OUT };
			char kmsg[200], where[48];
			int err, rc;

			if (policy_of(cur, k, &p) < 0)
				break;
			/* per-CPU SAs: a CPU without an SA of its own takes the fallback (and asks a key manager) */
			if (cur->npcpu && i == 0 && !d && k == 0)
				p.flags = IPP_XFRM_POLICY_CPU_ACQUIRE;

			/* out: self -> peer; in: peer -> self */
			snprintf(p.src, sizeof(p.src), "%s", d ? x->ep[!i]->addr : e->addr);
			snprintf(p.dst, sizeof(p.dst), "%s", d ? e->addr : x->ep[!i]->addr);
			if (journal_dry_run())
				xfrm_policy_print(stdout, e->netns, &p);
			ep_where(where, sizeof(where), x, e);
			rc = ipsec_add_policy_at(e, &p, where, &err, kmsg, sizeof(kmsg), why, len);
			if (rc && err) {
				char what[200];

				ipsec_policy_name(what, sizeof(what), &p);
				snprintf(why, len, "adding %s failed: %s%s%s", what, strerror(-err), kmsg[0] ? ": " : "",
					 kmsg);
				host_prefix(x, e, why, len);
			}
			rc = lost_check(x, rc, why, len);
			if (rc)
				return rc;
		}
	return 0;
}

/*
 * The SAs of each pair, direction 0: tx -> rx (the data); 1: rx -> tx (the
 * ACKs), each at its out end, then its in end; pair j's direction d has
 * spi[2j + d] and key[2j + d].
 */
static int make_sas(const struct ends *x, const struct ipsec_config *c, int family, const char *esp,
		    const uint32_t *spi, uint8_t (*key)[2 * XFRM_KEY_MAX], size_t klen, struct ipsec_sas *cur,
		    char *why, size_t len)
{
	int rc = 0, npairs = cur->npairs;

	for (int pair = 0; pair < npairs && rc == 0; pair++)
	for (int d = 0; d < 2 && rc == 0; d++)
		for (int side = 0; side < 2 && rc == 0; side++) {
			int end = d ^ side; /* the out end of direction d is its source */
			const struct endpoint *e = x->ep[end];
			struct xfrm_sa_spec *s = &cur->sa[cur->n].spec;
			char kmsg[200], where[48];
			int err;

			ipsec_fill_sa(s, c, family, x->ep[d]->addr, x->ep[!d]->addr, spi[2 * pair + d]);
			if (npairs > 1)
				s->reqid = (uint32_t)pair + 1;
			cur->sa[cur->n].pair = pair;
			cur->sa[cur->n].ep = e;
			cur->sa[cur->n].role = end ? "rx" : "tx";
			cur->sa[cur->n].dir = side ? "in" : "out";
			if (cur->npcpu && pair == 0 && d == 0) {
				/* the per-CPU set's fallback: an SA bound to no CPU, its direction said */
				s->sa_dir = side ? IPP_XFRM_SA_DIR_IN : IPP_XFRM_SA_DIR_OUT;
				cur->sa[cur->n].pcpu = true;
				cur->sa[cur->n].cpu = -1;
			}
			if (journal_dry_run())
				xfrm_sa_print(stdout, e->netns, s);
			cur->n++;
			ep_where(where, sizeof(where), x, e);
			rc = ipsec_add_sa_at(e, s, key[2 * pair + d], klen, where, &err, kmsg, sizeof(kmsg), why, len);
			if (rc && err) {
				rc = sa_error(err, kmsg, s, ep_remote(e) ? NULL : esp, why, len);
				host_prefix(x, e, why, len);
			}
			rc = lost_check(x, rc, why, len);
		}
	return rc;
}

/*
 * Per-CPU SAs (cur->npcpu): for each CPU of the sending end, an out SA
 * at tx bound to it (XFRMA_SA_PCPU) and its in SA at rx, with spi[k] and
 * a key of their own (never one SA's key for another: with GCM, two SAs
 * of one key would repeat nonces), made and wiped one CPU at a time.
 */
static int make_pcpu_sas(const struct ends *x, const struct ipsec_config *c, int family, const char *esp,
			 const uint32_t *spi, size_t klen, struct ipsec_sas *cur, char *why, size_t len)
{
	uint8_t key[2 * XFRM_KEY_MAX] = { 0 };
	int rc = 0;

	for (int k = 0; k < cur->npcpu && rc == 0; k++) {
		if (klen && !journal_dry_run() && getrandom(key, klen, 0) != (ssize_t)klen) {
			snprintf(why, len, "getrandom: %s", strerror(errno));
			rc = -1;
			break;
		}
		for (int side = 0; side < 2 && rc == 0; side++) {
			const struct endpoint *e = x->ep[side];
			struct xfrm_sa_spec *s = &cur->sa[cur->n].spec;
			char kmsg[200], where[48];
			int err;

			ipsec_fill_sa(s, c, family, x->ep[0]->addr, x->ep[1]->addr, spi[k]);
			s->sa_dir = side ? IPP_XFRM_SA_DIR_IN : IPP_XFRM_SA_DIR_OUT;
			s->pcpu_set = !side;
			s->pcpu = (uint32_t)cur->cpus[k];
			cur->sa[cur->n].pair = 0;
			cur->sa[cur->n].ep = e;
			cur->sa[cur->n].role = side ? "rx" : "tx";
			cur->sa[cur->n].dir = side ? "in" : "out";
			cur->sa[cur->n].pcpu = true;
			cur->sa[cur->n].cpu = cur->cpus[k];
			if (journal_dry_run())
				xfrm_sa_print(stdout, e->netns, s);
			cur->n++;
			ep_where(where, sizeof(where), x, e);
			rc = ipsec_add_sa_at(e, s, key, klen, where, &err, kmsg, sizeof(kmsg), why, len);
			if (rc && err)
				rc = sa_error(err, kmsg, s, esp, why, len);
			rc = lost_check(x, rc, why, len);
		}
	}
	explicit_bzero(key, sizeof(key));
	return rc;
}

/*
 * esp-gso = off on a kernel with esp4_offload built in: every SA gets its
 * offload type when it is made (xfrm_get_type_offload), so ESP output
 * takes the GSO path (esp_xmit after segmentation, never esp_output) and
 * nothing short of another kernel avoids it. 1 (skip, why) then; 0; -1 lost.
 */
static int offload_builtin_check(const struct endpoint *e, int family, const char *offload, char *why,
				 size_t len)
{
	const char *opt = family == AF_INET ? "CONFIG_INET_ESP_OFFLOAD" : "CONFIG_INET6_ESP_OFFLOAD";
	enum kmod_state st;

	if (journal_dry_run())
		return 0; /* kmod_set says what a run would make of it */
	if (ep_kmod_state(e, offload, &st, why, len) < 0)
		return -1;
	if (st != KMOD_BUILTIN)
		return 0;
	snprintf(why, len,
		 "%s is built into this kernel (%s=y) and cannot be unloaded: ESP would take its GSO path (esp_xmit, never %s), which esp-gso = off excludes; a kernel with %s=m runs this scenario",
		 offload, opt, family == AF_INET ? "esp_output" : "esp6_output", opt);
	return 1;
}

/* What ipsec_apply changes inside its modules windows: esp4_offload, the policies and the SAs. */
static int apply_in_window(const struct ends *x, const struct ipsec_config *c, int family, const char *esp,
			   struct ipsec_sas *cur, char *why, size_t len)
{
	uint8_t key[2 * SCENARIO_MAX_SAS][2 * XFRM_KEY_MAX];
	char offload[32];
	uint32_t spi[2 * SCENARIO_MAX_SAS + IPSEC_PCPU_MAX];
	int rc = 0, nkeys = 2 * cur->npairs;

	/* esp4_offload loaded before the SAs keeps GSO over ESP: what esp-gso means */
	snprintf(offload, sizeof(offload), "%s_offload", esp);
	for (int k = 0; k <= x->hosts && rc == 0; k++) {
		if (!c->esp_gso)
			rc = offload_builtin_check(x->ep[k], family, offload, why, len);
		if (rc == 0)
			rc = ep_kmod_set(x->ep[k], offload, c->esp_gso, why, len);
		if (rc)
			host_prefix(x, x->ep[k], why, len);
		rc = lost_check(x, rc, why, len);
	}
	if (rc)
		return rc;

	random_spis(spi, nkeys + cur->npcpu);

	struct xfrm_sa_spec probe;

	ipsec_fill_sa(&probe, c, family, x->ep[0]->addr, x->ep[1]->addr, spi[0]);
	size_t klen = xfrm_sa_key_len(&probe);

	if (klen > sizeof(key[0])) {
		snprintf(why, len, "keys longer than %zu bytes", sizeof(key[0]));
		return -1;
	}
	secret_hold(); /* until the keys, here, in netlink messages and in the agent's request lines, are wiped */
	for (int k = 0; klen && !journal_dry_run() && k < nkeys; k++)
		if (getrandom(key[k], klen, 0) != (ssize_t)klen) {
			snprintf(why, len, "getrandom: %s", strerror(errno));
			explicit_bzero(key, sizeof(key));
			secret_release();
			return -1;
		}
	if (journal_dry_run() && klen)
		printf("# keys: set KEY_* to 0x and the given number of bits in hex digits, e.g. KEY_ENC_128=0x$(od -An -tx1 -N16 /dev/urandom | tr -d ' \\n')\n");

	/*
	 * Policies first: until the SAs exist, matching packets are held, never
	 * sent in clear. (And on a kernel without ESP the policies still go in
	 * and out again, so their journal records are exercised everywhere.)
	 */
	rc = make_policies(x, c, family, cur, why, len);
	if (rc == 0)
		rc = make_sas(x, c, family, esp, spi, key, klen, cur, why, len);
	if (rc == 0 && cur->npcpu)
		rc = make_pcpu_sas(x, c, family, esp, spi + nkeys, klen, cur, why, len);
	explicit_bzero(key, sizeof(key));
	secret_release();
	return rc;
}

/* Open the modules windows of the ends' kernels (one, or one per host); -1 with why. */
static int windows_open(const struct ends *x, struct kmod_window win[2], char *why, size_t len)
{
	for (int k = 0; k <= x->hosts; k++) {
		ep_kmod_window(x->ep[k], &win[k]);
		if (kmod_window_open(&win[k]) < 0) {
			while (k--)
				kmod_window_close(&win[k]);
			snprintf(why, len, "cannot write the journal");
			return lost_check(x, -1, why, len);
		}
	}
	return 0;
}

static int windows_close(const struct ends *x, struct kmod_window win[2], int rc, char *why, size_t len)
{
	bool bad = false;

	for (int k = 0; k <= x->hosts; k++)
		bad |= kmod_window_close(&win[k]) < 0;
	if (bad && rc == 0) {
		snprintf(why, len, "cannot write the journal");
		rc = lost_check(x, -1, why, len);
	}
	return rc;
}

/*
 * pcpu = yes: per-CPU SAs (RFC 9611; the uapi's XFRMA_SA_PCPU with
 * XFRMA_SA_DIR, the policy flag XFRM_POLICY_CPU_ACQUIRE: xfrm_pcpu.h),
 * where the sending end's kernel takes them (xfrm_pcpu's probe, asked
 * here: on one host, this is the sending end's kernel) and the ends are
 * one host's namespaces (netns and vm testbeds; the peer agent does not
 * carry the attributes). 0 with cur->npcpu and cur->cpus: this kernel's
 * online CPUs; 1 skip, saying why.
 */
static int pcpu_prepare(const struct ends *x, const struct ipsec_flows *fl, struct ipsec_sas *cur, char *why,
			size_t len)
{
	char pw[300];
	int has, n;

	if (x->hosts) {
		snprintf(why, len, "pcpu = yes: per-CPU SAs are made in the two namespaces of one host (netns, vm testbeds) only, not on two hosts");
		return 1;
	}
	if (fl && fl->npairs > 1) {
		snprintf(why, len, "pcpu = yes with %d SA pairs: per-CPU SAs are made for one pair only", fl->npairs);
		return 1;
	}
	has = xfrm_pcpu_probe(pw, sizeof(pw));
	if (has != 1) {
		snprintf(why, len, "pcpu = yes: %s per-CPU SAs (RFC 9611, Linux 6.13+): %s",
			 has == 0 ? "this kernel has no" : "cannot tell whether this kernel has", pw);
		return 1;
	}
	n = xfrm_pcpu_online(cur->cpus, IPSEC_PCPU_MAX, pw, sizeof(pw));
	if (n < 0) {
		snprintf(why, len, "pcpu = yes: which CPUs are online: %s", pw);
		return 1;
	}
	cur->npcpu = n;
	return 0;
}

int ipsec_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		const struct ipsec_flows *fl, struct ipsec_sas *cur, char *why, size_t len)
{
	const struct ipsec_config *c = &sc->ipsec;
	struct ends x = { { tx, rx }, ep_remote(tx) != ep_remote(rx) || tx->host != rx->host };
	int family = family_of(tx->addr);
	struct kmod_window win[2];
	int rc, ref;

	memset(cur, 0, sizeof(*cur));
	cur->hosts = x.hosts;
	cur->one_way = load_of(sc)->caps & LOAD_ONE_WAY;
	cur->npairs = 1;
	if (!c->on)
		return 0;
	if (c->pcpu && pcpu_prepare(&x, fl, cur, why, len))
		return 1;
	if (fl && fl->npairs > 1) {
		if (!(load_of(sc)->caps & LOAD_FLOWS) || fl->nports < fl->npairs) {
			snprintf(why, len, "%d SA pairs need as many flows at least, each pair its own (--flows %d or more%s)",
				 fl->npairs, fl->npairs, load_of(sc)->caps & LOAD_FLOWS ? "" : ", and a load that runs several");
			return -1;
		}
		cur->npairs = fl->npairs;
		cur->port = fl->port;
		cur->nports = fl->nports;
	}
	if (journal_dry_run() && x.hosts) {
		printf("# ESP: SAs and policies here with xfrm netlink, on %s through `%s peer-agent` (keys on its stdin)\n",
		       rx->host->ssh_dest, rx->prog);
		return 0;
	}
	/* a dry run makes no SA: say now what the SAs' adding would find, ESP missing */
	if (journal_dry_run() && kmod_state(family == AF_INET ? "esp4" : "esp6", &ref) == KMOD_MISSING) {
		snprintf(why, len, "this kernel has no ESP: %s is neither loaded, built in nor a loadable module (CONFIG_INET%s_ESP)",
			 family == AF_INET ? "esp4" : "esp6", family == AF_INET ? "" : "6");
		return 1;
	}
	/* modules are the whole host's: ours are those loaded inside the windows, under the lock */
	if (journal_hostwide("modules", why, len) < 0)
		return -1;
	if (windows_open(&x, win, why, len) < 0)
		return -1;
	rc = apply_in_window(&x, c, family, family == AF_INET ? "esp4" : "esp6", cur, why, len);
	rc = windows_close(&x, win, rc, why, len);
	if (journal_dry_run())
		cur->n = 0;
	return rc;
}
