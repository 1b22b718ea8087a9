// SPDX-License-Identifier: GPL-2.0
/*
 * The packet-rate load, udp-rate (udp_rate.h has its sockets, rate_search.h
 * its search): small UDP datagrams from the sending end, counted at the
 * receiving end (a child there, or the peer agent's). After the warm-up
 * the offered rate is bisected, one step at a time, down to the highest
 * rate whose loss is at most the threshold; the measured window then sends
 * at that rate for --duration seconds. Loss is counted by the receiver and
 * explained by the kernel's own counters at both ends (kstat.h: UDP, IP,
 * XFRM), read at the window's edges and over the whole load.
 *
 * The scenario's [load] keys: size (the datagrams' payload, bytes; 64),
 * loss (the threshold, percent; 0.1), step-ms (a step's length; 1000),
 * steps (at most; 16) and resolution (the search stops when the highest
 * rate that passed and the lowest that failed are this close, percent; 2).
 * loss = 100 sends as fast as the sender can in one step, netperf's
 * UDP_STREAM.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "journal.h"
#include "kstat.h"
#include "load.h"
#include "load_util.h"
#include "rate_search.h"
#include "remote.h"
#include "signals.h"
#include "wait.h"
#include "udp_rate.h"

#define DRAIN_QUIET_MS 20   /* and then its count has not moved for this long (softirqs still delivering) */
#define DRAIN_MAX_MS 5000   /* a receiver that never finds its queue empty in this long: the step is counted as it is */

struct rate_cfg {
	int size, step_ms, steps;
	double loss, resolution; /* fractions */
};

struct rate_shm {
	struct udp_tx tx;
	struct udp_rx rx;
};

/* One run of the rate load. */
struct rate_run {
	const struct load_params *p;
	struct rate_cfg cfg;
	const struct endpoint *tx, *rx;
	struct load_result *r;
	struct rate_shm *shm;
	pid_t tx_pid, rx_pid;
	bool rx_started, open_;
	int step;               /* the last step's number */
	struct rate_search s;
	uint64_t received[UDP_RATE_SLOTS]; /* the receiver's counts, as last read */
	uint64_t empty_seq;                /* and its empty_seq (udp_rate.h), read before them */
	struct kstat k[2][4];   /* [sender, receiver][load start, window open, window close, load end] */
	bool k_ok[2][4];
};

/* ---- the scenario's settings ---- */

static int key_pct(const struct scenario *sc, const char *key, double def, double min, double max, double *v,
		   char *why, size_t len)
{
	const char *s = load_key(sc, key);
	char *end;

	*v = def / 100;
	if (!s)
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	if (!*s || *end || errno || !(*v >= min && *v <= max)) {
		snprintf(why, len, "[load] %s must be a percentage from %g to %g, not '%s'", key, min, max, s);
		return -1;
	}
	*v /= 100;
	return 0;
}

static int cfg_of(const struct scenario *sc, struct rate_cfg *c, char *why, size_t len)
{
	long size, step, steps;

	if (load_key_int(sc, "size", 64, UDP_RATE_MIN_SIZE, UDP_RATE_MAX_SIZE, &size, why, len) < 0 ||
	    load_key_int(sc, "step-ms", 1000, 50, 60000, &step, why, len) < 0 ||
	    load_key_int(sc, "steps", 16, 1, RATE_MAX_STEPS, &steps, why, len) < 0 ||
	    key_pct(sc, "loss", 0.1, 0, 100, &c->loss, why, len) < 0 ||
	    key_pct(sc, "resolution", 2, 0.1, 50, &c->resolution, why, len) < 0)
		return -1;
	c->size = (int)size;
	c->step_ms = (int)step;
	c->steps = (int)steps;
	return 0;
}

/* The search's steps, each with its drain: what a run takes beyond the warm-up and the window. */
static int extra_s(const struct scenario *sc)
{
	struct rate_cfg c;
	char why[200];

	if (cfg_of(sc, &c, why, sizeof(why)) < 0)
		return 0;
	return (c.steps * (c.step_ms + 4 * DRAIN_QUIET_MS) + 999) / 1000;
}

static int check_keys(const struct scenario *sc, char *why, size_t len)
{
	static const char *const keys[] = { "size", "loss", "step-ms", "steps", "resolution" };
	struct rate_cfg c;

	for (int i = 0; i < sc->nload_keys; i++) {
		size_t k = 0;

		while (k < 5 && strcmp(sc->load_keys[i].key, keys[k]))
			k++;
		if (k == 5) {
			snprintf(why, len, "unknown key '%s' in [load] (udp-rate takes size, loss, step-ms, steps and resolution)",
				 sc->load_keys[i].key);
			return -1;
		}
	}
	return cfg_of(sc, &c, why, len);
}

