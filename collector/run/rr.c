// SPDX-License-Identifier: GPL-2.0
/*
 * The request/response engine's sockets (rr.h): the responder's and the
 * requester's loops, each run by a forked child pinned to its CPU in its
 * namespace. Blocking sockets, as netperf's: one transaction in flight
 * leaves nothing to batch, and a blocked read costs no CPU.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "clock.h"
#include "load.h"
#include "rr.h"

#define RR_TCP_TIMEOUT_MS 10000 /* a TCP answer later than this is a broken path, not a slow one */
#define RR_POLL_MS 200          /* the responder looks at its stop flag this often */

const char *const rr_kind_names[3] = { "tcp-rr", "tcp-crr", "udp-rr" };

int rr_kind_of(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, rr_kind_names[i]))
			return i;
	return -1;
}

int rr_spec_check(const struct rr_spec *s, char *why, size_t len)
{
	int max = s->kind == RR_UDP ? RR_MAX_UDP_SIZE : RR_MAX_SIZE;

	if (s->req < 1 || s->resp < 1 || s->req > max || s->resp > max) {
		snprintf(why, len, "%s: request and response sizes must be 1 to %d bytes (got %d and %d)",
			 rr_kind_names[s->kind], max, s->req, s->resp);
		return -1;
	}
	return 0;
}

static void set_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * All n bytes, read or written: 0; 1 the other end closed (read); -2 the
 * socket's time-out passed with nothing moved and *stop set; -1 an error.
 */
static int io_all(int fd, char *buf, size_t n, bool wr, _Atomic int *stop)
{
	for (size_t done = 0; done < n;) {
		ssize_t r = wr ? send(fd, buf + done, n - done, MSG_NOSIGNAL) : recv(fd, buf + done, n - done, 0);

		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r == 0)
			return 1;
		if (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && !(stop && atomic_load(stop))))
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? -2 : -1;
	}
	return 0;
}

static _Noreturn void child_fail(char *err, size_t len, _Atomic int *done, const char *what)
{
	if (!err[0])
		snprintf(err, len, "%s: %s", what, strerror(errno));
	atomic_store(done, 1);
	_exit(1);
}

/* ---- the responder ---- */

/* One TCP connection: requests answered until it closes (tcp-rr) or after one (tcp-crr). */
static int serve_conn(struct rr_server *sv, const struct rr_spec *s, int c, char *buf)
{
	int one = 1, rc = 0;

	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_timeout(c, RR_POLL_MS);
	while (!atomic_load(&sv->stop)) {
		rc = io_all(c, buf, s->req, false, &sv->stop);
		if (rc == 0)
			rc = io_all(c, buf, s->resp, true, &sv->stop);
		if (rc != 0)
			break;
		atomic_fetch_add_explicit(&sv->served, 1, memory_order_relaxed);
		if (s->kind == RR_TCP_CRR)
			break; /* closed first, here: TIME_WAIT on this side */
	}
	close(c);
	return rc == -1 ? -1 : 0;
}

