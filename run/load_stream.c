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
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
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

#define STREAM_KEY_LEN 32
#define STREAM_BUF (128 * 1024) /* iperf3's TCP block */
#define STREAM_BURST 10        /* blocks per wait for the socket, as iperf3's multisend */

/* Shared between the parent and its two children (MAP_SHARED). */
struct stream_shm {
	struct stream_rx rx;
	struct stream_tx tx;
};

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

int load_check(const struct scenario *sc, char *why, size_t len)
{
	if (!sc->tcp_auth.method[0])
		return 0;
	return tcp_auth_probe(sc->tcp_auth.method, sc->tcp_auth.ao_alg, why, len) ? 1 : 0;
}

int load_run(const struct load_params *p, struct load_result *r)
{
	if (p->sc && !strcmp(p->sc->load, "stream"))
		return load_stream(p, r);
	return load_iperf3(p, r);
}

/* A child's start: exec_fork's, without the descriptors it inherits. */
static pid_t fork_into(const char *netns, int cpu, char *err, size_t errlen)
{
	pid_t pid = exec_fork(netns, cpu, err, errlen);

	/*
	 * No inherited descriptors: the journal's (whose lock tells cleanup
	 * that a run is alive) and the results' stay with ipsecperf alone.
	 */
	if (pid == 0)
		syscall(SYS_close_range, 3, ~0U, 0);
	return pid;
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
	if (connect(fd, (struct sockaddr *)&d, dl) < 0) {
		snprintf(tx->err, sizeof(tx->err), "sender connect %s:%d: %s", dst, port, strerror(errno));
		_exit(1);
	}
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

static int wait_flag(_Atomic int *flag, pid_t child, int timeout_ms)
{
	for (int t = 0; t < timeout_ms; t += 10) {
		if (atomic_load(flag))
			return 0;
		if (waitpid(child, NULL, WNOHANG) == child)
			return -1;
		if (sleep_ms_or_stop(10))
			return -1;
	}
	return -1;
}

static void write_raw(const struct load_params *p, const struct load_result *r, json_t *intervals,
		      uint64_t tx_total, uint64_t rx_total, int snd_mss)
{
	char path[PATH_MAX + 256];
	json_t *o;

	if (!p->raw_prefix) {
		json_decref(intervals);
		return;
	}
	snprintf(path, sizeof(path), "%sstream.json", p->raw_prefix);
	o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i}", "load", "stream", "tcp_auth",
		      p->sc && p->sc->tcp_auth.method[0] ? p->sc->tcp_auth.method : "none",
		      "sender", p->tb->addr_tx, "receiver", p->tb->addr_rx, "port", p->port, "omit_s",
		      p->omit_s, "duration_s_asked", p->duration_s, "cpu_sender", p->tb->cpu_tx,
		      "cpu_receiver", p->tb->cpu_rx);
	json_object_set_new(o, "end", json_pack("{s:f, s:I, s:f, s:f, s:I, s:I, s:I}", "seconds", r->duration_s,
						"bytes", (json_int_t)r->bytes, "bits_per_second", r->throughput_bps,
						"sender_bits_per_second", r->sender_bps, "retransmits",
						(json_int_t)r->retransmits, "sender_total_bytes", (json_int_t)tx_total,
						"receiver_total_bytes", (json_int_t)rx_total));
	json_object_set_new(json_object_get(o, "end"), "snd_mss", json_integer(snd_mss));
	json_object_set_new(o, "intervals", intervals);
	if (r->error[0])
		json_object_set_new(o, "error", json_string(r->error));
	json_dump_file(o, path, JSON_INDENT(1));
	json_decref(o);
}