static int fail(struct rate_run *x, const char *why)
{
	const char *lost = ep_lost(x->rx);

	snprintf(x->r->error, sizeof(x->r->error), "%.250s", lost ?: why);
	return -1;
}

/* ---- the receiver: a child here, or the agent's on the peer ---- */

/* One request to the agent's receiver; its answer (ok), or NULL with r->error. */
static json_t *agent_ask(struct rate_run *x, json_t *req)
{
	char *line = json_dumps(req, JSON_COMPACT);
	json_t *rep = line ? x->rx->agent(x->rx->arg, line) : NULL;

	free(line);
	json_decref(req);
	if (!rep) {
		fail(x, "the agent did not answer");
		return NULL;
	}
	if (!json_is_true(json_object_get(rep, "ok"))) {
		const char *e = json_string_value(json_object_get(rep, "error")) ?: "no message";

		if (!strncmp(e, "unknown request", 15))
			snprintf(x->r->error, sizeof(x->r->error),
				 "the peer's ipsecperf has no udp-rate receiver (%.100s): install this version there", e);
		else
			snprintf(x->r->error, sizeof(x->r->error), "the peer: %.230s", e);
		json_decref(rep);
		return NULL;
	}
	return rep;
}

static int rx_start(struct rate_run *x)
{
	struct udp_rx *rx = &x->shm->rx;

	if (ep_remote(x->rx)) {
		if (!x->rx->agent)
			return fail(x, "the udp-rate load needs ipsecperf on the peer");
		json_t *rep = agent_ask(x, json_pack("{s:s, s:s, s:i, s:i}", "op", "udp-rx", "addr", x->rx->addr,
						     "port", x->p->port, "cpu", x->rx->cpu));

		x->rx_started = rep != NULL;
		json_decref(rep);
		return rep ? 0 : -1;
	}
	char why[256];

	x->rx_pid = load_fork(x->rx->netns, x->rx->cpu, rx->err, sizeof(rx->err));
	if (x->rx_pid == 0)
		udp_rate_receive(rx, x->rx->addr, x->p->port);
	if (load_child_ready(x->rx_pid, &rx->listening, rx->err, "the rate receiver did not bind within 5 s", why,
			     sizeof(why)) < 0)
		return fail(x, why);
	return 0;
}

/* The receiver's counts into x->received: 0, or -1 with why (it stopped, the peer was lost). */
static int rx_counts(struct rate_run *x)
{
	if (ep_remote(x->rx)) {
		json_t *rep = agent_ask(x, json_pack("{s:s}", "op", "udp-counts")), *a;
		int rc = 0;

		if (!rep)
			return -1;
		x->empty_seq = (uint64_t)json_integer_value(json_object_get(rep, "empty_seq"));
		a = json_object_get(rep, "received");
		for (int i = 0; i < UDP_RATE_SLOTS; i++)
			x->received[i] = (uint64_t)json_integer_value(json_array_get(a, i));
		if (!json_is_true(json_object_get(rep, "running"))) {
			snprintf(x->r->error, sizeof(x->r->error), "the rate receiver on the peer stopped: %.200s",
				 json_string_value(json_object_get(rep, "error")) ?: "no message");
			rc = -1;
		}
		json_decref(rep);
		return rc;
	}
	if (load_child_gone(&x->rx_pid, "the rate receiver", x->shm->rx.err, x->r->error, sizeof(x->r->error)) < 0)
		return -1;
	x->empty_seq = atomic_load(&x->shm->rx.empty_seq);
	for (int i = 0; i < UDP_RATE_SLOTS; i++)
		x->received[i] = atomic_load(&x->shm->rx.received[i]);
	return 0;
}

static void rx_stop(struct rate_run *x)
{
	if (ep_remote(x->rx)) {
		if (x->rx_started && !ep_lost(x->rx))
			json_decref(agent_ask(x, json_pack("{s:s}", "op", "udp-stop")));
		return;
	}
	load_child_stop(&x->rx_pid, &x->shm->rx.stop, 1);
}

/* ---- the sender, here, and the steps ---- */

static int tx_start(struct rate_run *x)
{
	struct udp_tx *tx = &x->shm->tx;

	char why[256];

	x->tx_pid = load_fork(x->tx->netns, x->tx->cpu, tx->err, sizeof(tx->err));
	if (x->tx_pid == 0)
		udp_rate_send(tx, x->tx->addr, x->rx->addr, x->p->port, x->cfg.size);
	if (load_child_ready(x->tx_pid, &tx->ready, tx->err, "the rate sender did not start within 5 s", why,
			     sizeof(why)) < 0)
		return fail(x, why);
	return 0;
}

