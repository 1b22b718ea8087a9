// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in stream as a load (load.h): the sender a child here, the
 * receiver a child at the rx end, here in its namespace or on the peer by
 * its agent (the key then travels on the agent's stdin, never in a json_t).
 * The sockets themselves are load_stream.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint_xfrm.h"
#include "exec.h"
#include "journal.h"
#include "load.h"
#include "load_util.h"
#include "remote.h"
#include "secret.h"
#include "signals.h"
#include "wait.h"

#define STREAM_KEY_LEN 32

/* Shared between the parent and its children here (MAP_SHARED). */
struct stream_shm {
	struct stream_rx rx;
	struct stream_tx tx;
};

/* One run of the stream. */
struct stream_run {
	const struct load_params *p;
	const struct tcp_auth_config *ta;
	const struct endpoint *tx, *rx;
	struct load_result *r;
	struct stream_shm *shm;
	pid_t tx_pid, rx_pid;   /* rx_pid: the receiver here */
	bool rx_started;        /* the agent's receiver, on the peer */
	uint64_t rx_total;      /* what the receiver counted, at its end */
	bool open_;
	json_t *intervals;
};


static int fail(struct stream_run *x, const char *why)
{
	const char *lost = ep_lost(x->rx);

	snprintf(x->r->error, sizeof(x->r->error), "%.250s", lost ?: why);
	return -1;
}

/* ---- the receiver: a child here, or the agent's on the peer ---- */

/* The agent's receiver: the request without the key, then the key spliced in. */
static int rx_start_agent(struct stream_run *x, const uint8_t *key)
{
	char hex[2 * STREAM_KEY_LEN + 1], line[1024], *head;
	json_t *req = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:i}", "op", "stream-rx", "addr", x->rx->addr,
				"peer", x->tx->addr, "port", x->p->port, "method", x->ta->method, "ao_alg",
				x->ta->ao_alg, "cpu", x->rx->cpu);
	json_t *rep;
	int rc = -1;

	head = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!head)
		return fail(x, "out of memory");
	for (int i = 0; x->ta->method[0] && i < STREAM_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	head[strlen(head) - 1] = '\0';
	if (x->ta->method[0])
		snprintf(line, sizeof(line), "%s,\"key\":\"%s\"}", head, hex);
	else
		snprintf(line, sizeof(line), "%s}", head);
	free(head);
	explicit_bzero(hex, sizeof(hex));
	rep = x->rx->agent(x->rx->arg, line);
	explicit_bzero(line, sizeof(line));
	if (!rep)
		return fail(x, "the agent did not answer");
	if (json_is_true(json_object_get(rep, "ok"))) {
		x->rx_started = true;
		rc = 0;
	} else {
		snprintf(x->r->error, sizeof(x->r->error), "the peer: %.230s",
			 json_string_value(json_object_get(rep, "error")) ?: "the stream receiver did not start");
	}
	json_decref(rep);
	return rc;
}

/* Start the receiver and wait until it listens. */
static int rx_start(struct stream_run *x, uint8_t *key)
{
	struct stream_rx *rx = &x->shm->rx;

	if (ep_remote(x->rx)) {
		if (!x->rx->agent)
			return fail(x, "the built-in stream needs ipsecperf on the peer");
		return rx_start_agent(x, key);
	}
	x->rx_pid = load_fork(x->rx->netns, x->rx->cpu, rx->err, sizeof(rx->err));
	if (x->rx_pid == 0)
		stream_receive(rx, x->rx->addr, x->p->port, x->tx->addr, x->ta->method, x->ta->ao_alg, key,
			       STREAM_KEY_LEN);
	if (x->rx_pid < 0) {
		snprintf(x->r->error, sizeof(x->r->error), "fork: %s", strerror(errno));
		return -1;
	}
	journal_add_process(x->rx_pid);
	if (load_wait_flag(&rx->listening, x->rx_pid, 5000) < 0)
		return fail(x, rx->err[0] ? rx->err : stop_requested() ? "interrupted"
				: "the stream receiver did not listen within 5 s");
	return 0;
}

