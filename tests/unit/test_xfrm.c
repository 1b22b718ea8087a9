// SPDX-License-Identifier: GPL-2.0
/*
 * The xfrm netlink layer (collector/host/xfrm.c): the NEWSA/NEWPOLICY/DELPOLICY
 * messages as built, a GETSA reply as parsed, the ip xfrm commands printed
 * for --dry-run (never a key), and the [ipsec]/[tcp-auth] scenario sections.
 * As root, a round trip through the kernel in a private network namespace
 * made by unshare() (gone when the test exits): policies added and deleted
 * through the journal's undo handlers; an ESP SA added, read and deleted
 * where the kernel has ESP, the right skip reason where it has not.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "exec.h"
#include "ipsec.h"
#include "load.h"
#include "scenario.h"
#include "nlsock.h"
#include "xfrm.h"
#include "xfrm_pcpu.h"

static char buf[8192];

struct attrs {
	const struct nlattr *a[XFRMA_MAX + 1];
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attrs *t = data;

	if (mnl_attr_get_type(a) <= XFRMA_MAX)
		t->a[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static void spec_v4(struct xfrm_sa_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->family = AF_INET;
	strcpy(s->src, "198.18.0.1");
	strcpy(s->dst, "198.18.0.2");
	s->spi = 0x12345678;
	s->proto = IPPROTO_ESP;
}

static void sa_aead(void **state)
{
	struct xfrm_sa_spec s;
	uint8_t key[20];
	struct attrs t = { 0 };
	const struct nlmsghdr *nlh = (void *)buf;
	const struct xfrm_usersa_info *sa;
	const struct xfrm_algo_aead *a;
	uint32_t want_daddr;

	(void)state;
	spec_v4(&s);
	strcpy(s.aead, "rfc4106(gcm(aes))");
	s.aead_key_bits = 160;
	s.aead_icv_bits = 128;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = 0xa0 + i;
	assert_int_equal(xfrm_sa_key_len(&s), 20);
	assert_true(xfrm_sa_build(buf, sizeof(buf), &s, key, 7) > 0);
	assert_int_equal(nlh->nlmsg_type, XFRM_MSG_NEWSA);
	assert_int_equal(nlh->nlmsg_seq, 7);
	assert_true(nlh->nlmsg_flags & NLM_F_ACK);
	assert_true(nlh->nlmsg_flags & NLM_F_EXCL);
	sa = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(sa->id.spi, htonl(0x12345678));
	assert_int_equal(sa->id.proto, IPPROTO_ESP);
	assert_int_equal(sa->family, AF_INET);
	assert_int_equal(sa->mode, XFRM_MODE_TRANSPORT);
	assert_int_equal(sa->replay_window, 32);
	inet_pton(AF_INET, "198.18.0.2", &want_daddr);
	assert_int_equal(sa->id.daddr.a4, want_daddr);
	assert_int_equal(sa->sel.daddr.a4, want_daddr);
	assert_int_equal(sa->sel.prefixlen_d, 32);
	assert_int_equal(sa->sel.family, AF_INET);
	assert_true(sa->lft.hard_byte_limit == XFRM_INF);
	assert_true(mnl_attr_parse(nlh, sizeof(*sa), attr_cb, &t) >= 0);
	assert_non_null(t.a[XFRMA_ALG_AEAD]);
	assert_null(t.a[XFRMA_ALG_CRYPT]);
	a = mnl_attr_get_payload(t.a[XFRMA_ALG_AEAD]);
	assert_string_equal(a->alg_name, "rfc4106(gcm(aes))");
	assert_int_equal(a->alg_key_len, 160);
	assert_int_equal(a->alg_icv_len, 128);
	assert_memory_equal(a->alg_key, key, 20);
	assert_int_equal(mnl_attr_get_payload_len(t.a[XFRMA_ALG_AEAD]), sizeof(*a) + 20);
}

static void sa_enc_auth(void **state)
{
	struct xfrm_sa_spec s;
	uint8_t key[48];
	struct attrs t = { 0 };
	const struct nlmsghdr *nlh = (void *)buf;
	const struct xfrm_algo *e;
	const struct xfrm_algo_auth *au;

	(void)state;
	spec_v4(&s);
	s.tunnel = true;
	strcpy(s.enc, "cbc(aes)");
	s.enc_key_bits = 128;
	strcpy(s.auth, "hmac(sha256)");
	s.auth_key_bits = 256;
	s.auth_icv_bits = 128;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = i;
	assert_int_equal(xfrm_sa_key_len(&s), 48);
	assert_true(xfrm_sa_build(buf, sizeof(buf), &s, key, 1) > 0);
	assert_int_equal(((const struct xfrm_usersa_info *)mnl_nlmsg_get_payload(nlh))->mode, XFRM_MODE_TUNNEL);
	mnl_attr_parse(nlh, sizeof(struct xfrm_usersa_info), attr_cb, &t);
	assert_non_null(t.a[XFRMA_ALG_CRYPT]);
	assert_non_null(t.a[XFRMA_ALG_AUTH_TRUNC]);
	assert_null(t.a[XFRMA_ALG_AEAD]);
	e = mnl_attr_get_payload(t.a[XFRMA_ALG_CRYPT]);
	au = mnl_attr_get_payload(t.a[XFRMA_ALG_AUTH_TRUNC]);
	assert_string_equal(e->alg_name, "cbc(aes)");
	assert_int_equal(e->alg_key_len, 128);
	assert_memory_equal(e->alg_key, key, 16); /* encryption key first */
	assert_string_equal(au->alg_name, "hmac(sha256)");
	assert_int_equal(au->alg_key_len, 256);
	assert_int_equal(au->alg_trunc_len, 128);
	assert_memory_equal(au->alg_key, key + 16, 32); /* then the authentication key */
}