static int check_alive(struct rate_run *x)
{
	char why[300];

	if (load_child_gone(&x->tx_pid, "the rate sender", x->shm->tx.err, why, sizeof(why)) < 0)
		return fail(x, why);
	return ep_lost(x->rx) ? fail(x, "") : 0;
}

/* Wait ms, ticking and watching both ends: 0, or -1 with why. */
static int rate_wait(struct rate_run *x, double until_s)
{
	for (double t; (t = mono_s()) < until_s;) {
		int ms = (int)((until_s - t) * 1000);

		if (x->p->tick)
			x->p->tick(x->p->arg);
		if (check_alive(x) < 0)
			return -1;
		sleep_ms_or_stop(ms < 1 ? 1 : ms > 100 ? 100 : ms);
	}
	return 0;
}

/*
 * The step's datagrams all in: the receiver has found its queue empty
 * since the sender paused (empty0, read then), and its count has not moved
 * for DRAIN_QUIET_MS after that; at most DRAIN_MAX_MS.
 */
static int drain(struct rate_run *x, int slot, uint64_t empty0)
{
	uint64_t last = UINT64_MAX;

	for (int t = 0; t < DRAIN_MAX_MS; t += DRAIN_QUIET_MS) {
		if (rx_counts(x) < 0)
			return -1;
		if (x->empty_seq > empty0 && x->received[slot] == last)
			return 0;
		last = x->empty_seq > empty0 ? x->received[slot] : UINT64_MAX;
		sleep_ms_or_stop(DRAIN_QUIET_MS);
	}
	return 0;
}

static void kstat_mark(struct rate_run *x, int at)
{
	x->k_ok[0][at] = kstat_read_ep(x->tx, &x->k[0][at]) == 0;
	x->k_ok[1][at] = kstat_read_ep(x->rx, &x->k[1][at]) == 0;
}

/*
 * One step at pps (0: as fast as the sender can) for ms; window: the
 * measured one, opened and closed around it. The step's sent and received
 * counts and its seconds; 0, or -1 with why.
 */
static int step(struct rate_run *x, double pps, int ms, bool window, uint64_t *sent, uint64_t *rcvd, double *secs)
{
	struct udp_tx *tx = &x->shm->tx;
	int slot = ++x->step % UDP_RATE_SLOTS;
	double t0, t1;

	atomic_store(&tx->sent[slot], 0);
	atomic_store(&tx->failed[slot], 0);
	/* the receiver's count of this slot before the step: a slot is used again after UDP_RATE_SLOTS steps */
	if (rx_counts(x) < 0)
		return -1;
	uint64_t before = x->received[slot];

	if (window) {
		kstat_mark(x, 1);
		x->p->window(x->p->arg, 1);
		x->open_ = true;
	}
	atomic_store(&tx->step, x->step);
	atomic_store(&tx->pps, (uint64_t)llround(pps));
	atomic_store(&tx->go, UDP_SEND);
	t0 = mono_s();
	int rc = rate_wait(x, t0 + ms / 1000.0);

	if (udp_rate_pause(tx, 5000) < 0 && rc == 0)
		rc = fail(x, tx->err[0] ? tx->err : "the rate sender did not pause within 5 s");
	t1 = mono_s();
	/* where the receiver's look for an empty queue stood once the last datagram was sent */
	uint64_t empty0 = rc == 0 && rx_counts(x) == 0 ? x->empty_seq : UINT64_MAX - 1;
	if (window) {
		x->p->window(x->p->arg, 0);
		x->open_ = false;
	}
	if (rc < 0 || drain(x, slot, empty0) < 0)
		return -1;
	if (window)
		kstat_mark(x, 2);
	*sent = atomic_load(&tx->sent[slot]);
	*rcvd = x->received[slot] - before;
	*secs = t1 - t0;
	return 0;
}

/* The warm-up (as fast as it can, not counted) and the search; -1 with why. */
static int search(struct rate_run *x)
{
	uint64_t sent, rcvd;
	double secs, pps;

	if (x->p->omit_s > 0 && step(x, 0, x->p->omit_s * 1000, false, &sent, &rcvd, &secs) < 0)
		return -1;
	rate_search_init(&x->s, x->cfg.loss, x->cfg.resolution, x->cfg.steps);
	while ((pps = rate_search_next(&x->s)) >= 0) {
		if (step(x, pps, x->cfg.step_ms, false, &sent, &rcvd, &secs) < 0)
			return -1;
		rate_search_step(&x->s, pps, sent, rcvd, secs);
	}
	return 0;
}

