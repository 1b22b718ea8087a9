// SPDX-License-Identifier: GPL-2.0
/* xfrm netlink messages, built and parsed, without a socket (xfrm.h). */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <string.h>

#include "xfrm.h"
#include "xfrm_pcpu.h"

static int to_xaddr(int family, const char *s, xfrm_address_t *a)
{
	memset(a, 0, sizeof(*a));
	return inet_pton(family, s, family == AF_INET ? (void *)&a->a4 : (void *)a->a6) == 1 ? 0 : -1;
}

static int host_prefix(int family)
{
	return family == AF_INET ? 32 : 128;
}

bool xfrm_sa_bits_ok(const struct xfrm_sa_spec *s)
{
	const int bits[] = { s->enc_key_bits, s->auth_key_bits, s->auth_icv_bits, s->aead_key_bits, s->aead_icv_bits };

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (bits[i] < 0 || bits[i] > XFRM_KEY_MAX * 8 || bits[i] % 8)
			return false;
	return true;
}

size_t xfrm_sa_key_len(const struct xfrm_sa_spec *s)
{
	if (!xfrm_sa_bits_ok(s))
		return 0;
	if (s->aead[0])
		return (s->aead_key_bits + 7) / 8;
	return (s->enc_key_bits + 7) / 8 + (s->auth_key_bits + 7) / 8;
}

static void put_algo(struct nlmsghdr *nlh, int type, const char *name, int bits, const uint8_t *key)
{
	size_t n = (bits + 7) / 8;
	union {
		struct xfrm_algo a;
		char buf[sizeof(struct xfrm_algo) + XFRM_KEY_MAX];
	} u = { 0 };

	snprintf(u.a.alg_name, sizeof(u.a.alg_name), "%s", name);
	u.a.alg_key_len = bits;
	if (n) /* digest_null and ecb(cipher_null) have no key (key may be NULL) */
		memcpy(u.a.alg_key, key, n);
	mnl_attr_put(nlh, type, sizeof(u.a) + n, &u);
	explicit_bzero(&u, sizeof(u));
}