static void sa_null(void **state)
{
	struct xfrm_sa_spec s;
	struct attrs t = { 0 };
	const struct nlmsghdr *nlh = (void *)buf;

	(void)state;
	spec_v4(&s);
	strcpy(s.enc, "ecb(cipher_null)");
	strcpy(s.auth, "digest_null");
	assert_int_equal(xfrm_sa_key_len(&s), 0);
	assert_true(xfrm_sa_build(buf, sizeof(buf), &s, NULL, 1) > 0);
	mnl_attr_parse(nlh, sizeof(struct xfrm_usersa_info), attr_cb, &t);
	assert_int_equal(((const struct xfrm_algo *)mnl_attr_get_payload(t.a[XFRMA_ALG_CRYPT]))->alg_key_len, 0);
	assert_int_equal(((const struct xfrm_algo_auth *)mnl_attr_get_payload(t.a[XFRMA_ALG_AUTH_TRUNC]))->alg_trunc_len, 0);
	/* a bad address is refused, not sent */
	strcpy(s.dst, "198.18.0.300");
	assert_int_equal(xfrm_sa_build(buf, sizeof(buf), &s, NULL, 1), -1);
	assert_int_equal(xfrm_sa_build(buf, 100, &s, NULL, 1), -1);
}

/* Bits that are negative, odd or past a key's room are refused, never copied by (bits + 7) / 8. */
static void sa_bits_refused(void **state)
{
	static const int bad[] = { -1, -100, -2147483647 - 1, 7, 100, 520, 4096 };
	uint8_t key[2 * 64] = { 0 };
	struct xfrm_sa_spec s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (int which = 0; which < 5; which++) {
			spec_v4(&s);
			strcpy(s.enc, "cbc(aes)");
			strcpy(s.auth, "hmac(sha256)");
			s.enc_key_bits = 128;
			s.auth_key_bits = 256;
			s.auth_icv_bits = 128;
			int *f[] = { &s.enc_key_bits, &s.auth_key_bits, &s.auth_icv_bits, &s.aead_key_bits, &s.aead_icv_bits };

			*f[which] = bad[i];
			assert_false(xfrm_sa_bits_ok(&s));
			assert_int_equal(xfrm_sa_key_len(&s), 0);
			assert_int_equal(xfrm_sa_build(buf, sizeof(buf), &s, key, 1), -1);
			strcpy(s.aead, "rfc4106(gcm(aes))");
			assert_int_equal(xfrm_sa_build(buf, sizeof(buf), &s, key, 1), -1);
		}
	spec_v4(&s);
	s.enc_key_bits = 512;
	s.auth_key_bits = 512;
	assert_true(xfrm_sa_bits_ok(&s));
	assert_int_equal(xfrm_sa_key_len(&s), 128);
}