int load_stream(const struct load_params *p, struct load_result *r)
{
	const struct tcp_auth_config *ta = p->sc ? &p->sc->tcp_auth : NULL;
	const struct testbed *tb = p->tb;
	struct stream_shm *shm;
	uint8_t key[STREAM_KEY_LEN];
	pid_t rx = -1, tx = -1;
	bool open_ = false;
	int err = -1;
	double t0, t_open = 0, t_close = 0, next_iv;
	uint64_t b0 = 0, s0 = 0, last_iv = 0;
	int64_t r0 = 0;
	json_t *intervals = json_array();

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (journal_dry_run()) {
		printf("# built-in stream: receiver in %s on %s:%d (CPU %d), sender in %s from %s (CPU %d)%s%s\n",
		       tb->ns_rx, tb->addr_rx, p->port, tb->cpu_rx, tb->ns_tx, tb->addr_tx, tb->cpu_tx,
		       p->sc && p->sc->tcp_auth.method[0] ? ", TCP-" : "",
		       p->sc && p->sc->tcp_auth.method[0] ? (!strcmp(p->sc->tcp_auth.method, "md5") ? "MD5 key on both sockets" : "AO key on both sockets") : "");
		json_decref(intervals);
		return 0;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		snprintf(r->error, sizeof(r->error), "mmap: %s", strerror(errno));
		json_decref(intervals);
		return -1;
	}
	memset(shm, 0, sizeof(*shm));
	secret_hold(); /* until the key is wiped (the children keep it until their sockets have it) */
	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		snprintf(r->error, sizeof(r->error), "getrandom: %s", strerror(errno));
		goto out;
	}
	rx = fork_into(tb->ns_rx, tb->cpu_rx, shm->rx.err, sizeof(shm->rx.err));
	if (rx == 0)
		stream_receive(&shm->rx, tb->addr_rx, p->port, tb->addr_tx, ta ? ta->method : NULL,
			       ta ? ta->ao_alg : NULL, key, STREAM_KEY_LEN);
	if (rx < 0) {
		snprintf(r->error, sizeof(r->error), "fork: %s", strerror(errno));
		goto out;
	}
	journal_add_process(rx);
	if (wait_flag(&shm->rx.listening, rx, 5000) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", shm->rx.err[0] ? shm->rx.err :
			 stop_requested() ? "interrupted" : "the stream receiver did not listen within 5 s");
		goto out;
	}
	tx = fork_into(tb->ns_tx, tb->cpu_tx, shm->tx.err, sizeof(shm->tx.err));
	if (tx == 0)
		stream_send(&shm->tx, tb->addr_tx, tb->addr_rx, p->port, ta ? ta->method : NULL,
			    ta ? ta->ao_alg : NULL, key, STREAM_KEY_LEN);
	explicit_bzero(key, sizeof(key));
	if (tx < 0) {
		snprintf(r->error, sizeof(r->error), "fork: %s", strerror(errno));
		goto out;
	}
	journal_add_process(tx);
	if (wait_flag(&shm->tx.connected, tx, 5000) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", shm->tx.err[0] ? shm->tx.err :
			 stop_requested() ? "interrupted" : "the stream sender did not connect within 5 s");
		goto out;
	}
	t0 = mono_s();
	next_iv = t0 + 1;
	for (;;) {
		double t = mono_s();
		int st;

		if (!open_ && t - t0 >= p->omit_s) {
			/* the window's edges: receiver bytes, sender bytes and retransmits, then the callback */
			t_open = mono_s();
			b0 = atomic_load(&shm->rx.bytes);
			s0 = atomic_load(&shm->tx.bytes);
			r0 = atomic_load(&shm->tx.retrans);
			if (p->window)
				p->window(p->arg, 1);
			open_ = true;
		}
		if (open_ && t - t_open >= p->duration_s) {
			if (p->window)
				p->window(p->arg, 0);
			t_close = mono_s();
			r->bytes = atomic_load(&shm->rx.bytes) - b0;
			r->sender_bps = (atomic_load(&shm->tx.bytes) - s0) * 8.0 / (t_close - t_open);
			r->retransmits = atomic_load(&shm->tx.retrans) - r0;
			open_ = false;
			break;
		}
		if (t >= next_iv) {
			uint64_t b = atomic_load(&shm->rx.bytes);

			json_array_append_new(intervals, json_pack("{s:f, s:I}", "end", t - t0, "bytes",
								   (json_int_t)(b - last_iv)));
			last_iv = b;
			next_iv += 1;
		}
		if (p->tick)
			p->tick(p->arg);
		if (stop_requested()) {
			snprintf(r->error, sizeof(r->error), "interrupted by signal %d", stop_signal());
			goto out;
		}
		if (waitpid(tx, &st, WNOHANG) == tx || waitpid(rx, &st, WNOHANG) == rx) {
			bool was_tx = shm->tx.err[0] || atomic_load(&shm->tx.done);

			tx = was_tx ? -1 : tx;
			rx = was_tx ? rx : -1;
			snprintf(r->error, sizeof(r->error), "the stream %s stopped: %s", was_tx ? "sender" : "receiver",
				 shm->tx.err[0] ? shm->tx.err : shm->rx.err[0] ? shm->rx.err : "no message");
			goto out;
		}
		/* wake at the window's edge, not up to a tick late */
		double edge = open_ ? t_open + p->duration_s : t0 + p->omit_s;
		int ms = (int)((edge - mono_s()) * 1000);

		sleep_ms_or_stop(ms < 1 ? 1 : ms > 100 ? 100 : ms);
	}
	r->duration_s = t_close - t_open;
	r->throughput_bps = r->bytes * 8.0 / r->duration_s;
	err = 0;
	if (r->bytes == 0) {
		snprintf(r->error, sizeof(r->error), "the stream receiver got no bytes in the measured window");
		err = -1;
	}

	/* the end: the sender closes, the receiver reads to EOF */
	atomic_store(&shm->rx.stop, 1);
	atomic_store(&shm->tx.stop, 1);
	for (int i = 0; i < 300 && (tx > 0 || rx > 0); i++) {
		if (tx > 0 && waitpid(tx, NULL, WNOHANG) == tx)
			tx = -1;
		if (rx > 0 && waitpid(rx, NULL, WNOHANG) == rx)
			rx = -1;
		if (tx > 0 || rx > 0)
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
out:
	explicit_bzero(key, sizeof(key));
	secret_release();
	if (open_ && p->window)
		p->window(p->arg, 0);
	atomic_store(&shm->rx.stop, 1);
	atomic_store(&shm->tx.stop, 1);
	if (tx > 0)
		exec_stop(tx, 1000);
	if (rx > 0)
		exec_stop(rx, 1000);
	write_raw(p, r, intervals, atomic_load(&shm->tx.bytes), atomic_load(&shm->rx.bytes),
		  atomic_load(&shm->tx.snd_mss));
	munmap(shm, sizeof(*shm));
	return err;
}
