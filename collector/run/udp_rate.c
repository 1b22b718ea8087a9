// SPDX-License-Identifier: GPL-2.0
/*
 * The packet-rate engine's sockets (udp_rate.h): a paced sender and a
 * counting receiver, each run by a forked child pinned to its CPU in its
 * namespace. Datagrams go out in batches (sendmmsg) and come in the same
 * way (recvmmsg), as packet generators and iperf3's UDP mode batch them;
 * a paced sender sleeps between batches of 50 us worth of datagrams
 * rather than spinning, so that its CPU time is what sending cost.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "load.h"
#include "udp_rate.h"

#define BATCH 64
#define PACE_NS 50000      /* a paced sender wakes for about this much of its rate */
#define RX_BUF 2048        /* a receive buffer: the datagram sizes of a rate search fit whole */

static _Noreturn void fail_exit(char *err, size_t len, _Atomic int *done, const char *what)
{
	if (!err[0])
		snprintf(err, len, "%s: %s", what, strerror(errno));
	atomic_store(done, 1);
	_exit(1);
}

static void sleep_until(long long t_ns)
{
	struct timespec ts = { .tv_sec = t_ns / 1000000000LL, .tv_nsec = t_ns % 1000000000LL };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* How many of a paced step's datagrams to send now (0: sleep first, until *wake). */
static unsigned int pace(uint64_t pps, long long t0, uint64_t n, long long *wake)
{
	long long now = mono_ns();
	uint64_t due = (uint64_t)((double)(now - t0) * pps / 1e9) + 1;
	uint64_t least = pps * PACE_NS / 1000000000ULL;

	least = least < 1 ? 1 : least > BATCH ? BATCH : least;
	if (due >= n + least)
		return due - n > BATCH ? BATCH : (unsigned int)(due - n);
	*wake = t0 + (long long)((double)(n + least - 1) * 1e9 / pps);
	return 0;
}

/* A datagram the kernel refused (a full queue, the port unreachable): counted, not fatal. */
static int refused(int e)
{
	return e == ENOBUFS || e == EAGAIN || e == ECONNREFUSED || e == EINTR || e == ENOMEM;
}

int udp_rate_pause(struct udp_tx *tx, int timeout_ms)
{
	atomic_store(&tx->go, UDP_PAUSE);
	unsigned int want = atomic_fetch_add(&tx->cmd, 1) + 1;

	for (long long end = mono_ns() + timeout_ms * 1000000LL; atomic_load(&tx->ack) != want;) {
		if (mono_ns() > end || atomic_load(&tx->done))
			return -1;
		sleep_until(mono_ns() + 100000);
	}
	return 0;
}

_Noreturn void udp_rate_send(struct udp_tx *tx, const char *src, const char *dst, int port, int size)
{
	struct sockaddr_storage a, b;
	socklen_t al, bl;
	char *buf = calloc(1, size);
	struct mmsghdr m[BATCH];
	struct iovec iov = { buf, (size_t)size };
	int fd = -1, cur = -1;
	uint64_t pps = 0, n = 0;
	long long t0 = 0;

	prctl(PR_SET_TIMERSLACK, 1UL); /* a paced wake-up on time, not 50 us late */
	if (buf && stream_sockaddr(src, 0, &a, &al) >= 0 && stream_sockaddr(dst, port, &b, &bl) >= 0)
		fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, al) < 0 || connect(fd, (struct sockaddr *)&b, bl) < 0)
		fail_exit(tx->err, sizeof(tx->err), &tx->done, "rate sender socket");
	memset(m, 0, sizeof(m));
	for (int i = 0; i < BATCH; i++) {
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	atomic_store(&tx->ready, 1);
	for (;;) {
		/* cmd before go: a pause asked before this cmd is seen below (udp_rate_pause) */
		unsigned int c = atomic_load(&tx->cmd), k = BATCH;
		int go = atomic_load(&tx->go);

		if (go == UDP_QUIT)
			break;
		long long wake = 0;

		if (go == UDP_PAUSE) {
			cur = -1;
			atomic_store(&tx->ack, c);
			sleep_until(mono_ns() + 200000);
			continue;
		}
		if (cur != atomic_load(&tx->step)) {
			uint32_t id;

			cur = atomic_load(&tx->step);
			pps = atomic_load(&tx->pps);
			n = 0;
			t0 = mono_ns();
			id = htonl((uint32_t)cur);
			memcpy(buf, &id, sizeof(id));
		}
		if (pps && (k = pace(pps, t0, n, &wake)) == 0) {
			sleep_until(wake);
			continue;
		}
		int r = sendmmsg(fd, m, k, 0), slot = cur % UDP_RATE_SLOTS;

		if (r < 0 && !refused(errno))
			fail_exit(tx->err, sizeof(tx->err), &tx->done, "rate sender sendmmsg");
		if (r < 0) {
			atomic_fetch_add_explicit(&tx->failed[slot], 1, memory_order_relaxed);
			r = 1;
		}
		atomic_fetch_add_explicit(&tx->sent[slot], (uint64_t)r, memory_order_relaxed);
		n += (uint64_t)r;
	}
	atomic_store(&tx->done, 1);
	_exit(0);
}

_Noreturn void udp_rate_receive(struct udp_rx *rx, const char *addr, int port)
{
	struct sockaddr_storage a;
	socklen_t al;
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	struct timeval tv = { .tv_usec = 50000 };
	char *buf = malloc((size_t)BATCH * RX_BUF);
	int fd = -1;

	if (buf && stream_sockaddr(addr, port, &a, &al) >= 0)
		fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, al) < 0)
		fail_exit(rx->err, sizeof(rx->err), &rx->done, "rate receiver socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)); /* to look at the stop flag */
	memset(m, 0, sizeof(m));
	for (int i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ buf + (size_t)i * RX_BUF, RX_BUF };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	atomic_store(&rx->listening, 1);
	while (!atomic_load_explicit(&rx->stop, memory_order_relaxed)) {
		int r = recvmmsg(fd, m, BATCH, MSG_WAITFORONE, NULL);

		if (r < 0 && errno != EAGAIN && errno != EINTR)
			fail_exit(rx->err, sizeof(rx->err), &rx->done, "rate receiver recvmmsg");
		for (int i = 0; i < r; i++) {
			uint32_t id;

			if (m[i].msg_len < sizeof(id))
				continue; /* not one of ours */
			memcpy(&id, iov[i].iov_base, sizeof(id));
			atomic_fetch_add_explicit(&rx->received[ntohl(id) % UDP_RATE_SLOTS], 1, memory_order_relaxed);
		}
		if (r > 0)
			atomic_fetch_add_explicit(&rx->total, (uint64_t)r, memory_order_relaxed);
		/* after the counts: a parent that sees the queue found empty sees what was read before */
		if (r < BATCH)
			atomic_fetch_add(&rx->empty_seq, 1);
	}
	atomic_store(&rx->done, 1);
	_exit(0);
}