/* An answer of the agent's about its receiver: its bytes, or -1 with why it stopped. */
static long long rx_agent_bytes(struct stream_run *x, const char *op)
{
	char line[64];
	json_t *r;
	long long b = -1;

	snprintf(line, sizeof(line), "{\"op\":\"%s\"}", op);
	r = x->rx->agent(x->rx->arg, line);
	if (r && json_is_true(json_object_get(r, "ok"))) {
		const char *e = json_string_value(json_object_get(r, "error"));

		b = json_integer_value(json_object_get(r, "bytes"));
		if (!strcmp(op, "stream-bytes") && !json_is_true(json_object_get(r, "running"))) {
			snprintf(x->r->error, sizeof(x->r->error), "the stream receiver on the peer stopped: %.200s",
				 e && *e ? e : "no message");
			b = -1;
		}
	} else {
		fail(x, "the agent did not answer");
	}
	json_decref(r);
	return b;
}

/* What the receiver has counted; -1 with r->error when it stopped. */
static long long rx_bytes(struct stream_run *x)
{
	if (ep_remote(x->rx))
		return rx_agent_bytes(x, "stream-bytes");
	/* one look, between the run's counter reads */
	if (wait_child_ended(x->rx_pid, NULL)) {
		x->rx_pid = -1;
		snprintf(x->r->error, sizeof(x->r->error), "the stream receiver stopped: %.200s",
			 x->shm->rx.err[0] ? x->shm->rx.err : "no message");
		return -1;
	}
	return (long long)atomic_load(&x->shm->rx.bytes);
}

/* The end: the sender has closed; the receiver reads to EOF, and stops. */
static void rx_stop(struct stream_run *x)
{
	if (ep_remote(x->rx)) {
		long long b = x->rx_started && !ep_lost(x->rx) ? rx_agent_bytes(x, "stream-stop") : -1;

		x->rx_total = b > 0 ? (uint64_t)b : 0;
		return;
	}
	atomic_store(&x->shm->rx.stop, 1);
	/* asked to stop by its flag, not a signal: SIGTERM only after 3 s */
	wait_stop(x->rx_pid, &(struct wait_stop){ .quiet_ms = 3000, .grace_ms = 1000 });
	x->rx_pid = -1;
	x->rx_total = atomic_load(&x->shm->rx.bytes);
}

/* ---- the sender, here ---- */

static int tx_start(struct stream_run *x, uint8_t *key)
{
	struct stream_tx *tx = &x->shm->tx;

	snprintf(tx->congestion, sizeof(tx->congestion), "%s", x->p->congestion ? x->p->congestion : "");
	x->tx_pid = load_fork(x->tx->netns, x->tx->cpu, tx->err, sizeof(tx->err));
	if (x->tx_pid == 0)
		stream_send(tx, x->tx->addr, x->rx->addr, x->p->port, x->ta->method, x->ta->ao_alg, key,
			    STREAM_KEY_LEN);
	if (x->tx_pid < 0) {
		snprintf(x->r->error, sizeof(x->r->error), "fork: %s", strerror(errno));
		return -1;
	}
	journal_add_process(x->tx_pid);
	if (load_wait_flag(&tx->connected, x->tx_pid, 5000) < 0)
		return fail(x, tx->err[0] ? tx->err : stop_requested() ? "interrupted"
				: "the stream sender did not connect within 5 s");
	return 0;
}

static void tx_stop(struct stream_run *x)
{
	atomic_store(&x->shm->tx.stop, 1);
	/* asked to stop by its flag, not a signal: SIGTERM only after 3 s */
	wait_stop(x->tx_pid, &(struct wait_stop){ .quiet_ms = 3000, .grace_ms = 1000 });
	x->tx_pid = -1;
}

/* ---- the measured run ---- */

static void window(struct stream_run *x, int open)
{
	if (x->open_ != !!open && x->p->window)
		x->p->window(x->p->arg, open);
	x->open_ = open;
}

