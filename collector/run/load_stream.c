// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in TCP stream: what iperf3 does for one stream, plus the socket
 * options iperf3 cannot set (TCP_MD5SIG, TCP_AO_ADD_KEY). The receiver and
 * the sender are forked children, each in its namespace and pinned to its
 * CPU; they share a page of counters with the parent, which opens and closes
 * the measured window and reads the receiver's byte count at both edges.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "secret.h"
#include "signals.h"

/* TCP-AO (Linux 6.7, RFC 5925): the uapi, for headers that predate it. */
#ifndef TCP_AO_ADD_KEY
#define TCP_AO_ADD_KEY 38
#endif
#define IPP_TCP_AO_MAXKEYLEN 80

struct ipp_tcp_ao_add {
	struct sockaddr_storage addr;
	char alg_name[64];
	int32_t ifindex;
	uint32_t set_current : 1, set_rnext : 1, reserved : 30;
	uint16_t reserved2;
	uint8_t prefix;
	uint8_t sndid;
	uint8_t rcvid;
	uint8_t maclen;
	uint8_t keyflags;
	uint8_t keylen;
	uint8_t key[IPP_TCP_AO_MAXKEYLEN];
} __attribute__((aligned(8)));
/* the uapi's layout (include/uapi/linux/tcp.h, 6.7): the kernel copies by size */
_Static_assert(sizeof(struct ipp_tcp_ao_add) == 288, "struct tcp_ao_add is 288 bytes");
_Static_assert(offsetof(struct ipp_tcp_ao_add, key) == 208, "tcp_ao_add.key at 208");

#define STREAM_BUF (128 * 1024) /* iperf3's TCP block */
#define STREAM_BURST 10        /* blocks per wait for the socket, as iperf3's multisend */


int stream_sockaddr(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return AF_INET6;
	}
	return -1;
}

/* Put the key for peer on fd. 0, or -1 with errno (ENOPROTOOPT: not in this kernel). */
int set_tcp_key(int fd, const char *method, const char *ao_alg, const char *peer,
		       const uint8_t *key, size_t keylen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fam = stream_sockaddr(peer, 0, &ss, &sl), rc;

	if (fam < 0) {
		errno = EINVAL;
		return -1;
	}
	if (!strcmp(method, "md5")) {
		struct tcp_md5sig m;

		memset(&m, 0, sizeof(m));
		memcpy(&m.tcpm_addr, &ss, sizeof(ss));
		m.tcpm_keylen = keylen;
		memcpy(m.tcpm_key, key, keylen);
		rc = setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m));
		explicit_bzero(&m, sizeof(m));
		return rc;
	}
	struct ipp_tcp_ao_add a;

	memset(&a, 0, sizeof(a));
	memcpy(&a.addr, &ss, sizeof(ss));
	snprintf(a.alg_name, sizeof(a.alg_name), "%s", ao_alg && *ao_alg ? ao_alg : "hmac(sha1)");
	a.prefix = fam == AF_INET ? 32 : 128;
	a.sndid = a.rcvid = 100; /* the same on both ends: each sends what the other expects */
	a.keylen = keylen;
	memcpy(a.key, key, keylen);
	rc = setsockopt(fd, IPPROTO_TCP, TCP_AO_ADD_KEY, &a, sizeof(a));
	explicit_bzero(&a, sizeof(a));
	return rc;
}

int tcp_auth_probe(const char *method, const char *ao_alg, char *why, size_t len)
{
	uint8_t key[16] = { 1 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc = 0;

	if (fd < 0) {
		snprintf(why, len, "socket: %s", strerror(errno));
		return -1;
	}
	/* a key on a socket never connected: nothing on the host changes */
	if (set_tcp_key(fd, method, ao_alg, "192.0.2.1", key, sizeof(key)) < 0) {
		if (errno == ENOPROTOOPT)
			snprintf(why, len, "this kernel has no %s (setsockopt %s: %s)",
				 !strcmp(method, "md5") ? "TCP-MD5 (CONFIG_TCP_MD5SIG)" : "TCP-AO (CONFIG_TCP_AO)",
				 !strcmp(method, "md5") ? "TCP_MD5SIG" : "TCP_AO_ADD_KEY", strerror(errno));
		else if (errno == ENOENT && strcmp(method, "md5"))
			snprintf(why, len, "this kernel lacks the TCP-AO algorithm %s", ao_alg);
		else
			snprintf(why, len, "setsockopt for TCP-%s: %s", !strcmp(method, "md5") ? "MD5" : "AO",
				 strerror(errno));
		rc = 1;
	}
	close(fd);
	return rc;
}

_Noreturn void stream_receive(struct stream_rx *rx, const char *addr, int port, const char *peer,
			      const char *method, const char *ao_alg, uint8_t *key, size_t keylen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fam = stream_sockaddr(addr, port, &ss, &sl), one = 1, lfd, fd = -1;
	char *buf = malloc(STREAM_BUF);

	lfd = fam < 0 ? -1 : socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || !buf) {
		snprintf(rx->err, sizeof(rx->err), "receiver socket for %s: %s", addr, strerror(errno));
		_exit(1);
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, sl) < 0) {
		snprintf(rx->err, sizeof(rx->err), "receiver bind %s:%d: %s", addr, port, strerror(errno));
		_exit(1);
	}
	if (method && method[0] && set_tcp_key(lfd, method, ao_alg, peer, key, keylen) < 0) {
		snprintf(rx->err, sizeof(rx->err), "receiver: setting the TCP-%s key: %s",
			 !strcmp(method, "md5") ? "MD5" : "AO", strerror(errno));
		_exit(1);
	}
	explicit_bzero(key, keylen);
	if (listen(lfd, 1) < 0) {
		snprintf(rx->err, sizeof(rx->err), "receiver listen: %s", strerror(errno));
		_exit(1);
	}
	atomic_store(&rx->listening, 1);
	while (fd < 0) {
		struct pollfd pfd = { lfd, POLLIN, 0 };

		if (poll(&pfd, 1, 200) > 0)
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (atomic_load(&rx->stop))
			_exit(0);
	}
	close(lfd);
	/* iperf3's server loop: wait for data, then read one block (or what is there) */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (bool eof = false; !eof && !rx->err[0];) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		size_t got = 0;

		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR) {
			snprintf(rx->err, sizeof(rx->err), "receiver poll: %s", strerror(errno));
			break;
		}
		while (got < STREAM_BUF) {
			ssize_t n = recv(fd, buf + got, STREAM_BUF - got, 0);

			if (n > 0) {
				got += (size_t)n;
				continue;
			}
			if (n == 0)
				eof = true;
			else if (errno != EINTR && errno != EAGAIN)
				snprintf(rx->err, sizeof(rx->err), "receiver recv: %s", strerror(errno));
			if (n == 0 || errno != EINTR)
				break;
		}
		if (got)
			atomic_fetch_add_explicit(&rx->bytes, got, memory_order_relaxed);
	}
	atomic_store(&rx->done, 1);
	_exit(rx->err[0] ? 1 : 0);
}

