// SPDX-License-Identifier: GPL-2.0
#include "ipsec.h"

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
#include "secret.h"
#include "xfrm.h"


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
	return r;
}

void ipsec_policy_name(char *buf, size_t len, const struct xfrm_pol_spec *p)
{
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

/* This host's side of an xfrm add: a namespace's, or our own (NULL). */
struct local_add {
	const char *ns;
	const struct xfrm_pol_spec *p;
	const struct xfrm_sa_spec *s;
	const uint8_t *key;
};

static int local_exists(void *arg)
{
	struct local_add *l = arg;

	return l->p ? xfrm_policy_exists(l->ns, l->p) : xfrm_sa_exists(l->ns, l->s->family, l->s->dst, l->s->spi, l->s->proto);
}

static int local_journal(void *arg, json_t *undo)
{
	(void)arg;
	return journal_add(undo);
}

static int local_add(void *arg, char *kmsg, size_t len)
{
	struct local_add *l = arg;

	return l->p ? xfrm_policy_add(l->ns, l->p, kmsg, len) : xfrm_sa_add(l->ns, l->s, l->key, kmsg, len);
}

int ipsec_add_policy_here(const char *ns, const struct xfrm_pol_spec *p, const char *where, int *kerr,
			  char *kmsg, size_t klen, char *why, size_t len)
{
	struct local_add l = { .ns = ns, .p = p };
	char what[200];
	struct xfrm_add a = { what, where, ipsec_policy_record(ns, p), local_exists, local_journal, local_add, &l };

	ipsec_policy_name(what, sizeof(what), p);
	return ipsec_add_journaled(&a, kerr, kmsg, klen, why, len);
}

int ipsec_add_sa_here(const char *ns, const struct xfrm_sa_spec *s, const uint8_t *key, const char *where,
		      int *kerr, char *kmsg, size_t klen, char *why, size_t len)
{
	struct local_add l = { .ns = ns, .s = s, .key = key };
	char what[200];
	struct xfrm_add a = { what, where, ipsec_sa_record(ns, s), local_exists, local_journal, local_add, &l };

	ipsec_sa_name(what, sizeof(what), s);
	return ipsec_add_journaled(&a, kerr, kmsg, klen, why, len);
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
		if (kmod_state(esp, &ref) == KMOD_MISSING)
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

void ipsec_random_spis(uint32_t spi[2])
{
	spi[0] = ipsec_random_spi();
	do
		spi[1] = ipsec_random_spi();
	while (spi[1] == spi[0]);
}

static int make_policies(const struct testbed *tb, const struct ipsec_config *c, int family,
			 char *why, size_t len)
{
	const char *ns[2] = { tb->ns_tx, tb->ns_rx };
	const char *self[2] = { tb->addr_tx, tb->addr_rx };

	for (int i = 0; i < 2; i++)
		for (int d = 0; d < 2; d++) {
			struct xfrm_pol_spec p = { .family = family, .proto = IPPROTO_ESP, .tunnel = c->tunnel,
						   .dir = d ? XFRM_POLICY_IN : XFRM_POLICY_OUT };
			char kmsg[200], where[48];
			int err, rc;

			/* out: self -> peer; in: peer -> self */
			snprintf(p.src, sizeof(p.src), "%s", d ? self[!i] : self[i]);
			snprintf(p.dst, sizeof(p.dst), "%s", d ? self[i] : self[!i]);
			if (journal_dry_run())
				xfrm_policy_print(stdout, ns[i], &p);
			snprintf(where, sizeof(where), " in %s", ns[i]);
			rc = ipsec_add_policy_here(ns[i], &p, where, &err, kmsg, sizeof(kmsg), why, len);
			if (rc && err)
				snprintf(why, len, "adding policy %s %s -> %s failed: %s%s%s", d ? "in" : "out",
					 p.src, p.dst, strerror(-err), kmsg[0] ? ": " : "", kmsg);
			if (rc)
				return rc;
		}
	return 0;
}

/* What ipsec_apply changes inside its modules window: esp4_offload, the policies and the SAs. */
static int apply_in_window(const struct testbed *tb, const struct ipsec_config *c, int family, const char *esp,
			   const char *offload, struct ipsec_sas *cur, char *why, size_t len)
{
	uint8_t key[2][2 * XFRM_KEY_MAX];
	uint32_t spi[2];
	int rc;

	/* esp4_offload loaded before the SAs keeps GSO over ESP: what esp-gso means */
	rc = kmod_set(offload, c->esp_gso, why, len);
	if (rc)
		return rc;

	ipsec_random_spis(spi);

	struct xfrm_sa_spec probe;

	ipsec_fill_sa(&probe, c, family, tb->addr_tx, tb->addr_rx, spi[0]);
	size_t klen = xfrm_sa_key_len(&probe);

	if (klen > sizeof(key[0])) {
		snprintf(why, len, "keys longer than %zu bytes", sizeof(key[0]));
		return -1;
	}
	secret_hold(); /* until the keys, here and in netlink messages, are wiped */
	if (klen && !journal_dry_run() &&
	    (getrandom(key[0], klen, 0) != (ssize_t)klen || getrandom(key[1], klen, 0) != (ssize_t)klen)) {
		snprintf(why, len, "getrandom: %s", strerror(errno));
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
	rc = make_policies(tb, c, family, why, len);

	/* direction 0: tx -> rx (the data); 1: rx -> tx (the ACKs) */
	for (int d = 0; d < 2 && rc == 0; d++) {
		const char *src = d ? tb->addr_rx : tb->addr_tx, *dst = d ? tb->addr_tx : tb->addr_rx;
		const char *out_ns = d ? tb->ns_rx : tb->ns_tx, *in_ns = d ? tb->ns_tx : tb->ns_rx;

		for (int side = 0; side < 2 && rc == 0; side++) {
			const char *ns = side ? in_ns : out_ns;
			struct xfrm_sa_spec *s = &cur->sa[cur->n].spec;
			char kmsg[200], where[48];
			int err;

			ipsec_fill_sa(s, c, family, src, dst, spi[d]);
			snprintf(cur->sa[cur->n].netns, sizeof(cur->sa[cur->n].netns), "%s", ns);
			cur->sa[cur->n].role = ns == tb->ns_tx ? "tx" : "rx";
			cur->sa[cur->n].dir = side ? "in" : "out";
			if (journal_dry_run())
				xfrm_sa_print(stdout, ns, s);
			cur->n++;
			snprintf(where, sizeof(where), " in %s", ns);
			rc = ipsec_add_sa_here(ns, s, key[d], where, &err, kmsg, sizeof(kmsg), why, len);
			if (rc && err)
				rc = sa_error(err, kmsg, s, esp, why, len);
		}
	}
	explicit_bzero(key, sizeof(key));
	secret_release();
	return rc;
}

int ipsec_apply(const struct testbed *tb, const struct scenario *sc, struct ipsec_sas *cur, char *why, size_t len)
{
	const struct ipsec_config *c = &sc->ipsec;
	int family = family_of(tb->addr_tx);
	const char *esp = family == AF_INET ? "esp4" : "esp6";
	struct kmod_window win;
	char offload[32];
	int rc = 0;

	memset(cur, 0, sizeof(*cur));
	if (!c->on)
		return 0;
	snprintf(offload, sizeof(offload), "%s_offload", esp);
	/* modules are the whole host's: ours are those loaded inside the window, under the lock */
	if (journal_hostwide(why, len) < 0)
		return -1;
	kmod_window_here(&win);
	if (kmod_window_open(&win) < 0) {
		snprintf(why, len, "cannot write the journal");
		return -1;
	}
	rc = apply_in_window(tb, c, family, esp, offload, cur, why, len);
	if (kmod_window_close(&win) < 0 && rc == 0) {
		snprintf(why, len, "cannot write the journal");
		rc = -1;
	}
	if (journal_dry_run())
		cur->n = 0;
	return rc;
}

void ipsec_counters_begin(struct ipsec_sas *cur)
{
	for (int i = 0; i < cur->n; i++) {
		struct xfrm_sa_spec *s = &cur->sa[i].spec;

		cur->sa[i].err0 = xfrm_sa_get(cur->sa[i].netns, s->family, s->dst, s->spi, s->proto,
					     &cur->sa[i].c0);
	}
}

int ipsec_sa_check(json_t *sas, char *why, size_t len)
{
	size_t off = 0, i;
	json_t *s;

	json_array_foreach(sas, i, s) {
		if (json_integer_value(json_object_get(s, "packets")) > 0)
			continue;
		if (!off)
			off = snprintf(why, len, "policy did not match:");
		if (off < len)
			off += snprintf(why + off, len - off, " SA %s (%s, %s) counted no packets;",
					json_string_value(json_object_get(s, "spi")),
					json_string_value(json_object_get(s, "dir")),
					json_string_value(json_object_get(s, "netns")));
	}
	if (off && off < len)
		why[off - 1] = '\0'; /* the last ';' */
	return off ? -1 : 0;
}

int ipsec_counters_record(struct ipsec_sas *cur, json_t *rec, char *why, size_t len)
{
	json_t *a = json_array();
	int rc = 0;

	for (int i = 0; i < cur->n; i++) {
		struct xfrm_sa_spec *s = &cur->sa[i].spec;
		struct xfrm_sa_counters c1, *c0 = &cur->sa[i].c0;
		char spi[16];
		int err = xfrm_sa_get(cur->sa[i].netns, s->family, s->dst, s->spi, s->proto, &c1);
		bool out = !strcmp(cur->sa[i].dir, "out");

		snprintf(spi, sizeof(spi), "0x%08x", s->spi);
		if (err || cur->sa[i].err0) {
			snprintf(why, len, "cannot read SA %s %s in %s: %s", spi, cur->sa[i].dir,
				 cur->sa[i].netns, strerror(-(err ? err : cur->sa[i].err0)));
			rc = -1;
			continue;
		}
		uint64_t pk = c1.packets - c0->packets, by = c1.bytes - c0->bytes;
		uint64_t wire = out ? c1.oseq - c0->oseq : c1.seq - c0->seq;

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "spi", spi, "dir",
						   cur->sa[i].dir, "netns", cur->sa[i].role, "src", s->src,
						   "packets", (json_int_t)pk, "bytes", (json_int_t)by,
						   "wire_packets", (json_int_t)wire));
	}
	if (rc == 0)
		rc = ipsec_sa_check(a, why, len);
	json_object_set_new(rec, "sa", a);
	return rc;
}