static void policy_msgs(void **state)
{
	struct xfrm_pol_spec p = { .family = AF_INET6, .dir = XFRM_POLICY_IN, .proto = IPPROTO_ESP,
				   .tunnel = true };
	struct attrs t = { 0 };
	const struct nlmsghdr *nlh = (void *)buf;
	const struct xfrm_userpolicy_info *pol;
	const struct xfrm_user_tmpl *tm;
	const struct xfrm_userpolicy_id *id;

	(void)state;
	strcpy(p.src, "2001:db8::1");
	strcpy(p.dst, "2001:db8::2");
	assert_true(xfrm_policy_build(buf, sizeof(buf), &p, false, 3) > 0);
	assert_int_equal(nlh->nlmsg_type, XFRM_MSG_NEWPOLICY);
	pol = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(pol->dir, XFRM_POLICY_IN);
	assert_int_equal(pol->sel.family, AF_INET6);
	assert_int_equal(pol->sel.prefixlen_s, 128);
	assert_int_equal(pol->action, XFRM_POLICY_ALLOW);
	mnl_attr_parse(nlh, sizeof(*pol), attr_cb, &t);
	assert_non_null(t.a[XFRMA_TMPL]);
	tm = mnl_attr_get_payload(t.a[XFRMA_TMPL]);
	assert_int_equal(tm->id.proto, IPPROTO_ESP);
	assert_int_equal(tm->mode, XFRM_MODE_TUNNEL);
	assert_int_equal(tm->family, AF_INET6);
	assert_memory_equal(&tm->saddr, &pol->sel.saddr, sizeof(tm->saddr)); /* tunnel endpoints */
	assert_memory_equal(&tm->id.daddr, &pol->sel.daddr, sizeof(tm->id.daddr));
	assert_true(tm->ealgos == ~0u);

	assert_true(xfrm_policy_build(buf, sizeof(buf), &p, true, 4) > 0);
	assert_int_equal(nlh->nlmsg_type, XFRM_MSG_DELPOLICY);
	id = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(id->dir, XFRM_POLICY_IN);
	assert_int_equal(id->sel.prefixlen_d, 128);
	assert_int_equal(id->sel.proto, 0);
	assert_int_equal(id->sel.dport_mask, 0);
}

/* Several SA pairs: a flow's policy selects its port, names its pair's reqid, before the catch-all. */
static void policy_ports(void **state)
{
	struct xfrm_pol_spec p = { .family = AF_INET, .dir = XFRM_POLICY_OUT, .proto = IPPROTO_ESP,
				   .l4proto = IPPROTO_TCP, .dport = 5202, .priority = 100, .reqid = 2 };
	struct xfrm_sa_spec s;
	struct attrs t = { 0 };
	const struct nlmsghdr *nlh = (void *)buf;
	const struct xfrm_userpolicy_info *pol;
	const struct xfrm_userpolicy_id *id;
	const struct xfrm_usersa_info *sa;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	strcpy(p.src, "198.18.0.1");
	strcpy(p.dst, "198.18.0.2");
	assert_true(xfrm_policy_build(buf, sizeof(buf), &p, XFRM_POL_ADD, 3) > 0);
	pol = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(pol->sel.proto, IPPROTO_TCP);
	assert_int_equal(ntohs(pol->sel.dport), 5202);
	assert_int_equal(pol->sel.dport_mask, 0xffff);
	assert_int_equal(pol->sel.sport_mask, 0);
	assert_int_equal(pol->priority, 100);
	mnl_attr_parse(nlh, sizeof(*pol), attr_cb, &t);
	assert_int_equal(((const struct xfrm_user_tmpl *)mnl_attr_get_payload(t.a[XFRMA_TMPL]))->reqid, 2);
	/* the delete and the look-up name the same selector, ports and all */
	assert_true(xfrm_policy_build(buf, sizeof(buf), &p, XFRM_POL_DEL, 4) > 0);
	id = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(id->sel.proto, IPPROTO_TCP);
	assert_int_equal(ntohs(id->sel.dport), 5202);
	assert_int_equal(id->sel.dport_mask, 0xffff);
	spec_v4(&s);
	s.reqid = 2;
	assert_true(xfrm_sa_build(buf, sizeof(buf), &s, NULL, 5) > 0);
	sa = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(sa->reqid, 2);
	f = open_memstream(&out, &len);
	xfrm_policy_print(f, NULL, &p);
	xfrm_sa_print(f, NULL, &s);
	fclose(f);
	assert_non_null(strstr(out, "ip xfrm policy add src 198.18.0.1/32 dst 198.18.0.2/32 proto tcp dport 5202 dir out priority 100 tmpl proto esp reqid 2 mode transport\n"));
	assert_non_null(strstr(out, " reqid 2 mode transport replay-window 32"));
	free(out);
}

