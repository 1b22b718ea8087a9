// SPDX-License-Identifier: GPL-2.0
/*
 * The request/response loads, tcp-rr, tcp-crr and udp-rr (rr.h has their
 * sockets): the requester a child here, pinned in the sending namespace;
 * the responder a child at the receiving end, here in its namespace or on
 * the peer by its agent. The figures are transactions per second and the
 * latency of each transaction from a histogram with a bounded error
 * (histogram.h); the warm-up's transactions are in neither. Three entries
 * of the table of loads, one run.
 *
 * The scenario's [load] keys: request and response, the sizes in bytes (1
 * each by default, as netperf's).
 */
#include <errno.h>
#include <limits.h>
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
#include "load.h"
#include "load_util.h"
#include "remote.h"
#include "rr.h"
#include "signals.h"
#include "wait.h"

/* Shared between the parent and its children here (MAP_SHARED). */
struct rr_shm {
	struct rr_server sv;
	struct rr_client cl;
};

/* One run of a request/response load. */
struct rr_run {
	const struct load_params *p;
	struct rr_spec spec;
	const struct endpoint *tx, *rx;
	struct load_result *r;
	struct rr_shm *shm;
	pid_t tx_pid, rx_pid;  /* rx_pid: the responder here */
	bool rx_started;       /* the agent's responder, on the peer */
	bool open_;
	uint64_t served, warmup;
	double t_open, t_close;
};

static const char *const quantile_names[] = { "p50", "p90", "p99", "p99.9" };
static const double quantiles[] = { 0.5, 0.9, 0.99, 0.999 };

/* The scenario's sizes for kind: 0, or -1 with why. */
static int spec_of(const struct scenario *sc, enum rr_kind kind, struct rr_spec *s, char *why, size_t len)
{
	long req, resp;
	int max = kind == RR_UDP ? RR_MAX_UDP_SIZE : RR_MAX_SIZE;

	s->kind = kind;
	if (load_key_int(sc, "request", 1, 1, max, &req, why, len) < 0 ||
	    load_key_int(sc, "response", 1, 1, max, &resp, why, len) < 0)
		return -1;
	s->req = (int)req;
	s->resp = (int)resp;
	return rr_spec_check(s, why, len);
}

static int check_keys(const struct scenario *sc, enum rr_kind kind, char *why, size_t len)
{
	struct rr_spec s;

	for (int i = 0; i < sc->nload_keys; i++)
		if (strcmp(sc->load_keys[i].key, "request") && strcmp(sc->load_keys[i].key, "response")) {
			snprintf(why, len, "unknown key '%s' in [load] (%s takes request and response)",
				 sc->load_keys[i].key, rr_kind_names[kind]);
			return -1;
		}
	return spec_of(sc, kind, &s, why, len);
}

static int fail(struct rr_run *x, const char *why)
{
	const char *lost = ep_lost(x->rx);

	snprintf(x->r->error, sizeof(x->r->error), "%.250s", lost ?: why);
	return -1;
}

/* ---- the responder: a child here, or the agent's on the peer ---- */

static int rx_start(struct rr_run *x)
{
	struct rr_server *sv = &x->shm->sv;

	if (ep_remote(x->rx)) {
		json_t *req, *rep;
		char *line;

		if (!x->rx->agent)
			return fail(x, "the request/response loads need ipsecperf on the peer");
		req = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i}", "op", "rr-serve", "kind", rr_kind_names[x->spec.kind],
				"addr", x->rx->addr, "port", x->p->port, "request", x->spec.req, "response", x->spec.resp,
				"cpu", x->rx->cpu);
		line = json_dumps(req, JSON_COMPACT);
		json_decref(req);
		rep = line ? x->rx->agent(x->rx->arg, line) : NULL;
		free(line);
		if (!rep)
			return fail(x, "the agent did not answer");
		x->rx_started = json_is_true(json_object_get(rep, "ok"));
		const char *e = json_string_value(json_object_get(rep, "error")) ?: "the responder did not start";

		if (!x->rx_started && !strncmp(e, "unknown request", 15))
			snprintf(x->r->error, sizeof(x->r->error),
				 "the peer's ipsecperf has no %s responder (%.100s): install this version there",
				 rr_kind_names[x->spec.kind], e);
		else if (!x->rx_started)
			snprintf(x->r->error, sizeof(x->r->error), "the peer: %.230s", e);
		json_decref(rep);
		return x->rx_started ? 0 : -1;
	}
	char why[256];

	x->rx_pid = load_fork(x->rx->netns, x->rx->cpu, sv->err, sizeof(sv->err));
	if (x->rx_pid == 0)
		rr_serve(sv, &x->spec, x->rx->addr, x->p->port);
	if (load_child_ready(x->rx_pid, &sv->listening, sv->err, "the responder did not listen within 5 s", why,
			     sizeof(why)) < 0)
		return fail(x, why);
	return 0;
}

