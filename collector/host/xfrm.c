// SPDX-License-Identifier: GPL-2.0
/* xfrm requests through a netlink socket, and their commands for a person (xfrm.h). */
#include "xfrm.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <string.h>

#include "nlsock.h"
#include "xfrm_pcpu.h"

/* What a GETSA or GETPOLICY was answered with. */
struct reply {
	struct xfrm_sa_counters *counters; /* for GETSA */
	bool got;
};

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply *r = data;

	if (nlh->nlmsg_type == XFRM_MSG_NEWSA && r->counters)
		r->got |= xfrm_sa_parse(nlh, nlh->nlmsg_len, r->counters) == 0;
	else if (nlh->nlmsg_type == XFRM_MSG_NEWPOLICY)
		r->got = true;
	return MNL_CB_OK;
}

/*
 * Send one request inside netns and read its answer: 0, or -errno
 * (ENOENT: no such namespace). The request, and the answers (a GETSA's
 * holds the keys), are wiped whatever happens.
 */
static int talk(const char *netns, void *buf, struct reply *r, char *err, size_t errlen)
{
	struct mnl_socket *nl = nlsock_open(netns, NETLINK_XFRM);
	int rc;

	if (!nl) {
		rc = -errno;
		explicit_bzero(buf, XFRM_MSG_BUF);
		return rc;
	}
	rc = nlsock_talk(nl, buf, r ? reply_cb : NULL, r, err, errlen, NLSOCK_SECRET);
	mnl_socket_close(nl);
	return rc;
}

int xfrm_sa_add(const char *netns, const struct xfrm_sa_spec *s, const uint8_t *key,
		char *err, size_t errlen)
{
	char buf[XFRM_MSG_BUF];
	int len = xfrm_sa_build(buf, sizeof(buf), s, key, 0);

	if (err && errlen)
		err[0] = '\0';
	if (len < 0) {
		explicit_bzero(buf, sizeof(buf));
		return -EINVAL;
	}
	return talk(netns, buf, NULL, err, errlen);
}

int xfrm_sa_del(const char *netns, int family, const char *dst, uint32_t spi, int proto)
{
	char buf[XFRM_MSG_BUF];
	int len = xfrm_sa_id_build(buf, family, dst, spi, proto, XFRM_MSG_DELSA);
	int err;

	if (len < 0)
		return -EINVAL;
	err = talk(netns, buf, NULL, NULL, 0);
	return err == -ENOENT || err == -ESRCH ? 0 : err;
}

int xfrm_sa_get(const char *netns, int family, const char *dst, uint32_t spi, int proto,
		struct xfrm_sa_counters *c)
{
	char buf[XFRM_MSG_BUF];
	struct reply r = { .counters = c };
	int len = xfrm_sa_id_build(buf, family, dst, spi, proto, XFRM_MSG_GETSA);
	int err;

	if (len < 0)
		return -EINVAL;
	err = talk(netns, buf, &r, NULL, 0);
	if (!err && !r.got)
		err = -ENODATA;
	return err;
}

int xfrm_policy_add(const char *netns, const struct xfrm_pol_spec *p, char *err, size_t errlen)
{
	char buf[XFRM_MSG_BUF];
	int len = xfrm_policy_build(buf, sizeof(buf), p, XFRM_POL_ADD, 0);

	if (err && errlen)
		err[0] = '\0';
	if (len < 0)
		return -EINVAL;
	return talk(netns, buf, NULL, err, errlen);
}

int xfrm_sa_exists(const char *netns, int family, const char *dst, uint32_t spi, int proto)
{
	struct xfrm_sa_counters c;
	int err = xfrm_sa_get(netns, family, dst, spi, proto, &c);

	return !err ? 1 : err == -ESRCH || err == -ENOENT ? 0 : err;
}

int xfrm_policy_exists(const char *netns, const struct xfrm_pol_spec *p)
{
	char buf[XFRM_MSG_BUF];
	struct reply r = { 0 };
	int len = xfrm_policy_build(buf, sizeof(buf), p, XFRM_POL_GET, 0);
	int err;

	if (len < 0)
		return -EINVAL;
	err = talk(netns, buf, &r, NULL, 0);
	return !err && r.got ? 1 : !err || err == -ENOENT ? 0 : err;
}