static void sa_parse_reply(void **state)
{
	struct nlmsghdr *nlh;
	struct xfrm_usersa_info *sa;
	struct xfrm_replay_state rs = { .oseq = 1234, .seq = 99 };
	struct xfrm_sa_counters c;

	(void)state;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_NEWSA;
	sa = mnl_nlmsg_put_extra_header(nlh, sizeof(*sa));
	sa->curlft.packets = 1200;
	sa->curlft.bytes = 1700000;
	mnl_attr_put(nlh, XFRMA_REPLAY_VAL, sizeof(rs), &rs);
	assert_int_equal(xfrm_sa_parse(nlh, nlh->nlmsg_len, &c), 0);
	assert_int_equal(c.packets, 1200);
	assert_int_equal(c.bytes, 1700000);
	assert_int_equal(c.oseq, 1234);
	assert_int_equal(c.seq, 99);

	/* ESN: the high halves count too */
	struct {
		struct xfrm_replay_state_esn e;
		uint32_t bmp[4];
	} esn = { .e = { .bmp_len = 4, .oseq = 5, .oseq_hi = 1, .seq = 6, .seq_hi = 2 } };

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_NEWSA;
	mnl_nlmsg_put_extra_header(nlh, sizeof(*sa));
	mnl_attr_put(nlh, XFRMA_REPLAY_ESN_VAL, sizeof(esn), &esn);
	assert_int_equal(xfrm_sa_parse(nlh, nlh->nlmsg_len, &c), 0);
	assert_true(c.oseq == (1ULL << 32 | 5));
	assert_true(c.seq == (2ULL << 32 | 6));

	nlh->nlmsg_type = XFRM_MSG_NEWPOLICY;
	assert_int_equal(xfrm_sa_parse(nlh, nlh->nlmsg_len, &c), -1);
}

static void dry_run_print(void **state)
{
	struct xfrm_sa_spec s;
	struct xfrm_pol_spec p = { .family = AF_INET, .dir = XFRM_POLICY_OUT, .proto = IPPROTO_ESP };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	spec_v4(&s);
	strcpy(s.enc, "cbc(aes)");
	s.enc_key_bits = 128;
	strcpy(s.auth, "hmac(sha256)");
	s.auth_key_bits = 256;
	s.auth_icv_bits = 128;
	xfrm_sa_print(f, "ns1", &s);
	strcpy(p.src, "198.18.0.1");
	strcpy(p.dst, "198.18.0.2");
	xfrm_policy_print(f, NULL, &p);
	fclose(f);
	assert_non_null(strstr(out, "ip -n ns1 xfrm state add src 198.18.0.1 dst 198.18.0.2 proto esp spi 0x12345678 "
				    "enc 'cbc(aes)' \"$KEY_ENC_128\" auth-trunc 'hmac(sha256)' \"$KEY_AUTH_256\" 128 "
				    "mode transport"));
	assert_non_null(strstr(out, "ip xfrm policy add src 198.18.0.1/32 dst 198.18.0.2/32 dir out tmpl proto esp mode transport\n"));
	assert_null(strstr(out, "0x"  "00")); /* no key material, only placeholders */
	free(out);
}