/* A step as the record has it. */
static json_t *step_json(const struct rate_step *st)
{
	return json_pack("{s:f, s:f, s:I, s:I, s:f, s:f, s:b}", "offered_pps", st->offered_pps, "seconds", st->seconds,
			 "sent", (json_int_t)st->sent, "received", (json_int_t)st->received, "sent_pps", st->sent_pps,
			 "loss", st->loss, "pass", st->pass);
}

static json_t *search_json(const struct rate_run *x)
{
	const struct rate_step *b = rate_search_best(&x->s);
	json_t *steps = json_array();

	for (int i = 0; i < x->s.nsteps; i++)
		json_array_append_new(steps, step_json(&x->s.step[i]));
	return json_pack("{s:f, s:f, s:i, s:i, s:o, s:o, s:o}", "loss_threshold", x->cfg.loss, "resolution",
			 x->cfg.resolution, "step_ms", x->cfg.step_ms, "nsteps", x->s.nsteps, "found_pps",
			 b ? json_real(b->sent_pps) : json_null(), "found_bps",
			 b ? json_real(b->sent_pps * x->cfg.size * 8) : json_null(), "steps", steps);
}

/* The kernel's counters that moved between two marks, at both ends: {"sender": {...}, "receiver": {...}}. */
static json_t *kstat_json(const struct rate_run *x, int from, int to)
{
	json_t *o = json_object();

	for (int e = 0; e < 2; e++)
		json_object_set_new(o, e ? "receiver" : "sender",
				    x->k_ok[e][from] && x->k_ok[e][to] ? kstat_delta(&x->k[e][from], &x->k[e][to])
								       : json_null());
	return o;
}

/* The record's keys: the window at the rate found, the search, the kernel's counts in the window. */
static json_t *result_json(const struct rate_run *x, uint64_t sent, uint64_t rcvd, double offered)
{
	const struct load_result *r = x->r;

	return json_pack("{s:i, s:I, s:I, s:f, s:f, s:f, s:o, s:o}", "datagram_bytes", x->cfg.size, "datagrams",
			 (json_int_t)rcvd, "datagrams_sent", (json_int_t)sent, "datagrams_per_s", rcvd / r->duration_s,
			 "offered_pps", offered, "loss", sent && rcvd < sent ? (double)(sent - rcvd) / sent : 0.0,
			 "rate_search", search_json(x), "kernel_drops", kstat_json(x, 1, 2));
}

static void write_raw(const struct rate_run *x)
{
	const struct load_params *p = x->p;
	int fd = raw_open(p->raw_prefix, "udp-rate.json");
	json_t *o;

	if (fd < 0)
		return;
	o = json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:o}", "load", "udp-rate", "datagram_bytes",
		      x->cfg.size, "sender", x->tx->addr, "receiver", x->rx->addr, "port", p->port, "omit_s", p->omit_s,
		      "duration_s_asked", p->duration_s, "cpu_sender", x->tx->cpu, "cpu_receiver", x->rx->cpu,
		      "rate_search", search_json(x));
	if (x->r->error[0])
		json_object_set_new(o, "error", json_string(x->r->error));
	json_dumpfd(o, fd, JSON_INDENT(1));
	close(fd);
	json_decref(o);
}

static void dry_run(const struct rate_run *x)
{
	const struct endpoint *tx = x->tx, *rx = x->rx;

	printf("# udp-rate (built in): %d-byte datagrams from %s to %s:%d (receiver %s), the highest rate with "
	       "at most %g%% loss in steps of %d ms (at most %d), then --duration seconds at it\n",
	       x->cfg.size, tx->addr, rx->addr, x->p->port,
	       ep_remote(rx) ? "by `ipsecperf peer-agent` on the peer" : rx->netns, x->cfg.loss * 100,
	       x->cfg.step_ms, x->cfg.steps);
}

/* The search, then the window at the rate found; r filled. */
static int measure(struct rate_run *x)
{
	const struct rate_step *b;
	uint64_t sent, rcvd;
	double secs;

	if (search(x) < 0)
		return -1;
	if (!(b = rate_search_best(&x->s))) {
		char why[200];

		snprintf(why, sizeof(why), "no offered rate lost at most %g%% (%d steps, down to %.0f datagrams/s)",
			 x->cfg.loss * 100, x->s.nsteps, x->s.nsteps ? x->s.step[x->s.nsteps - 1].sent_pps : 0.0);
		return fail(x, why);
	}
	double offered = b->offered_pps;

	if (step(x, offered, x->p->duration_s * 1000, true, &sent, &rcvd, &secs) < 0)
		return -1;
	x->r->duration_s = secs;
	x->r->bytes = rcvd * (uint64_t)x->cfg.size;
	x->r->throughput_bps = x->r->bytes * 8.0 / secs;
	x->r->sender_bps = sent * (double)x->cfg.size * 8 / secs;
	if (!rcvd)
		return fail(x, "the rate receiver got nothing in the measured window");
	x->r->extra = result_json(x, sent, rcvd, offered ? offered : b->sent_pps);
	return 0;
}