/* The agent's answer about its responder (op "rr-served" or "rr-stop"): 0 running, -1 with why. */
static int rx_agent_ask(struct rr_run *x, const char *op, bool stop)
{
	char line[64];
	json_t *r;
	int rc = -1;

	snprintf(line, sizeof(line), "{\"op\":\"%s\"}", op);
	r = x->rx->agent(x->rx->arg, line);
	if (r && json_is_true(json_object_get(r, "ok"))) {
		const char *e = json_string_value(json_object_get(r, "error"));

		x->served = (uint64_t)json_integer_value(json_object_get(r, "served"));
		rc = stop || json_is_true(json_object_get(r, "running")) ? 0 : -1;
		if (rc < 0)
			snprintf(x->r->error, sizeof(x->r->error), "the responder on the peer stopped: %.200s",
				 e && *e ? e : "no message");
	} else {
		fail(x, "the agent did not answer");
	}
	json_decref(r);
	return rc;
}

/* Is the responder still there? 0, or -1 with r->error. */
static int rx_alive(struct rr_run *x)
{
	if (ep_remote(x->rx))
		return rx_agent_ask(x, "rr-served", false);
	return load_child_gone(&x->rx_pid, "the responder", x->shm->sv.err, x->r->error, sizeof(x->r->error));
}

static void rx_stop(struct rr_run *x)
{
	if (ep_remote(x->rx)) {
		if (x->rx_started && !ep_lost(x->rx))
			rx_agent_ask(x, "rr-stop", true);
		return;
	}
	load_child_stop(&x->rx_pid, &x->shm->sv.stop, 1);
	x->served = atomic_load(&x->shm->sv.served);
}

/* ---- the requester, here, and the measured window ---- */

static int tx_start(struct rr_run *x)
{
	struct rr_client *cl = &x->shm->cl;

	char why[256];

	x->tx_pid = load_fork(x->tx->netns, x->tx->cpu, cl->err, sizeof(cl->err));
	if (x->tx_pid == 0)
		rr_request(cl, &x->spec, x->tx->addr, x->rx->addr, x->p->port);
	if (load_child_ready(x->tx_pid, &cl->ready, cl->err, "the requester did not connect within 5 s", why,
			     sizeof(why)) < 0)
		return fail(x, why);
	return 0;
}

static int check_alive(struct rr_run *x)
{
	char why[300];

	if (load_child_gone(&x->tx_pid, "the requester", x->shm->cl.err, why, sizeof(why)) < 0)
		return fail(x, why);
	return ep_lost(x->rx) ? fail(x, "") : rx_alive(x);
}

/*
 * The warm-up, then the window: transactions count from just after the
 * window's callback has opened it (CPU accounting starts last there) to
 * just before it closes it (CPU accounting stops first), so that both
 * cover one interval.
 */
static int measure(struct rr_run *x)
{
	const struct load_params *p = x->p;
	struct rr_client *cl = &x->shm->cl;
	double t0 = mono_s();

	for (;;) {
		double t = mono_s();

		if (!x->open_ && t - t0 >= p->omit_s) {
			if (p->window)
				p->window(p->arg, 1);
			x->open_ = true;
			x->warmup = atomic_load(&cl->transactions);
			atomic_store(&cl->phase, RR_MEASURE);
			x->t_open = mono_s();
		}
		if (x->open_ && t - x->t_open >= p->duration_s) {
			atomic_store(&cl->phase, RR_STOP);
			x->t_close = mono_s();
			if (p->window)
				p->window(p->arg, 0);
			x->open_ = false;
			return 0;
		}
		if (p->tick)
			p->tick(p->arg);
		if (check_alive(x) < 0)
			return -1;
		double edge = x->open_ ? x->t_open + p->duration_s : t0 + p->omit_s;
		int ms = (int)((edge - mono_s()) * 1000);

		sleep_ms_or_stop(ms < 1 ? 1 : ms > 100 ? 100 : ms);
	}
}