static char *write_tmp(const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ipsecperf-unit-xfrm-%d.ini", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void scenario_ipsec(void **state)
{
	struct scenario sc;
	char err[256];
	char *p = write_tmp("[scenario]\ndescription = x\n[ipsec]\nproto = esp\nmode = tunnel\n"
			    "aead = rfc4106(gcm(aes))\naead-key-bits = 128\naead-icv-bits = 128\nesp-gso = on\n");

	(void)state;
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_true(sc.ipsec.on);
	assert_true(sc.ipsec.tunnel);
	assert_true(sc.ipsec.esp_gso);
	assert_string_equal(sc.ipsec.aead, "rfc4106(gcm(aes))");
	assert_int_equal(sc.ipsec.aead_key_bits, 128);
	assert_int_equal(sc.ipsec.aead_salt_bits, 32); /* RFC 4106's salt, implied */
	scenario_free(&sc);

	p = write_tmp("[scenario]\ndescription = x\nload = stream\n[tcp-auth]\nmethod = ao\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.tcp_auth.method, "ao");
	assert_string_equal(sc.tcp_auth.ao_alg, "hmac(sha1)");
	scenario_free(&sc);

	static const char *const bad[][2] = {
		{ "[scenario]\ndescription = x\n[ipsec]\nproto = ah\n", ":4: proto must be esp" },
		{ "[scenario]\ndescription = x\n[ipsec]\nmode = beet\n", "mode must be transport or tunnel" },
		{ "[scenario]\ndescription = x\n[ipsec]\nencryption-key-bits = 12\n", "multiple of 8" },
		{ "[scenario]\ndescription = x\n[ipsec]\nencryption = cbc(aes) x\n", "not a kernel crypto algorithm name" },
		{ "[scenario]\ndescription = x\n[ipsec]\nencryption = cbc(aes)\n", "encryption needs authentication" },
		{ "[scenario]\ndescription = x\n[ipsec]\nmode = tunnel\n", "needs encryption" },
		{ "[scenario]\ndescription = x\n[ipsec]\naead = rfc4106(gcm(aes))\nauthentication = digest_null\n",
		  "aead excludes" },
		{ "[scenario]\ndescription = x\n[tcp-auth]\nmethod = md5\n", "needs load = stream" },
		{ "[scenario]\ndescription = x\nload = stream\n[tcp-auth]\nmethod = sha\n", "md5 or ao" },
		{ "[scenario]\ndescription = x\n[ipsec]\nkey = 0x00\n", "unknown key 'key' in [ipsec]" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_tmp(bad[i][0]);
		assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), -1);
		if (!strstr(err, bad[i][1]))
			fail_msg("error '%s' lacks '%s'", err, bad[i][1]);
	}
	unlink(p);
}

static void sa_verdict(void **state)
{
	char why[256];
	json_t *sas = json_loads("[{\"spi\": \"0x00000101\", \"dir\": \"out\", \"netns\": \"tx\", \"packets\": 10},"
				 " {\"spi\": \"0x00000101\", \"dir\": \"in\", \"netns\": \"rx\", \"packets\": 9}]", 0, NULL);

	(void)state;
	assert_non_null(sas);
	assert_int_equal(ipsec_sa_check(sas, why, sizeof(why)), 0);
	json_object_set_new(json_array_get(sas, 1), "packets", json_integer(0));
	assert_int_equal(ipsec_sa_check(sas, why, sizeof(why)), -1);
	assert_string_equal(why, "policy did not match: SA 0x00000101 (in, rx) counted no packets");
	json_object_set_new(json_array_get(sas, 0), "packets", json_integer(0));
	assert_int_equal(ipsec_sa_check(sas, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "(out, tx) counted no packets; SA 0x00000101 (in, rx)"));
	json_decref(sas);
	/* no SAs (a scenario without [ipsec]): nothing to prove */
	sas = json_array();
	assert_int_equal(ipsec_sa_check(sas, why, sizeof(why)), 0);
	json_decref(sas);
}

static bool in_private_netns;

static char *xfrm_dump(const char *what)
{
	char *out = NULL;

	exec_run(NULL, (char *[]){ "ip", "xfrm", (char *)what, NULL }, &out, NULL);
	return out;
}

/* As root, in a network namespace of our own: the kernel's answer. */
static void kernel_roundtrip(void **state)
{
	struct xfrm_pol_spec p = { .family = AF_INET, .dir = XFRM_POLICY_OUT, .proto = IPPROTO_ESP };
	struct xfrm_sa_spec s;
	char kmsg[200];
	char *dump;
	json_t *undo;
	int err;

	(void)state;
	if (!in_private_netns) {
		print_message("needs root (a network namespace of its own)\n");
		skip();
	}
	strcpy(p.src, "198.18.0.1");
	strcpy(p.dst, "198.18.0.2");
	assert_int_equal(xfrm_policy_add(NULL, &p, kmsg, sizeof(kmsg)), 0);
	assert_int_equal(xfrm_policy_add(NULL, &p, kmsg, sizeof(kmsg)), -EEXIST);
	dump = xfrm_dump("policy");
	assert_non_null(strstr(dump, "src 198.18.0.1/32 dst 198.18.0.2/32"));
	assert_non_null(strstr(dump, "dir out"));
	assert_non_null(strstr(dump, "proto esp"));
	free(dump);
	/* the journal's undo record, as cleanup would replay it */
	undo = json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-policy", "family", 4, "src", "198.18.0.1",
			 "dst", "198.18.0.2", "dir", "out");
	assert_int_equal(ipsec_undo_policy(undo), 0);
	dump = xfrm_dump("policy");
	assert_null(strstr(dump, "198.18.0.1"));
	free(dump);
	assert_int_equal(ipsec_undo_policy(undo), 0); /* already gone: still undone */
	json_decref(undo);

	spec_v4(&s);
	strcpy(s.enc, "ecb(cipher_null)");
	strcpy(s.auth, "digest_null");
	err = xfrm_sa_add(NULL, &s, NULL, kmsg, sizeof(kmsg));
	if (err == -EPROTONOSUPPORT) {
		/* this kernel has no ESP (a cloud VM's own): the kernel says so */
		print_message("  (no ESP here: '%s')\n", kmsg);
		assert_non_null(strstr(kmsg, "type not found"));
	} else {
		struct xfrm_sa_counters c = { .packets = 1 };

		assert_int_equal(err, 0);
		assert_int_equal(xfrm_sa_get(NULL, AF_INET, "198.18.0.2", 0x12345678, IPPROTO_ESP, &c), 0);
		assert_int_equal(c.packets, 0);
		assert_int_equal(c.oseq, 0);
	}
	undo = json_pack("{s:s, s:i, s:s, s:s, s:s}", "kind", "xfrm-state", "family", 4, "dst", "198.18.0.2",
			 "spi", "0x12345678", "proto", "esp");
	assert_int_equal(ipsec_undo_state(undo), 0);
	json_decref(undo);
	dump = xfrm_dump("state");
	assert_null(strstr(dump, "0x12345678"));
	free(dump);
	/* a namespace that is gone has no SAs left to delete */
	assert_int_equal(xfrm_sa_del("ipsecperf-unit-no-such-ns", AF_INET, "198.18.0.2", 1, IPPROTO_ESP), 0);
}