_Noreturn void stream_send(struct stream_tx *tx, const char *src, const char *dst, int port,
			   const char *method, const char *ao_alg, uint8_t *key, size_t keylen)
{
	struct sockaddr_storage s, d;
	socklen_t sl, dl;
	int fam = stream_sockaddr(src, 0, &s, &sl);
	int fd;
	char *buf = calloc(1, STREAM_BUF);

	stream_sockaddr(dst, port, &d, &dl);
	fd = fam < 0 ? -1 : socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || !buf || bind(fd, (struct sockaddr *)&s, sl) < 0) {
		snprintf(tx->err, sizeof(tx->err), "sender socket on %s: %s", src, strerror(errno));
		_exit(1);
	}
	if (method && method[0] && set_tcp_key(fd, method, ao_alg, dst, key, keylen) < 0) {
		snprintf(tx->err, sizeof(tx->err), "sender: setting the TCP-%s key: %s",
			 !strcmp(method, "md5") ? "MD5" : "AO", strerror(errno));
		_exit(1);
	}
	explicit_bzero(key, keylen);
	if (tx->congestion[0] &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, tx->congestion, strlen(tx->congestion)) < 0) {
		snprintf(tx->err, sizeof(tx->err), "sender: congestion control %.15s: %s (tcp_available_congestion_control lists what this kernel has)",
			 tx->congestion, strerror(errno));
		_exit(1);
	}
	if (connect(fd, (struct sockaddr *)&d, dl) < 0) {
		snprintf(tx->err, sizeof(tx->err), "sender connect %s:%d: %s", dst, port, strerror(errno));
		_exit(1);
	}
	socklen_t cl = sizeof(tx->congestion) - 1;

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, tx->congestion, &cl) == 0)
		tx->congestion[cl < sizeof(tx->congestion) ? cl : sizeof(tx->congestion) - 1] = '\0';
	atomic_store(&tx->connected, 1);
	/*
	 * iperf3's client loop, so that both loads cost the same per byte: a
	 * non-blocking socket, a wait until it is writable, then up to ten
	 * blocks, each written until it is all sent or the socket is full.
	 */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (unsigned int i = 0; !atomic_load_explicit(&tx->stop, memory_order_relaxed); i++) {
		struct pollfd pfd = { fd, POLLOUT, 0 };
		struct tcp_info ti;
		socklen_t tl = sizeof(ti);

		if (i % STREAM_BURST == 0 && poll(&pfd, 1, 100) < 0 && errno != EINTR) {
			snprintf(tx->err, sizeof(tx->err), "sender poll: %s", strerror(errno));
			_exit(1);
		}
		for (size_t put = 0; put < STREAM_BUF;) {
			ssize_t n = send(fd, buf + put, STREAM_BUF - put, 0);

			if (n > 0) {
				put += (size_t)n;
				atomic_fetch_add_explicit(&tx->bytes, n, memory_order_relaxed);
				continue;
			}
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			snprintf(tx->err, sizeof(tx->err), "sender send: %s", n ? strerror(errno) : "wrote nothing");
			_exit(1);
		}
		/*
		 * TCP_INFO takes the socket lock: after every send it cost the
		 * stream a measurable share of its throughput against iperf3.
		 * Every 8 MiB keeps the retransmit count within a few ms at the
		 * window's edges.
		 */
		if (i % 64 == 0 && getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0) {
			atomic_store_explicit(&tx->retrans, ti.tcpi_total_retrans, memory_order_relaxed);
			atomic_store_explicit(&tx->snd_mss, ti.tcpi_snd_mss, memory_order_relaxed);
		}
	}
	shutdown(fd, SHUT_WR);
	close(fd);
	atomic_store(&tx->done, 1);
	_exit(0);
}
