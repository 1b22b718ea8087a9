// SPDX-License-Identifier: GPL-2.0
#include "nlsock.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "netns_call.h"

struct open_arg {
	int bus;
	struct mnl_socket *nl;
};

static int open_here(void *p)
{
	struct open_arg *a = p;
	int one = 1, saved;

	a->nl = mnl_socket_open2(a->bus, SOCK_CLOEXEC);
	if (a->nl && mnl_socket_bind(a->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		saved = errno;
		mnl_socket_close(a->nl);
		a->nl = NULL;
		errno = saved;
	}
	if (!a->nl)
		return -1;
	/* errors without an echo of the request (an SA's keys); their text messages */
	mnl_socket_setsockopt(a->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(a->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	return 0;
}

struct mnl_socket *nlsock_open(const char *netns, int bus)
{
	struct open_arg a = { .bus = bus };

	return netns_call(netns, open_here, &a) < 0 ? NULL : a.nl;
}

struct ack {
	char *err;
	size_t errlen;
};

static int ack_attr_cb(const struct nlattr *a, void *data)
{
	struct ack *k = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG && k->err &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(k->err, k->errlen, "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

/* The error of an NLMSG_ERROR answer (0: the ack), its message into k. */
static int ack_of(const struct nlmsghdr *nlh, struct ack *k)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return -EBADMSG;
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		mnl_attr_parse(nlh, sizeof(*e), ack_attr_cb, k);
	return e->error > 0 ? -e->error : e->error;
}

/* A dump's NLMSG_DONE: 0, or the error it carries (with its message, if any). */
static int done_of(const struct nlmsghdr *nlh, struct ack *k)
{
	int e;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(e))
		return 0;
	memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
	if (e && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		mnl_attr_parse(nlh, sizeof(e), ack_attr_cb, k);
	return e > 0 ? -e : e;
}

static uint32_t next_seq(void)
{
	static uint32_t seq;

	if (!seq)
		seq = (uint32_t)time(NULL) ^ 0x5a5a0000u;
	return ++seq;
}

/* Read the answers to request seq until its ack, into rbuf: 0, or -errno. */
static int read_answers(struct mnl_socket *nl, uint32_t seq, char *rbuf, size_t size, mnl_cb_t cb,
			void *data, struct ack *k)
{
	uint32_t portid = mnl_socket_get_portid(nl);

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, rbuf, size);
		const struct nlmsghdr *nlh = (const void *)rbuf;
		int left = (int)n;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != portid)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ack_of(nlh, k);
			if (nlh->nlmsg_type == NLMSG_DONE) /* a dump's end (it gets no ack): its error */
				return done_of(nlh, k);
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE || !cb)
				continue;
			errno = 0;
			if (cb(nlh, data) < MNL_CB_OK)
				return errno ? -errno : -EBADMSG;
		}
	}
}

int nlsock_talk(struct mnl_socket *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		char *err, size_t errlen, unsigned flags)
{
	static char rbuf[32768]; /* a strset answer is a few kB */
	struct ack k = { err, errlen };
	uint32_t seq = next_seq();
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	req->nlmsg_flags |= NLM_F_ACK;
	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		rc = -errno;
	if (flags & NLSOCK_SECRET)
		explicit_bzero(req, req->nlmsg_len);
	if (!rc)
		rc = read_answers(nl, seq, rbuf, sizeof(rbuf), cb, data, &k);
	/* an xfrm SA's answer holds its keys too */
	if (flags & NLSOCK_SECRET)
		explicit_bzero(rbuf, sizeof(rbuf));
	return rc;
}

int nlsock_request(const char *netns, int bus, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   char *err, size_t errlen)
{
	struct mnl_socket *nl = nlsock_open(netns, bus);
	int rc;

	if (!nl) {
		if (err && errlen)
			snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	rc = nlsock_talk(nl, req, cb, data, err, errlen, 0);
	mnl_socket_close(nl);
	return rc;
}