/* The record's keys: the transactions, their rate and their latency. */
static json_t *result_json(struct rr_run *x)
{
	const struct rr_client *cl = &x->shm->cl;
	const struct histogram *h = &cl->hist;
	json_t *lat = json_object();

	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		json_object_set_new(lat, quantile_names[i], json_real(hist_quantile(h, quantiles[i])));
	json_object_set_new(lat, "max", json_real((double)h->max));
	json_object_set_new(lat, "min", json_real((double)h->min));
	json_object_set_new(lat, "mean", json_real(hist_mean(h)));
	return json_pack("{s:I, s:f, s:i, s:i, s:o, s:o, s:f, s:I}", "transactions", (json_int_t)cl->measured,
			 "transactions_per_s", x->r->duration_s > 0 ? cl->measured / x->r->duration_s : 0.0,
			 "request_bytes", x->spec.req, "response_bytes", x->spec.resp, "latency_ns", lat,
			 "latency_cdf", hist_cdf_json(h), "latency_rel_error", HIST_REL_ERROR, "lost_transactions",
			 (json_int_t)cl->lost);
}

static void write_raw(struct rr_run *x)
{
	const struct load_params *p = x->p;
	const struct rr_client *cl = &x->shm->cl;
	int fd = raw_open(p->raw_prefix, "rr.json");
	json_t *o;

	if (fd < 0)
		return;
	o = json_pack("{s:s, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:f, s:I, s:I, s:I, s:I, s:I, s:o}", "load",
		      rr_kind_names[x->spec.kind], "request_bytes", x->spec.req, "response_bytes", x->spec.resp,
		      "sender", x->tx->addr, "receiver", x->rx->addr, "port", p->port, "omit_s", p->omit_s,
		      "duration_s_asked", p->duration_s, "cpu_sender", x->tx->cpu, "cpu_receiver", x->rx->cpu,
		      "duration_s", x->r->duration_s, "warmup_transactions", (json_int_t)x->warmup,
		      "transactions_all", (json_int_t)cl->transactions, "measured", (json_int_t)cl->measured,
		      "lost_all", (json_int_t)cl->lost_all, "served", (json_int_t)x->served, "histogram",
		      hist_json(&cl->hist, "ns"));
	if (x->r->error[0])
		json_object_set_new(o, "error", json_string(x->r->error));
	json_dumpfd(o, fd, JSON_INDENT(1));
	close(fd);
	json_decref(o);
}

static void dry_run(const struct rr_run *x)
{
	const struct endpoint *tx = x->tx, *rx = x->rx;

	if (ep_remote(rx))
		printf("# %s (built in): responder by `ipsecperf peer-agent` on %s at %s:%d, requester here from %s; "
		       "requests of %d bytes, responses of %d\n", rr_kind_names[x->spec.kind], rx->host->ssh_dest,
		       rx->addr, x->p->port, tx->addr, x->spec.req, x->spec.resp);
	else
		printf("# %s (built in): responder in %s on %s:%d (CPU %d), requester in %s from %s (CPU %d); "
		       "requests of %d bytes, responses of %d\n", rr_kind_names[x->spec.kind], rx->netns, rx->addr,
		       x->p->port, rx->cpu, tx->netns, tx->addr, tx->cpu, x->spec.req, x->spec.resp);
}

static int rr_load(const struct load_params *p, struct load_result *r, enum rr_kind kind)
{
	struct rr_run x = { .p = p, .tx = p->tx, .rx = p->rx, .r = r, .tx_pid = -1, .rx_pid = -1 };
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (spec_of(p->sc, kind, &x.spec, r->error, sizeof(r->error)) < 0)
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
	if (rx_start(&x) == 0 && tx_start(&x) == 0 && measure(&x) == 0)
		err = 0;
	if (x.open_ && p->window)
		p->window(p->arg, 0);
	/* the requester ends its transaction and exits; then it is safe to read its histogram */
	load_child_stop(&x.tx_pid, &x.shm->cl.phase, RR_STOP);
	rx_stop(&x);
	r->duration_s = x.t_close - x.t_open;
	if (err == 0 && x.shm->cl.measured == 0) {
		snprintf(r->error, sizeof(r->error), "no transaction completed in the measured window");
		err = -1;
	}
	if (err == 0) {
		r->bytes = x.shm->cl.measured * (uint64_t)(x.spec.req + x.spec.resp);
		r->throughput_bps = r->sender_bps = r->bytes * 8.0 / r->duration_s;
		r->extra = result_json(&x);
	}
	write_raw(&x);
	munmap(x.shm, sizeof(*x.shm));
	return err;
}

/* ---- the responder on the peer: the agent's requests ---- */