/* Anything that ends the run early: a signal, the sender's or the peer's end. */
static int check_alive(struct stream_run *x)
{
	char why[300];

	if (stop_requested()) {
		snprintf(why, sizeof(why), "interrupted by signal %d", stop_signal());
		return fail(x, why);
	}
	/* one look, among the run's other checks */
	if (wait_child_ended(x->tx_pid, NULL)) {
		x->tx_pid = -1;
		snprintf(why, sizeof(why), "the stream sender stopped: %.200s",
			 x->shm->tx.err[0] ? x->shm->tx.err : "no message");
		return fail(x, why);
	}
	return ep_lost(x->rx) ? fail(x, "") : 0;
}

/* From the sender's connection: the warm-up, the window, 1 s intervals of the receiver's bytes. */
static int measure(struct stream_run *x)
{
	const struct load_params *p = x->p;
	struct load_result *r = x->r;
	double t0 = mono_s(), t_open = 0, next_iv = t0 + 1;
	long long b0 = 0, b1, b, last_iv = 0;
	uint64_t s0 = 0;
	int64_t r0 = 0;

	for (;;) {
		double t = mono_s();

		if (!x->open_ && t - t0 >= p->omit_s) {
			/* the window's edges: receiver bytes, sender bytes and retransmits, then the callback */
			if ((b0 = rx_bytes(x)) < 0)
				return -1;
			t_open = mono_s();
			s0 = atomic_load(&x->shm->tx.bytes);
			r0 = atomic_load(&x->shm->tx.retrans);
			window(x, 1);
		}
		if (x->open_ && t - t_open >= p->duration_s) {
			window(x, 0);
			r->duration_s = mono_s() - t_open;
			if ((b1 = rx_bytes(x)) < 0)
				return -1;
			r->bytes = (uint64_t)(b1 - b0);
			r->sender_bps = (atomic_load(&x->shm->tx.bytes) - s0) * 8.0 / r->duration_s;
			r->retransmits = atomic_load(&x->shm->tx.retrans) - r0;
			r->throughput_bps = r->bytes * 8.0 / r->duration_s;
			/* the sender's congestion control, as its socket has it */
			memcpy(r->congestion, x->shm->tx.congestion, sizeof(r->congestion) - 1);
			return 0;
		}
		if (t >= next_iv) {
			if ((b = rx_bytes(x)) < 0)
				return -1;
			json_array_append_new(x->intervals, json_pack("{s:f, s:I}", "end", t - t0, "bytes",
								      (json_int_t)(b - last_iv)));
			last_iv = b;
			next_iv += 1;
		}
		if (p->tick)
			p->tick(p->arg);
		if (check_alive(x) < 0)
			return -1;
		/* wake at the window's edge, not up to a tick late */
		double edge = x->open_ ? t_open + p->duration_s : t0 + p->omit_s;
		int ms = (int)((edge - mono_s()) * 1000);

		sleep_ms_or_stop(ms < 1 ? 1 : ms > 100 ? 100 : ms);
	}
}

static void write_raw(struct stream_run *x)
{
	const struct load_params *p = x->p;
	const struct load_result *r = x->r;
	char path[PATH_MAX + 256];
	json_t *o;

	if (!p->raw_prefix || !*p->raw_prefix)
		return;
	snprintf(path, sizeof(path), "%sstream.json", p->raw_prefix);
	o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i}", "load", "stream", "tcp_auth",
		      x->ta->method[0] ? x->ta->method : "none", "sender", x->tx->addr, "receiver", x->rx->addr,
		      "port", p->port, "omit_s", p->omit_s, "duration_s_asked", p->duration_s, "cpu_sender",
		      x->tx->cpu, "cpu_receiver", x->rx->cpu);
	json_object_set_new(o, "end", json_pack("{s:f, s:I, s:f, s:f, s:I, s:I, s:I}", "seconds", r->duration_s,
						"bytes", (json_int_t)r->bytes, "bits_per_second", r->throughput_bps,
						"sender_bits_per_second", r->sender_bps, "retransmits",
						(json_int_t)r->retransmits, "sender_total_bytes",
						(json_int_t)atomic_load(&x->shm->tx.bytes), "receiver_total_bytes",
						(json_int_t)x->rx_total));
	json_object_set_new(json_object_get(o, "end"), "snd_mss", json_integer(atomic_load(&x->shm->tx.snd_mss)));
	json_object_set(o, "intervals", x->intervals);
	if (r->error[0])
		json_object_set_new(o, "error", json_string(r->error));
	json_dump_file(o, path, JSON_INDENT(1));
	json_decref(o);
}