/* Per-CPU SAs: the attributes, the probe's request, and (as root) its answer, the same twice. */
static void pcpu(void **state)
{
	static char buf[NLSOCK_BUF];
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct xfrm_userspi_info *spi;
	const struct nlattr *a;
	int n = 0, rc, again;
	char why[300];

	(void)state;
	assert_true(xfrm_pcpu_probe_build(buf) > 0);
	assert_int_equal(nlh->nlmsg_type, XFRM_MSG_ALLOCSPI);
	spi = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(spi->info.id.proto, IPPROTO_ESP);
	assert_true(spi->min <= spi->max);
	mnl_attr_for_each(a, nlh, sizeof(*spi)) {
		n++;
		assert_int_equal(mnl_attr_get_type(a), 35); /* XFRMA_SA_PCPU in the 6.13 uapi */
		assert_true(mnl_attr_get_u32(a) == UINT32_MAX);
	}
	assert_int_equal(n, 1);

	memset(buf, 0, sizeof(buf));
	struct nlmsghdr *m = mnl_nlmsg_put_header(buf);

	mnl_nlmsg_put_extra_header(m, sizeof(struct xfrm_usersa_info));
	xfrm_pcpu_put(m, IPP_XFRM_SA_DIR_OUT, 3);
	xfrm_pcpu_put(m, IPP_XFRM_SA_DIR_IN, -1); /* an inbound SA: its direction, no CPU */
	n = 0;
	mnl_attr_for_each(a, m, sizeof(struct xfrm_usersa_info)) {
		static const int want[][2] = { { 33, 2 }, { 35, 3 }, { 33, 1 } };

		assert_true(n < 3);
		assert_int_equal(mnl_attr_get_type(a), want[n][0]);
		assert_int_equal(want[n][0] == 33 ? mnl_attr_get_u8(a) : (int)mnl_attr_get_u32(a), want[n][1]);
		n++;
	}
	assert_int_equal(n, 3);

	/* the SAs of a per-CPU set as xfrm_sa_build makes them (verify_newsa_info's rules) */
	static const struct {
		int dir;
		bool set;
		uint32_t cpu;
		int replay, nattr, cpu_attr;
	} sas[] = {
		{ 0, false, 0, 32, 0, -1 },                   /* as always: neither attribute */
		{ IPP_XFRM_SA_DIR_OUT, true, 5, 0, 2, 5 },    /* a CPU's: out, its CPU, replay window 0 */
		{ IPP_XFRM_SA_DIR_OUT, false, 0, 0, 1, -1 },  /* the fallback: out, no CPU */
		{ IPP_XFRM_SA_DIR_IN, true, 5, 32, 1, -1 },   /* in: its direction only, its window kept */
	};
	static char sabuf[XFRM_MSG_BUF];

	for (size_t i = 0; i < sizeof(sas) / sizeof(sas[0]); i++) {
		struct xfrm_sa_spec sp = { .family = AF_INET, .src = "10.0.0.1", .dst = "10.0.0.2", .spi = 0x4242,
					   .proto = IPPROTO_ESP, .enc = "ecb(cipher_null)", .auth = "digest_null",
					   .sa_dir = sas[i].dir, .pcpu_set = sas[i].set, .pcpu = sas[i].cpu };
		const struct nlmsghdr *sm = (const void *)sabuf;
		const struct xfrm_usersa_info *info;
		int dirs = 0, cpus = 0;

		assert_true(xfrm_sa_build(sabuf, sizeof(sabuf), &sp, NULL, 1) > 0);
		info = mnl_nlmsg_get_payload(sm);
		assert_int_equal(info->replay_window, sas[i].replay);
		mnl_attr_for_each(a, sm, sizeof(*info)) {
			if (mnl_attr_get_type(a) == IPP_XFRMA_SA_DIR) {
				assert_int_equal(mnl_attr_get_payload_len(a), 1);
				assert_int_equal(mnl_attr_get_u8(a), sas[i].dir);
				dirs++;
			}
			if (mnl_attr_get_type(a) == IPP_XFRMA_SA_PCPU) {
				assert_int_equal(mnl_attr_get_payload_len(a), 4);
				assert_int_equal((int)mnl_attr_get_u32(a), sas[i].cpu_attr);
				cpus++;
			}
		}
		assert_int_equal(dirs + cpus, sas[i].nattr);
		assert_int_equal(cpus, sas[i].cpu_attr >= 0);
	}
	/* the out policy's flag */
	struct xfrm_pol_spec pp = { .family = AF_INET, .src = "10.0.0.1", .dst = "10.0.0.2", .dir = XFRM_POLICY_OUT,
				    .proto = IPPROTO_ESP, .flags = IPP_XFRM_POLICY_CPU_ACQUIRE };

	assert_true(xfrm_policy_build(sabuf, sizeof(sabuf), &pp, XFRM_POL_ADD, 1) > 0);
	assert_int_equal(((const struct xfrm_userpolicy_info *)mnl_nlmsg_get_payload((const void *)sabuf))->flags, 4);

	/* the CPU lists of /sys/devices/system/cpu/online */
	int cpus[8];

	assert_int_equal(xfrm_pcpu_cpu_list("0\n", cpus, 8), 1);
	assert_int_equal(xfrm_pcpu_cpu_list("0-3,6\n", cpus, 8), 5);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 6);
	assert_int_equal(xfrm_pcpu_cpu_list("0-8", cpus, 8), -1);    /* more than max */
	assert_int_equal(xfrm_pcpu_cpu_list("3-1", cpus, 8), -1);
	assert_int_equal(xfrm_pcpu_cpu_list("2,1", cpus, 8), -1);    /* not ascending */
	assert_int_equal(xfrm_pcpu_cpu_list("0,,1", cpus, 8), -1);
	assert_int_equal(xfrm_pcpu_cpu_list("-1", cpus, 8), -1);
	assert_int_equal(xfrm_pcpu_cpu_list("x", cpus, 8), -1);
	assert_int_equal(xfrm_pcpu_cpu_list("", cpus, 8), -1);
	assert_true(xfrm_pcpu_online(cpus, 8, why, sizeof(why)) >= 1 || strstr(why, "not a list"));

	if (geteuid() != 0) {
		print_message("the probe needs root\n");
		skip();
	}
	rc = xfrm_pcpu_probe(why, sizeof(why));
	print_message("per-CPU SAs here: %d (%s)\n", rc, why);
	assert_true(rc == 0 || rc == 1);
	assert_true(why[0] != '\0');
	again = xfrm_pcpu_probe(why, sizeof(why));
	assert_int_equal(again, rc);
	if (rc != 1 || !in_private_netns)
		return;

	/*
	 * A kernel with per-CPU SAs takes the set's messages: the policy with
	 * XFRM_POLICY_CPU_ACQUIRE, a CPU's out SA past verify_newsa_info and the
	 * CPU's check (refused only for a missing ESP, where there is none), and
	 * it reads the CPU (one it does not have: refused).
	 */
	struct xfrm_sa_spec sp = { .family = AF_INET, .src = "198.18.0.1", .dst = "198.18.0.2", .spi = 0x4243,
				   .proto = IPPROTO_ESP, .enc = "ecb(cipher_null)", .auth = "digest_null",
				   .sa_dir = IPP_XFRM_SA_DIR_OUT, .pcpu_set = true, .pcpu = 0 };
	char kmsg[200];
	int err;

	strcpy(pp.src, "198.18.0.1");
	strcpy(pp.dst, "198.18.0.2");
	assert_int_equal(xfrm_policy_add(NULL, &pp, kmsg, sizeof(kmsg)), 0);
	assert_int_equal(xfrm_policy_del(NULL, &pp), 0);
	err = xfrm_sa_add(NULL, &sp, NULL, kmsg, sizeof(kmsg));
	print_message("a CPU's out SA: %s%s%s\n", err ? strerror(-err) : "made", kmsg[0] ? ": " : "", kmsg);
	assert_true(err == 0 || err == -EPROTONOSUPPORT);
	if (err == 0)
		assert_int_equal(xfrm_sa_del(NULL, AF_INET, sp.dst, sp.spi, IPPROTO_ESP), 0);
	sp.pcpu = 1u << 20;
	err = xfrm_sa_add(NULL, &sp, NULL, kmsg, sizeof(kmsg));
	print_message("CPU %u: %s%s%s\n", sp.pcpu, strerror(-err), kmsg[0] ? ": " : "", kmsg);
	assert_true(err == -ERANGE || err == -EINVAL);
	sp.pcpu_set = false;
	sp.sa_dir = 0;
	sp.spi = 0x4244;
	/* XFRMA_SA_PCPU without XFRMA_SA_DIR: refused ("SA_PCPU only supported with SA_DIR") */
	static char raw[XFRM_MSG_BUF];
	struct nlmsghdr *rm = (void *)raw;

	assert_true(xfrm_sa_build(raw, sizeof(raw), &sp, NULL, 1) > 0);
	mnl_attr_put_u32(rm, IPP_XFRMA_SA_PCPU, 0);
	struct mnl_socket *nl = nlsock_open(NULL, NETLINK_XFRM);

	assert_non_null(nl);
	assert_int_equal(nlsock_talk(nl, rm, NULL, NULL, kmsg, sizeof(kmsg), 0), -EINVAL);
	mnl_socket_close(nl);
	print_message("a CPU without a direction: %s\n", kmsg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sa_aead),
		cmocka_unit_test(sa_enc_auth),
		cmocka_unit_test(sa_null),
		cmocka_unit_test(sa_bits_refused),
		cmocka_unit_test(policy_msgs), cmocka_unit_test(policy_ports),
		cmocka_unit_test(sa_parse_reply),
		cmocka_unit_test(dry_run_print),
		cmocka_unit_test(scenario_ipsec),
		cmocka_unit_test(sa_verdict),
		cmocka_unit_test(kernel_roundtrip),
		cmocka_unit_test(pcpu),
	};

	/* root: a namespace of our own, so the host's xfrm tables are never touched */
	in_private_netns = geteuid() == 0 && unshare(CLONE_NEWNET) == 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