static int run_rate(const struct load_params *p, struct load_result *r)
{
	struct rate_run x = { .p = p, .tx = p->tx, .rx = p->rx, .r = r, .tx_pid = -1, .rx_pid = -1 };
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (cfg_of(p->sc, &x.cfg, r->error, sizeof(r->error)) < 0)
		return -1;
	if (journal_dry_run()) {
		dry_run(&x);
		return 0;
	}
	x.shm = mmap(NULL, sizeof(*x.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x.shm == MAP_FAILED) {
		snprintf(r->error, sizeof(r->error), "mmap: %s", strerror(errno));
		return -1;
	}
	memset(x.shm, 0, sizeof(*x.shm));
	kstat_mark(&x, 0);
	if (rx_start(&x) == 0 && tx_start(&x) == 0 && measure(&x) == 0)
		err = 0;
	if (x.open_)
		p->window(p->arg, 0);
	load_child_stop(&x.tx_pid, &x.shm->tx.go, UDP_QUIT);
	rx_stop(&x);
	kstat_mark(&x, 3);
	if (err == 0) /* the whole load's kernel counts, now that it is over */
		json_object_set_new(r->extra, "kernel_drops_load", kstat_json(&x, 0, 3));
	write_raw(&x);
	munmap(x.shm, sizeof(*x.shm));
	return err;
}

/* ---- the receiver on the peer: the agent's requests ---- */

static void agent_end(void **state)
{
	struct load_agent *a = *state;

	if (a)
		load_child_stop(&a->pid, &((struct udp_rx *)a->page)->stop, 1);
}

static json_t *agent_rx(json_t *req, void **state)
{
	struct load_agent *a = load_agent_of(state, sizeof(struct udp_rx));
	struct udp_rx *rx = a ? a->page : NULL;
	int port, cpu;
	const char *addr = json_string_value(json_object_get(req, "addr")), *bad = load_agent_where(req, &port, &cpu);
	char why[200];

	if (!a)
		return json_pack("{s:b, s:s}", "ok", 0, "error", "out of memory");
	agent_end(state);
	if (bad) {
		snprintf(why, sizeof(why), "udp-rx: %s", bad);
		return json_pack("{s:b, s:s}", "ok", 0, "error", why);
	}
	memset(rx, 0, sizeof(*rx));
	a->pid = load_fork(NULL, cpu, rx->err, sizeof(rx->err));
	if (a->pid == 0)
		udp_rate_receive(rx, addr, port);
	return load_agent_started(a, &rx->listening, &rx->stop, rx->err, "the rate receiver did not bind within 5 s");
}

static json_t *agent_counts(json_t *req, void **state)
{
	struct load_agent *a = *state;
	struct udp_rx *rx = a ? a->page : NULL;
	bool running = load_agent_running(a);
	json_t *c = json_array();

	json_int_t empty = rx ? (json_int_t)atomic_load(&rx->empty_seq) : 0; /* before the counts */

	(void)req;
	for (int i = 0; i < UDP_RATE_SLOTS; i++)
		json_array_append_new(c, json_integer(rx ? (json_int_t)rx->received[i] : 0));
	return json_pack("{s:b, s:o, s:I, s:b, s:s}", "ok", 1, "received", c, "empty_seq", empty, "running", running,
			 "error", rx ? rx->err : "no receiver");
}

static json_t *agent_stop(json_t *req, void **state)
{
	(void)req;
	agent_end(state);
	return json_pack("{s:b}", "ok", 1);
}

const struct load_kind load_kind_udp_rate = {
	.name = "udp-rate",
	.title = "the packet-rate load udp-rate",
	.caps = LOAD_AGENT | LOAD_ONE_WAY,
	.needs = (const struct load_need[]){ { NULL, NULL } },
	.run = run_rate,
	.check_keys = check_keys,
	.extra_s = extra_s,
	.unit = "datagram",
	.agent_ops = (const struct load_agent_op[]){ { "udp-rx", agent_rx },
						    { "udp-counts", agent_counts },
						    { "udp-stop", agent_stop },
						    { NULL, NULL } },
	.agent_end = agent_end,
};