static void dry_run(const struct load_params *p, const struct tcp_auth_config *ta)
{
	const struct endpoint *tx = p->tx, *rx = p->rx;
	const char *m = ta->method;

	if (ep_remote(rx))
		printf("# built-in stream: receiver by `ipsecperf peer-agent` on %s at %s:%d, sender here from %s%s\n",
		       rx->host->ssh_dest, rx->addr, p->port, tx->addr, m[0] ? ", the key sent on the agent's stdin" : "");
	else
		printf("# built-in stream: receiver in %s on %s:%d (CPU %d), sender in %s from %s (CPU %d)%s%s\n",
		       rx->netns, rx->addr, p->port, rx->cpu, tx->netns, tx->addr, tx->cpu, m[0] ? ", TCP-" : "",
		       m[0] ? (!strcmp(m, "md5") ? "MD5 key on both sockets" : "AO key on both sockets") : "");
}

static int load_stream(const struct load_params *p, struct load_result *r)
{
	static const struct tcp_auth_config none;
	struct stream_run x = { .p = p, .ta = p->sc ? &p->sc->tcp_auth : &none, .tx = p->tx, .rx = p->rx, .r = r,
				.tx_pid = -1, .rx_pid = -1 };
	uint8_t key[STREAM_KEY_LEN];
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (journal_dry_run()) {
		dry_run(p, x.ta);
		return 0;
	}
	x.shm = mmap(NULL, sizeof(*x.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x.shm == MAP_FAILED) {
		snprintf(r->error, sizeof(r->error), "mmap: %s", strerror(errno));
		return -1;
	}
	memset(x.shm, 0, sizeof(*x.shm));
	x.intervals = json_array();
	secret_hold(); /* until the key is wiped (the children keep it until their sockets have it) */
	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		snprintf(r->error, sizeof(r->error), "getrandom: %s", strerror(errno));
	} else {
		int rc = rx_start(&x, key);

		if (rc == 0)
			rc = tx_start(&x, key);
		explicit_bzero(key, sizeof(key)); /* the children and the agent have theirs */
		if (rc == 0 && measure(&x) == 0)
			err = 0;
	}
	explicit_bzero(key, sizeof(key));
	secret_release();
	window(&x, 0);
	if (err == 0 && r->bytes == 0) {
		snprintf(r->error, sizeof(r->error), "the stream receiver got no bytes in the measured window");
		err = -1;
	}
	tx_stop(&x);
	rx_stop(&x);
	write_raw(&x);
	json_decref(x.intervals);
	munmap(x.shm, sizeof(*x.shm));
	return err;
}

/* TCP-MD5/AO at endpoint e: here by trying, on the peer by its agent. */
static int tcp_auth_check_at(const struct endpoint *e, const struct scenario *sc, char *why, size_t len)
{
	if (!sc->tcp_auth.method[0])
		return 0;
	return ep_tcp_auth_check(e, sc->tcp_auth.method, sc->tcp_auth.ao_alg, tcp_auth_probe, why, len);
}

/*
 * The built-in stream (load_stream.c): one TCP connection, the sender in
 * the tx namespace writing as fast as it can, the receiver in rx counting
 * bytes; TCP_MD5SIG or TCP-AO keys (getrandom()) on both sockets when the
 * scenario's [tcp-auth] asks. Its records carry the same fields as iperf3's.
 */
const struct load_kind load_kind_stream = {
	.name = "stream",
	.title = "the built-in stream",
	.caps = LOAD_TCP_AUTH | LOAD_AGENT,
	.needs = (const struct load_need[]){ { NULL, NULL } },
	.check_at = tcp_auth_check_at,
	.run = load_stream,
};