_Noreturn void rr_serve(struct rr_server *sv, const struct rr_spec *s, const char *addr, int port)
{
	struct sockaddr_storage ss, peer;
	socklen_t sl, pl;
	int fam = stream_sockaddr(addr, port, &ss, &sl), one = 1, fd;
	char *buf = calloc(1, s->req > s->resp ? s->req : s->resp); /* what a response holds beyond the request: zeros */

	fd = fam < 0 || !buf ? -1 : socket(fam, (s->kind == RR_UDP ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		child_fail(sv->err, sizeof(sv->err), &sv->done, "responder socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0)
		child_fail(sv->err, sizeof(sv->err), &sv->done, "responder bind");
	if (s->kind != RR_UDP && listen(fd, 128) < 0)
		child_fail(sv->err, sizeof(sv->err), &sv->done, "responder listen");
	set_timeout(fd, RR_POLL_MS); /* accept and recvfrom wake to look at the stop flag */
	atomic_store(&sv->listening, 1);
	while (!atomic_load(&sv->stop)) {
		if (s->kind == RR_UDP) {
			pl = sizeof(peer);
			ssize_t n = recvfrom(fd, buf, s->req, 0, (struct sockaddr *)&peer, &pl);

			if (n > 0 && sendto(fd, buf, s->resp, 0, (struct sockaddr *)&peer, pl) == s->resp)
				atomic_fetch_add_explicit(&sv->served, 1, memory_order_relaxed);
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				child_fail(sv->err, sizeof(sv->err), &sv->done, "responder recvfrom");
			continue;
		}
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			child_fail(sv->err, sizeof(sv->err), &sv->done, "responder accept");
		if (c >= 0 && serve_conn(sv, s, c, buf) < 0)
			child_fail(sv->err, sizeof(sv->err), &sv->done, "responder");
	}
	atomic_store(&sv->done, 1);
	_exit(0);
}

/* ---- the requester ---- */

/* A socket from src, connected to dst (TCP: the handshake). -1 with errno. */
static int rr_connect(const struct rr_spec *s, const struct sockaddr_storage *src, socklen_t srcl,
		      const struct sockaddr_storage *dst, socklen_t dstl)
{
	int one = 1, fd = socket(src->ss_family, (s->kind == RR_UDP ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	/* the port at connect(), by the 4-tuple: a bind-time port would run out sooner (tcp-crr) */
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (s->kind != RR_UDP)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_timeout(fd, s->kind == RR_UDP ? RR_UDP_TIMEOUT_MS : RR_TCP_TIMEOUT_MS);
	if (bind(fd, (const struct sockaddr *)src, srcl) < 0 || connect(fd, (const struct sockaddr *)dst, dstl) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* udp-rr: the answer to request seq, skipping late answers to earlier ones. 0, 1 lost, -1 error. */
static int udp_answer(int fd, char *buf, int resp, unsigned char seq)
{
	for (;;) {
		ssize_t n = recv(fd, buf, resp, 0);

		if (n > 0 && (unsigned char)buf[0] == seq)
			return 0;
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNREFUSED) ? 1 : -1;
	}
}

/* One transaction on fd (tcp-crr: on a connection of its own): 0, 1 lost (udp), -1 error (what). */
static int transact(const struct rr_spec *s, int *fd, char *req, char *resp, const struct sockaddr_storage *src,
		    socklen_t srcl, const struct sockaddr_storage *dst, socklen_t dstl, const char **what)
{
	int rc;

	if (s->kind == RR_TCP_CRR && (*fd = rr_connect(s, src, srcl, dst, dstl)) < 0) {
		*what = "connect";
		return -1;
	}
	*what = "send";
	if (s->kind == RR_UDP)
		rc = send(*fd, req, s->req, 0) == s->req ? 0 : -1;
	else
		rc = io_all(*fd, req, s->req, true, NULL);
	if (rc != 0)
		return -1;
	*what = "the response";
	rc = s->kind == RR_UDP ? udp_answer(*fd, resp, s->resp, (unsigned char)req[0])
			       : io_all(*fd, resp, s->resp, false, NULL);
	if (s->kind == RR_TCP_CRR) {
		/* the responder's FIN follows its answer: read it, then close (no TIME_WAIT here) */
		if (rc == 0 && io_all(*fd, resp, 1, false, NULL) != 1)
			rc = -1;
		close(*fd);
		*fd = -1;
	}
	return s->kind == RR_UDP ? rc : rc == 0 ? 0 : -1;
}

_Noreturn void rr_request(struct rr_client *cl, const struct rr_spec *s, const char *src, const char *dst, int port)
{
	struct sockaddr_storage a, b;
	socklen_t al, bl;
	int fd = -1;
	char *req = calloc(1, s->req), *resp = malloc(s->resp);
	const char *what = "socket";

	hist_init(&cl->hist);
	if (stream_sockaddr(src, 0, &a, &al) < 0 || stream_sockaddr(dst, port, &b, &bl) < 0 || !req || !resp)
		child_fail(cl->err, sizeof(cl->err), &cl->done, "requester addresses");
	if (s->kind != RR_TCP_CRR && (fd = rr_connect(s, &a, al, &b, bl)) < 0)
		child_fail(cl->err, sizeof(cl->err), &cl->done, "requester connect");
	atomic_store(&cl->ready, 1);
	for (unsigned int seq = 0; atomic_load_explicit(&cl->phase, memory_order_relaxed) != RR_STOP; seq++) {
		int p0 = atomic_load_explicit(&cl->phase, memory_order_relaxed), rc;

		req[0] = (char)seq;
		long long t0 = mono_ns();

		rc = transact(s, &fd, req, resp, &a, al, &b, bl, &what);
		long long t1 = mono_ns();
		/* begun and ended in the measured window: warm-up and the last one out */
		bool in = p0 == RR_MEASURE && atomic_load_explicit(&cl->phase, memory_order_relaxed) == RR_MEASURE;

		if (rc < 0) {
			char w[64];

			snprintf(w, sizeof(w), "requester: %s", what);
			child_fail(cl->err, sizeof(cl->err), &cl->done, w);
		}
		if (rc > 0) {
			atomic_fetch_add_explicit(&cl->lost_all, 1, memory_order_relaxed);
			if (in)
				atomic_fetch_add_explicit(&cl->lost, 1, memory_order_relaxed);
			continue;
		}
		atomic_fetch_add_explicit(&cl->transactions, 1, memory_order_relaxed);
		if (in) {
			hist_add(&cl->hist, (uint64_t)(t1 - t0));
			atomic_fetch_add_explicit(&cl->measured, 1, memory_order_release);
		}
	}
	atomic_store(&cl->done, 1);
	_exit(0);
}