int xfrm_policy_del(const char *netns, const struct xfrm_pol_spec *p)
{
	char buf[XFRM_MSG_BUF];
	int len = xfrm_policy_build(buf, sizeof(buf), p, XFRM_POL_DEL, 0);
	int err;

	if (len < 0)
		return -EINVAL;
	err = talk(netns, buf, NULL, NULL, 0);
	return err == -ENOENT ? 0 : err;
}

static const char *proto_name(int proto)
{
	return proto == IPPROTO_ESP ? "esp" : proto == IPPROTO_AH ? "ah" : "comp";
}

static const char *dir_name(int dir)
{
	return dir == XFRM_POLICY_IN ? "in" : dir == XFRM_POLICY_OUT ? "out" : "fwd";
}

/* Key placeholders are shell variables: a person sets them, we never print keys. */
void xfrm_sa_print(FILE *f, const char *netns, const struct xfrm_sa_spec *s)
{
	fprintf(f, "ip %s%s%sxfrm state add src %s dst %s proto %s spi 0x%08x",
		netns ? "-n " : "", netns ? netns : "", netns ? " " : "", s->src, s->dst,
		proto_name(s->proto), s->spi);
	if (s->aead[0])
		fprintf(f, " aead '%s' \"$KEY_AEAD_%d\" %d", s->aead, s->aead_key_bits, s->aead_icv_bits);
	if (s->enc[0]) {
		if (s->enc_key_bits)
			fprintf(f, " enc '%s' \"$KEY_ENC_%d\"", s->enc, s->enc_key_bits);
		else
			fprintf(f, " enc '%s' ''", s->enc);
	}
	if (s->auth[0]) {
		if (s->auth_key_bits)
			fprintf(f, " auth-trunc '%s' \"$KEY_AUTH_%d\" %d", s->auth, s->auth_key_bits,
				s->auth_icv_bits);
		else
			fprintf(f, " auth-trunc '%s' '' %d", s->auth, s->auth_icv_bits);
	}
	if (s->reqid)
		fprintf(f, " reqid %u", s->reqid);
	/* per-CPU SAs: ip xfrm's dir (iproute2 6.10) and pcpu-num (later) */
	if (s->sa_dir)
		fprintf(f, " dir %s", s->sa_dir == IPP_XFRM_SA_DIR_OUT ? "out" : "in");
	if (s->sa_dir == IPP_XFRM_SA_DIR_OUT && s->pcpu_set)
		fprintf(f, " pcpu-num %u", s->pcpu);
	fprintf(f, " mode %s replay-window %d sel src %s dst %s\n", s->tunnel ? "tunnel" : "transport",
		s->sa_dir == IPP_XFRM_SA_DIR_OUT ? 0 : 32, s->src, s->dst);
}

void xfrm_policy_print(FILE *f, const char *netns, const struct xfrm_pol_spec *p)
{
	int plen = p->family == AF_INET ? 32 : 128;

	fprintf(f, "ip %s%s%sxfrm policy add src %s/%d dst %s/%d ", netns ? "-n " : "", netns ? netns : "",
		netns ? " " : "", p->src, plen, p->dst, plen);
	if (p->l4proto)
		fprintf(f, "proto %s ", p->l4proto == IPPROTO_TCP ? "tcp" : "udp");
	if (p->sport)
		fprintf(f, "sport %u ", p->sport);
	if (p->dport)
		fprintf(f, "dport %u ", p->dport);
	fprintf(f, "dir %s ", dir_name(p->dir));
	if (p->priority)
		fprintf(f, "priority %u ", p->priority);
	fprintf(f, "tmpl ");
	if (p->tunnel)
		fprintf(f, "src %s dst %s ", p->src, p->dst);
	fprintf(f, "proto %s ", proto_name(p->proto));
	if (p->reqid)
		fprintf(f, "reqid %u ", p->reqid);
	fprintf(f, "mode %s", p->tunnel ? "tunnel" : "transport");
	if (p->flags)
		fprintf(f, "  # and the policy's flags %u (XFRM_POLICY_CPU_ACQUIRE is 4), which ip xfrm cannot set", p->flags);
	fputc('\n', f);
}