static void agent_end(void **state)
{
	struct load_agent *a = *state;

	if (a)
		load_child_stop(&a->pid, &((struct rr_server *)a->page)->stop, 1);
}

/* A size of the request: a whole number up to INT_MAX, else -1 (which rr_spec_check refuses). */
static int size_of(json_t *req, const char *key)
{
	json_t *v = json_object_get(req, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT_MAX
		       ? (int)json_integer_value(v)
		       : -1;
}

static json_t *agent_serve(json_t *req, void **state)
{
	struct load_agent *a = load_agent_of(state, sizeof(struct rr_server));
	struct rr_server *sv = a ? a->page : NULL;
	int kind = rr_kind_of(json_string_value(json_object_get(req, "kind")) ?: ""), port, cpu;
	struct rr_spec s = { .req = size_of(req, "request"), .resp = size_of(req, "response") };
	const char *addr = json_string_value(json_object_get(req, "addr")), *bad = load_agent_where(req, &port, &cpu);
	char why[200];

	if (!a)
		return json_pack("{s:b, s:s}", "ok", 0, "error", "out of memory");
	agent_end(state);
	s.kind = kind < 0 ? RR_TCP : (enum rr_kind)kind;
	if (kind < 0 || bad || rr_spec_check(&s, why, sizeof(why)) < 0) {
		if (kind < 0 || bad)
			snprintf(why, sizeof(why), "rr-serve: %s", kind < 0 ? "unknown kind" : bad);
		return json_pack("{s:b, s:s}", "ok", 0, "error", why);
	}
	memset(sv, 0, sizeof(*sv));
	a->pid = load_fork(NULL, cpu, sv->err, sizeof(sv->err));
	if (a->pid == 0)
		rr_serve(sv, &s, addr, port);
	return load_agent_started(a, &sv->listening, &sv->stop, sv->err, "the responder did not listen within 5 s");
}

static json_t *agent_served(json_t *req, void **state)
{
	struct load_agent *a = *state;
	struct rr_server *sv = a ? a->page : NULL;
	bool running = load_agent_running(a);

	(void)req;
	return json_pack("{s:b, s:I, s:b, s:s}", "ok", 1, "served", (json_int_t)(sv ? sv->served : 0), "running",
			 running, "error", sv ? sv->err : "no responder");
}

static json_t *agent_stop(json_t *req, void **state)
{
	struct load_agent *a = *state;
	struct rr_server *sv = a ? a->page : NULL;

	(void)req;
	agent_end(state);
	return json_pack("{s:b, s:I, s:s}", "ok", 1, "served", (json_int_t)(sv ? sv->served : 0), "error",
			 sv ? sv->err : "");
}

static const struct load_agent_op agent_ops[] = {
	{ "rr-serve", agent_serve },
	{ "rr-served", agent_served },
	{ "rr-stop", agent_stop },
	{ NULL, NULL },
};

/* ---- the three entries of the table of loads ---- */

static int run_tcp_rr(const struct load_params *p, struct load_result *r)
{
	return rr_load(p, r, RR_TCP);
}

static int run_tcp_crr(const struct load_params *p, struct load_result *r)
{
	return rr_load(p, r, RR_TCP_CRR);
}

static int run_udp_rr(const struct load_params *p, struct load_result *r)
{
	return rr_load(p, r, RR_UDP);
}

static int keys_tcp_rr(const struct scenario *sc, char *why, size_t len)
{
	return check_keys(sc, RR_TCP, why, len);
}

static int keys_tcp_crr(const struct scenario *sc, char *why, size_t len)
{
	return check_keys(sc, RR_TCP_CRR, why, len);
}

static int keys_udp_rr(const struct scenario *sc, char *why, size_t len)
{
	return check_keys(sc, RR_UDP, why, len);
}

#define RR_ENTRY(n, t, r, k)                                                                               \
	{ .name = n, .title = t, .caps = LOAD_AGENT, .needs = (const struct load_need[]){ { NULL, NULL } },  \
	  .run = r, .check_keys = k, .unit = "transaction", .agent_ops = agent_ops, .agent_end = agent_end }

const struct load_kind load_kind_tcp_rr = RR_ENTRY("tcp-rr", "the request/response load tcp-rr", run_tcp_rr,
						   keys_tcp_rr);
const struct load_kind load_kind_tcp_crr = RR_ENTRY("tcp-crr", "the request/response load tcp-crr", run_tcp_crr,
						    keys_tcp_crr);
const struct load_kind load_kind_udp_rr = RR_ENTRY("udp-rr", "the request/response load udp-rr", run_udp_rr,
						   keys_udp_rr);