int xfrm_sa_build(void *buf, size_t len, const struct xfrm_sa_spec *s, const uint8_t *key,
		  uint32_t seq)
{
	struct nlmsghdr *nlh;
	struct xfrm_usersa_info *sa;
	int plen = host_prefix(s->family);

	if (len < XFRM_MSG_BUF || !xfrm_sa_bits_ok(s))
		return -1;
	memset(buf, 0, XFRM_MSG_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_NEWSA;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	nlh->nlmsg_seq = seq;
	sa = mnl_nlmsg_put_extra_header(nlh, sizeof(*sa));
	if (to_xaddr(s->family, s->src, &sa->saddr) || to_xaddr(s->family, s->dst, &sa->id.daddr))
		return -1;
	/* the selector: this host pair only, whatever the mode */
	sa->sel.family = s->family;
	sa->sel.saddr = sa->saddr;
	sa->sel.daddr = sa->id.daddr;
	sa->sel.prefixlen_s = sa->sel.prefixlen_d = plen;
	sa->id.spi = htonl(s->spi);
	sa->id.proto = s->proto;
	sa->family = s->family;
	sa->mode = s->tunnel ? XFRM_MODE_TUNNEL : XFRM_MODE_TRANSPORT;
	sa->reqid = s->reqid;
	/* else the inbound SA keeps no sequence number; an SA said to be out must have none (verify_newsa_info) */
	sa->replay_window = s->sa_dir == IPP_XFRM_SA_DIR_OUT ? 0 : 32;
	sa->lft.soft_byte_limit = sa->lft.hard_byte_limit = XFRM_INF;
	sa->lft.soft_packet_limit = sa->lft.hard_packet_limit = XFRM_INF;

	if (s->aead[0]) {
		size_t n = (s->aead_key_bits + 7) / 8;
		union {
			struct xfrm_algo_aead a;
			char buf[sizeof(struct xfrm_algo_aead) + XFRM_KEY_MAX];
		} u = { 0 };

		snprintf(u.a.alg_name, sizeof(u.a.alg_name), "%s", s->aead);
		u.a.alg_key_len = s->aead_key_bits;
		u.a.alg_icv_len = s->aead_icv_bits;
		memcpy(u.a.alg_key, key, n);
		mnl_attr_put(nlh, XFRMA_ALG_AEAD, sizeof(u.a) + n, &u);
		explicit_bzero(&u, sizeof(u));
	} else {
		size_t ne = (s->enc_key_bits + 7) / 8, na = (s->auth_key_bits + 7) / 8;

		if (s->enc[0])
			put_algo(nlh, XFRMA_ALG_CRYPT, s->enc, s->enc_key_bits, key);
		if (s->auth[0]) {
			union {
				struct xfrm_algo_auth a;
				char buf[sizeof(struct xfrm_algo_auth) + XFRM_KEY_MAX];
			} u = { 0 };

			snprintf(u.a.alg_name, sizeof(u.a.alg_name), "%s", s->auth);
			u.a.alg_key_len = s->auth_key_bits;
			u.a.alg_trunc_len = s->auth_icv_bits;
			if (na)
				memcpy(u.a.alg_key, key + ne, na);
			mnl_attr_put(nlh, XFRMA_ALG_AUTH_TRUNC, sizeof(u.a) + na, &u);
			explicit_bzero(&u, sizeof(u));
		}
	}
	if (s->sa_dir)
		xfrm_pcpu_put(nlh, s->sa_dir, s->sa_dir == IPP_XFRM_SA_DIR_OUT && s->pcpu_set ? (int)s->pcpu : -1);
	return nlh->nlmsg_len;
}

static void fill_selector(struct xfrm_selector *sel, const struct xfrm_pol_spec *p,
			  xfrm_address_t *src, xfrm_address_t *dst)
{
	sel->family = p->family;
	sel->saddr = *src;
	sel->daddr = *dst;
	sel->prefixlen_s = sel->prefixlen_d = host_prefix(p->family);
	sel->proto = p->l4proto;
	if (p->sport) {
		sel->sport = htons(p->sport);
		sel->sport_mask = 0xffff;
	}
	if (p->dport) {
		sel->dport = htons(p->dport);
		sel->dport_mask = 0xffff;
	}
}

int xfrm_policy_build(void *buf, size_t len, const struct xfrm_pol_spec *p, int op, uint32_t seq)
{
	struct nlmsghdr *nlh;
	xfrm_address_t src, dst;

	if (len < XFRM_MSG_BUF || to_xaddr(p->family, p->src, &src) ||
	    to_xaddr(p->family, p->dst, &dst))
		return -1;
	memset(buf, 0, XFRM_MSG_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	if (op != XFRM_POL_ADD) {
		struct xfrm_userpolicy_id *id = mnl_nlmsg_put_extra_header(nlh, sizeof(*id));

		nlh->nlmsg_type = op == XFRM_POL_GET ? XFRM_MSG_GETPOLICY : XFRM_MSG_DELPOLICY;
		if (op == XFRM_POL_GET)
			nlh->nlmsg_flags = NLM_F_REQUEST; /* answered with the policy, or an error */
		fill_selector(&id->sel, p, &src, &dst);
		id->dir = p->dir;
		return nlh->nlmsg_len;
	}
	struct xfrm_userpolicy_info *pol = mnl_nlmsg_put_extra_header(nlh, sizeof(*pol));
	struct xfrm_user_tmpl t = { 0 };

	nlh->nlmsg_type = XFRM_MSG_NEWPOLICY;
	nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
	fill_selector(&pol->sel, p, &src, &dst);
	pol->lft.soft_byte_limit = pol->lft.hard_byte_limit = XFRM_INF;
	pol->lft.soft_packet_limit = pol->lft.hard_packet_limit = XFRM_INF;
	pol->dir = p->dir;
	pol->priority = p->priority;
	pol->action = XFRM_POLICY_ALLOW;
	pol->flags = p->flags;
	pol->share = XFRM_SHARE_ANY;

	t.id.proto = p->proto;
	t.reqid = p->reqid;
	t.family = p->family;
	t.mode = p->tunnel ? XFRM_MODE_TUNNEL : XFRM_MODE_TRANSPORT;
	if (p->tunnel) {
		t.saddr = src;
		t.id.daddr = dst;
	}
	t.aalgos = t.ealgos = t.calgos = ~0u;
	mnl_attr_put(nlh, XFRMA_TMPL, sizeof(t), &t);
	return nlh->nlmsg_len;
}

struct sa_attrs {
	struct xfrm_sa_counters *c;
};

static int sa_attr_cb(const struct nlattr *a, void *data)
{
	struct xfrm_sa_counters *c = data;

	switch (mnl_attr_get_type(a)) {
	case XFRMA_REPLAY_VAL:
		if (mnl_attr_get_payload_len(a) >= sizeof(struct xfrm_replay_state)) {
			const struct xfrm_replay_state *r = mnl_attr_get_payload(a);

			c->oseq = r->oseq;
			c->seq = r->seq;
		}
		break;
	case XFRMA_REPLAY_ESN_VAL:
		if (mnl_attr_get_payload_len(a) >= sizeof(struct xfrm_replay_state_esn)) {
			const struct xfrm_replay_state_esn *r = mnl_attr_get_payload(a);

			c->oseq = (uint64_t)r->oseq_hi << 32 | r->oseq;
			c->seq = (uint64_t)r->seq_hi << 32 | r->seq;
		}
		break;
	}
	return MNL_CB_OK;
}

int xfrm_sa_parse(const void *msg, size_t len, struct xfrm_sa_counters *c)
{
	const struct nlmsghdr *nlh = msg;
	const struct xfrm_usersa_info *sa;

	memset(c, 0, sizeof(*c));
	if (!mnl_nlmsg_ok(nlh, (int)len) || nlh->nlmsg_type != XFRM_MSG_NEWSA ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*sa))
		return -1;
	sa = mnl_nlmsg_get_payload(nlh);
	c->packets = sa->curlft.packets;
	c->bytes = sa->curlft.bytes;
	if (mnl_attr_parse(nlh, sizeof(*sa), sa_attr_cb, c) < 0)
		return -1;
	return 0;
}

int xfrm_sa_id_build(void *buf, int family, const char *dst, uint32_t spi, int proto, int type)
{
	struct nlmsghdr *nlh;
	struct xfrm_usersa_id *id;

	memset(buf, 0, XFRM_MSG_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | (type == XFRM_MSG_DELSA ? NLM_F_ACK : 0);
	id = mnl_nlmsg_put_extra_header(nlh, sizeof(*id));
	if (to_xaddr(family, dst, &id->daddr))
		return -1;
	id->spi = htonl(spi);
	id->family = family;
	id->proto = proto;
	return nlh->nlmsg_len;
}
