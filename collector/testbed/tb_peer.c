// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed as the matrix sees it (matrix.h): the testbed itself
 * (testbed_peer.h: checks, agent, endpoints) and, here, a run's own state
 * (struct tb_peer) and what a scenario and a run do on it: offloads on
 * both NICs, the IPsec set-up (ipsec.c, over the two endpoints), the
 * receiver's CPU and the SAs' counters at the window's edges, and the
 * records with both hosts' figures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "ipsec.h"
#include "journal.h"
#include "link_mtu.h"
#include "load.h"
#include "log.h"
#include "matrix.h"
#include "clock.h"
#include "offload.h"
#include "options.h"
#include "probes.h"
#include "remote.h"
#include "setup.h"
#include "testbed_peer.h"

/*
 * The peer testbed in a run: the peer (testbed_peer.h) and what the run
 * keeps beside it, the scenario's SAs, the probes on both ends and the
 * window of the run in progress.
 */
struct tb_peer {
	struct peer *p;
	struct peer_view v;        /* what the run reads of p */
	struct ipsec_sas *sas;     /* the scenario's SAs, at both ends (ipsec.c) */
	bool no_probes;            /* --no-probes: none here, none on the peer */
	bool peer_probes;          /* the agent's probes attached for this scenario */
	bool peer_probes_off;      /* detached for the probe-less half of --probe-overhead */
	double last_ping;          /* when the agent was last pinged (monotonic seconds) */
	/* the run in progress, from the matrix's run_begin to its run_end */
	struct peer_window {
		json_t *rec;
		bool rx_ok;                /* the receiver's CPU was read at both edges */
		char rx_why[300];
		long long stat0;           /* without the agent: /proc/stat busy ticks of the peer */
		double rx_busy_s;
		double rx_cpu_s[CPU_MAX]; /* the agent's busy seconds per CPU, rx_ncpu of them (0: none sent) */
		int rx_ncpu;
		uint64_t rx_cycles;
		bool rx_have_cycles;
		char rx_method[32];
		/*
		 * The SAs' counters since the load began, at the window's edges; the
		 * whole load (quiet at both ends, so exact) is kept as "sa_load", as
		 * the netns testbed does.
		 */
		json_t *sa_open, *sa_close;
		int sa_rc;
		char sa_why[400];
	} w;
};

/* Was the peer lost (ssh died)? Every later run fails then. */
static bool lost(const struct tb_peer *t)
{
	return peer_lost_why(t->p) != NULL;
}

/* a's SAs and b's (both taken; either may be NULL: an edge that could not be read) */
static json_t *sa_join(json_t *a, json_t *b)
{
	if (!a || !b) {
		json_decref(a);
		json_decref(b);
		return NULL;
	}
	json_array_extend(a, b);
	json_decref(b);
	return a;
}

/*
 * An agent's cpu-start or cpu-stop, with the peer's SAs read there next
 * to its probes' snapshot; *there gets them, or stays NULL where the
 * agent did not read them (an older ipsecperf on the peer).
 */
static json_t *agent_edge(struct tb_peer *t, const char *op, json_t **there)
{
	json_t *r = agent_call(t->p, json_pack("{s:s, s:o}", "op", op, "sa", ipsec_sa_requests(t->sas, IPSEC_SA_THERE)));

	*there = r ? ipsec_counters_answered(t->sas, IPSEC_SA_THERE, json_object_get(r, "sa"), t->w.sa_why,
					     sizeof(t->w.sa_why))
		   : NULL;
	return r;
}

/* The peer's part of the window's edges: the SAs' counters, the receiver's CPU. */
static void peer_window_open(struct tb_peer *t)
{
	struct peer_window *w = &t->w;
	json_t *there = NULL;

	/* each host's SAs next to its own probes' snapshot: the peer's by its agent, ours last */
	json_decref(w->sa_open);
	w->sa_open = NULL;
	w->rx_ok = false;
	if (t->v.have_agent) {
		json_t *r = agent_edge(t, "cpu-start", &there);

		w->rx_ok = r && json_is_true(json_object_get(r, "ok"));
		json_decref(r);
	} else {
		there = lost(t) ? NULL : ipsec_counters_read(t->sas, IPSEC_SA_THERE, w->sa_why, sizeof(w->sa_why));
		w->stat0 = peer_stat(t->p, w->rx_why, sizeof(w->rx_why));
		w->rx_ok = w->stat0 >= 0;
	}
	if (lost(t)) {
		json_decref(there);
		return;
	}
	if (!there) /* an agent that does not read them */
		there = ipsec_counters_read(t->sas, IPSEC_SA_THERE, w->sa_why, sizeof(w->sa_why));
	w->sa_open = sa_join(there, ipsec_counters_read(t->sas, IPSEC_SA_HERE, w->sa_why, sizeof(w->sa_why)));
}

/*
 * The agent's busy seconds per CPU, taken as input from another host:
 * at most CPU_MAX finite numbers from 0, else none at all.
 */
static void rx_per_cpu(struct peer_window *w, json_t *a)
{
	size_t i;
	json_t *v;

	w->rx_ncpu = 0;
	if (!json_is_array(a) || json_array_size(a) > CPU_MAX)
		return;
	json_array_foreach(a, i, v) {
		double d = json_number_value(v);

		if (!json_is_number(v) || !isfinite(d) || d < 0) {
			w->rx_ncpu = 0;
			return;
		}
		w->rx_cpu_s[w->rx_ncpu++] = d;
	}
}

/* The receiver's CPU (and, by its agent, its probes and SAs: *there) at the window's close. */
static void peer_window_close_rx(struct tb_peer *t, json_t **there)
{
	struct peer_window *w = &t->w;

	if (!w->rx_ok)
		return;
	w->rx_ok = false;
	if (t->v.have_agent) {
		json_t *r = agent_edge(t, "cpu-stop", there);

		if (r && json_is_true(json_object_get(r, "ok"))) {
			w->rx_busy_s = json_number_value(json_object_get(r, "busy_s"));
			rx_per_cpu(w, json_object_get(r, "busy_per_cpu"));
			w->rx_cycles = (uint64_t)json_integer_value(json_object_get(r, "cycles"));
			w->rx_have_cycles = true;
			snprintf(w->rx_method, sizeof(w->rx_method), "%s",
				 json_string_value(json_object_get(r, "method")) ?: "estimated");
			w->rx_ok = true;
		}
		json_decref(r);
	} else {
		long long t1 = peer_stat(t->p, w->rx_why, sizeof(w->rx_why));

		if (t1 >= 0) {
			/* USER_HZ: 100 on every Linux architecture that /proc/stat reports in */
			w->rx_busy_s = (t1 - w->stat0) / 100.0;
			w->rx_ok = true;
		}
	}
}

static void peer_window_close(struct tb_peer *t)
{
	struct peer_window *w = &t->w;
	json_t *there = NULL;

	/* ours first, next to the probes' snapshot just taken; the peer's by its agent, next to its own */
	json_decref(w->sa_close);
	w->sa_close = lost(t) ? NULL : ipsec_counters_read(t->sas, IPSEC_SA_HERE, w->sa_why, sizeof(w->sa_why));
	peer_window_close_rx(t, &there);
	if (!there && !lost(t))
		there = ipsec_counters_read(t->sas, IPSEC_SA_THERE, w->sa_why, sizeof(w->sa_why));
	if (lost(t)) {
		json_decref(there);
		there = NULL;
	}
	w->sa_close = sa_join(w->sa_close, there);
}

static void peer_window(void *tb, int open)
{
	if (open)
		peer_window_open(tb);
	else
		peer_window_close(tb);
}

static void peer_tick(void *tb)
{
	struct tb_peer *t = tb;

	/* the agent exits after a silence (a hung connection); and a ping finds a lost one early */
	if (t->v.have_agent && !lost(t) && mono_s() - t->last_ping >= 5) {
		t->last_ping = mono_s();
		json_decref(agent_call(t->p, json_pack("{s:s}", "op", "ping")));
	}
}

/* ---- records ---- */

static void peer_record_head(void *tb, json_t *rec)
{
	struct tb_peer *t = tb;

	json_object_set_new(rec, "peer_kernel", json_string(t->v.peer_kernel));
	json_object_set_new(rec, "peer", json_string(t->v.ssh_dest));
}

/* The receiver's cycles, or why they are unknown, and the sums. */
static void record_rx_cycles(struct tb_peer *t, json_t *rec, const struct load_result *lr, uint64_t tx_cycles,
			     const char *method)
{
	struct peer_window *w = &t->w;

	if (w->rx_ok && w->rx_have_cycles) {
		json_object_set_new(rec, "cycles_receiver", json_integer((json_int_t)w->rx_cycles));
		json_object_set_new(rec, "cycles_method_receiver", json_string(w->rx_method));
		json_object_set_new(rec, "cycles_per_byte_receiver", record_cpb(w->rx_cycles, lr->bytes));
		/* the sum, comparable with the one-host testbeds' figure */
		json_object_set_new(rec, "cycles", json_integer((json_int_t)(tx_cycles + w->rx_cycles)));
		json_object_set_new(rec, "cycles_method",
				    json_string(!strcmp(method, "pmu") && !strcmp(w->rx_method, "pmu") ? "pmu" : "estimated"));
		json_object_set_new(rec, "cycles_per_byte", record_cpb(tx_cycles + w->rx_cycles, lr->bytes));
	} else {
		char why[400];

		snprintf(why, sizeof(why), "unavailable: %s", w->rx_ok ? "no agent on the peer to count its cycles"
			 : w->rx_why[0] ? w->rx_why : "the peer's CPU could not be read");
		json_object_set_new(rec, "cycles_receiver", json_null());
		json_object_set_new(rec, "cycles_method_receiver", json_string(why));
		json_object_set_new(rec, "cycles_per_byte_receiver", json_null());
		json_object_set_new(rec, "cycles", json_integer((json_int_t)tx_cycles));
		json_object_set_new(rec, "cycles_method", json_string(method));
		json_object_set_new(rec, "cycles_per_byte", json_null());
	}
}

static void peer_record_cpu(void *tb, json_t *rec, const struct load_result *lr, const struct cpu_acct *cpu)
{
	struct tb_peer *t = tb;
	const char *method;
	uint64_t tx_cycles = cpu_cycles(cpu, &method);

	/* two hosts: each figure is the whole host's CPUs, measured on that host */
	json_t *busy = json_pack("{s:f, s:o, s:o}", "sender", cpu_busy_s(cpu, -1), "receiver",
				 t->w.rx_ok ? json_real(t->w.rx_busy_s) : json_null(), "per_cpu", record_busy_per_cpu(cpu));

	if (t->w.rx_ok && t->w.rx_ncpu) {
		json_t *a = json_array();

		for (int i = 0; i < t->w.rx_ncpu; i++)
			json_array_append_new(a, json_real(t->w.rx_cpu_s[i]));
		json_object_set_new(busy, "per_cpu_receiver", a);
	}
	json_object_set_new(rec, "cpu_busy_s", busy);
	json_object_set_new(rec, "cpu_window_s", json_real(cpu_window_s(cpu)));
	/* where sender and receiver ran: pinned (--cpu-tx, --cpu-rx) or -1, where the scheduler put them */
	json_object_set_new(rec, "cpus", json_pack("{s:i, s:i}", "sender", t->v.cfg->cpu_tx, "receiver", t->v.cfg->cpu_rx));
	json_object_set_new(rec, "cycles_sender", json_integer((json_int_t)tx_cycles));
	json_object_set_new(rec, "cycles_method_sender", json_string(method));
	json_object_set_new(rec, "cycles_per_byte_sender", record_cpb(tx_cycles, lr->bytes));
	/* this host's: the peer's agent counts no instructions */
	record_instructions(rec, cpu, lr->bytes, "_sender");
	record_rx_cycles(t, rec, lr, tx_cycles, method);
}

static void peer_run_begin(void *tb, json_t *rec)
{
	struct tb_peer *t = tb;

	json_decref(t->w.sa_open); /* kept by run_end, which may be called again */
	json_decref(t->w.sa_close);
	memset(&t->w, 0, sizeof(t->w));
	t->w.rec = rec;
	ipsec_counters_begin(t->sas); /* the whole load's start: "sa_load"; the window's edges are read against it */
}

static int peer_load(void *tb, const struct scenario *sc, const struct load_params *lp, struct load_result *lr)
{
	struct tb_peer *t = tb;

	struct load_params l = *lp;

	/* the link's ends, unless the matrix gave others (an encrypted link's devices) */
	l.tx = lp->tx ? lp->tx : t->v.ep_tx;
	l.rx = lp->rx ? lp->rx : t->v.ep_rx;
	l.sc = sc;
	return load_run(&l, lr);
}

/*
 * The SAs' own counters: the whole load's ("sa_load"), and the window's
 * between its edges ("sa"). Idempotent: the edges are kept until the next
 * run_begin.
 */
static int peer_run_end(void *tb, json_t *rec, char *why, size_t len)
{
	struct tb_peer *t = tb;
	struct peer_window *w = &t->w;

	if (!lost(t))
		w->sa_rc = ipsec_counters_record(t->sas, rec, w->sa_why, sizeof(w->sa_why));
	if (!json_object_get(rec, "sa"))
		json_object_set_new(rec, "sa", json_array());
	if (w->sa_open && w->sa_close && json_array_size(json_object_get(rec, "sa"))) {
		json_object_set(rec, "sa_load", json_object_get(rec, "sa"));
		json_object_set_new(rec, "sa", probe_sa_window(w->sa_open, w->sa_close));
	}
	w->rec = NULL;
	snprintf(why, len, "%s", t->w.sa_why);
	return t->w.sa_rc < 0 ? -1 : 0;
}

/* The peer's probes at the load's edges, by its agent: its "sa_load" checks them there. */
static void peer_load_mark(void *tb, int begin)
{
	struct tb_peer *t = tb;

	if (t->peer_probes && !lost(t))
		json_decref(agent_call(t->p, json_pack("{s:s, s:b}", "op", "load-mark", "begin", begin)));
}

static bool peer_load_moved(void *tb)
{
	struct tb_peer *t = tb;
	json_t *r;
	bool moved;

	if (!t->peer_probes || lost(t))
		return false;
	r = agent_call(t->p, json_pack("{s:s}", "op", "load-moved"));
	moved = r && json_is_true(json_object_get(r, "moved"));
	json_decref(r);
	return moved;
}

/* rec's list key ("sa", "sa_load"), only the SAs of host ("sender", "receiver"). */
static json_t *sa_list_of(json_t *rec, const char *key, const char *host)
{
	json_t *sa = json_deep_copy(json_object_get(rec, key));

	for (size_t i = json_array_size(sa); i-- > 0;)
		if (strcmp(json_string_value(json_object_get(json_array_get(sa, i), "host")) ?: "", host))
			json_array_remove(sa, i);
	return sa;
}

static json_t *sa_of(json_t *rec, const char *host)
{
	return sa_list_of(rec, "sa", host);
}

/* The peer's probe_missed, as counts or null: what the peer sent is not copied as it came. */
static json_t *missed_of(json_t *m)
{
	json_t *w = json_object_get(m, "window"), *l = json_object_get(m, "load");

	return json_pack("{s:o, s:o}", "window", json_is_integer(w) ? json_integer(json_integer_value(w)) : json_null(),
			 "load", json_is_integer(l) ? json_integer(json_integer_value(l)) : json_null());
}

/* The peer's counters, by its agent, with the peer's SAs as their per-packet bases. */
static json_t *rx_counters(struct tb_peer *t, json_t *rec, const char *off_why)
{
	json_t *c = NULL;

	if (t->peer_probes && !lost(t)) {
		json_t *req = json_pack("{s:s, s:o}", "op", "probes-counters", "sa", sa_of(rec, "receiver"));

		if (json_object_get(rec, "sa_load"))
			json_object_set_new(req, "sa_load", sa_list_of(rec, "sa_load", "receiver"));
		json_t *r = agent_call(t->p, req);

		/* the peer's, taken field by field: what it sent is not copied as it came */
		if (r && json_is_object(json_object_get(r, "counters")))
			c = probes_counters_taken(json_object_get(r, "counters"));
		if (r && json_is_object(json_object_get(r, "probe_cost")))
			json_object_set_new(rec, "probe_cost_receiver", probes_cost_taken(json_object_get(r, "probe_cost")));
		if (r && json_is_object(json_object_get(r, "probe_missed")))
			json_object_set_new(rec, "probe_missed_receiver", missed_of(json_object_get(r, "probe_missed")));
		json_decref(r);
	}
	return c ? c : probes_counters_unavailable(
		t->no_probes ? "probes not loaded (--no-probes)" : t->peer_probes_off ? off_why :
		t->v.have_agent ? (lost(t) ? "the peer was lost" : "the peer's agent could not count")
			      : "no ipsecperf on the peer to load probes there");
}

static void peer_counters(void *tb, struct probes *pr, json_t *rec, const char *off_why)
{
	struct tb_peer *t = tb;

	if (pr) {
		/* the probes count this host only: their per-packet bases are this host's SAs */
		json_t *mine = json_deep_copy(rec);
		static const char *const keys[] = { "probe_missed", "probe_cost" };

		json_object_set_new(mine, "sa", sa_of(rec, "sender"));
		if (json_object_get(rec, "sa_load"))
			json_object_set_new(mine, "sa_load", sa_list_of(rec, "sa_load", "sender"));
		json_object_set_new(rec, "counters", probes_counters_json(pr, mine));
		/* what the probes add about themselves (--probe-cost) belongs to the record */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (json_object_get(mine, keys[i]))
				json_object_set(rec, keys[i], json_object_get(mine, keys[i]));
		json_decref(mine);
	} else {
		json_object_set_new(rec, "counters", probes_counters_unavailable(off_why));
	}
	json_object_set_new(rec, "counters_receiver", rx_counters(t, rec, off_why));
}

/* ---- scenarios ---- */

/* Can both kernels run sc? 0 yes; 1 no (skip, why). Changes nothing. */
static int scenario_possible(struct tb_peer *t, const struct scenario *sc, char *why, size_t len)
{
	char w[300];

	if (sc->ipsec.on && t->v.ssh_on_link) {
		snprintf(why, len, "ssh reaches the peer over the link under test (%s -> %s): the scenario's ESP policies would take the ssh connection too; reach the peer over another network (--peer on the management address)",
			 t->v.addr_tx, t->v.addr_rx);
		return 1;
	}
	if (!sc->tcp_auth.method[0] && !(load_of(sc)->caps & LOAD_AGENT))
		return 0;
	if (load_check_at(t->v.ep_tx, sc, w, sizeof(w))) {
		snprintf(why, len, "this host: %s", w);
		return 1;
	}
	if (!t->v.have_agent) {
		snprintf(why, len, "%s%s needs ipsecperf on the peer: %s", load_of(sc)->title,
			 sc->tcp_auth.method[0] ? " and its key" : "", t->v.no_agent_why);
		return 1;
	}
	if (!sc->tcp_auth.method[0])
		return 0;
	int rc = load_check_at(t->v.ep_rx, sc, w, sizeof(w));

	if (rc < 0)
		snprintf(why, len, "%s", w);
	else if (rc)
		snprintf(why, len, "the peer (%s): %s", t->v.peer_kernel, w);
	return rc;
}

/* Can both ends run sc, and can the peer make its SAs (its agent has their keys)? Changes nothing. */
static int peer_possible(void *tb, const struct scenario *sc, char *why, size_t len)
{
	struct tb_peer *t = tb;
	int rc = journal_dry_run() ? 0 : scenario_possible(t, sc, why, len); /* the peer is not reached */

	if (rc == 0 && sc->ipsec.on && !t->v.have_agent) {
		memset(t->sas, 0, sizeof(*t->sas));
		snprintf(why, len, "ESP needs ipsecperf on the peer to make its SAs (keys only on the agent's stdin): %s",
			 t->v.no_agent_why);
		return 1;
	}
	return rc;
}

static void peer_ends(void *tb, const struct endpoint **tx, const struct endpoint **rx, struct ipsec_sas **sas)
{
	struct tb_peer *t = tb;

	*tx = t->v.ep_tx;
	*rx = t->v.ep_rx;
	*sas = t->sas;
}

/* This host's probes on --dev; the peer's, by its agent, on its end of the link. */
static void peer_probes_attach(void *tb, struct probes *pr, const struct run_config *cfg)
{
	struct tb_peer *t = tb;

	bool asked = false;

	t->peer_probes_off = false;
	/* the peer loads its programs while this host loads its own: each load is half a second under TCG */
	if (t->v.have_agent && !cfg->no_probes && !cfg->dry_run && !lost(t))
		/* "kprobes" for an agent older than "set"; "esp": the scenario has SAs (t->sas, made by apply) */
		asked = agent_send(t->p, json_pack("{s:s, s:s, s:b, s:s, s:b, s:b}", "op", "probes-attach", "dev",
						t->v.cfg->peer_dev, "kprobes", cfg->probe_set != PROBE_SET_TRACEPOINTS,
						"set", probe_set_names[cfg->probe_set], "esp", t->sas && t->sas->n > 0,
						"cost", cfg->probe_cost)) == 0;
	if (pr)
		probes_attach(pr, (const char *const[]){ t->v.cfg->dev, NULL });
	if (asked) {
		json_t *r = agent_recv(t->p);

		t->peer_probes = r && json_is_true(json_object_get(r, "ok"));
		json_decref(r);
	}
}

static void peer_probes_detach(void *tb, struct probes *pr)
{
	struct tb_peer *t = tb;

	if (pr)
		probes_detach(pr);
	if (t->peer_probes && !lost(t)) /* before the undo may unload a probed module there */
		json_decref(agent_call(t->p, json_pack("{s:s}", "op", "probes-detach")));
	if (t->peer_probes)
		t->peer_probes_off = true;
	t->peer_probes = false;
}

/* Both ends' set-up into meta.json (setup.h), and each end's conditions warned about. */
static void peer_setup_meta(struct tb_peer *t, const struct run_config *c, struct results_writer *res)
{
	json_t *here = writer_setup(res, false), *far = writer_setup(res, true), *r = NULL, *s;
	char where[300];

	if (!here || !far)
		return;
	json_object_set_new(here, "nics", json_pack("[o]", setup_nic(c->dev)));
	if (t->v.have_agent)
		r = agent_call(t->p, json_pack("{s:s, s:s}", "op", "setup", "dev", c->peer_dev));
	/* the peer's answer is data */
	s = setup_sanitize(json_object_get(r, "setup"));
	if (json_is_object(s))
		json_object_update(far, s);
	else
		json_object_set_new(far, "unavailable",
				    json_string(t->v.have_agent ? "the peer's agent does not tell its set-up (another release)"
								: t->v.no_agent_why));
	writer_conditions(res, here, -1, -1, "");
	snprintf(where, sizeof(where), " on %.250s", c->peer);
	if (json_is_object(s))
		writer_conditions(res, far, -1, -1, where);
	json_decref(s);
	json_decref(r);
}

/* The peer's crypto drivers for alg, while its SAs exist; NULL without an agent. */
static json_t *peer_far_crypto(void *tb, const char *alg)
{
	struct tb_peer *t = tb;
	json_t *r, *a;

	if (!t->v.have_agent || peer_lost_why(t->p))
		return NULL;
	r = agent_call(t->p, json_pack("{s:s, s:s}", "op", "setup", "alg", alg));
	a = json_is_array(json_object_get(r, "crypto")) ? setup_sanitize(json_object_get(r, "crypto")) : NULL;
	json_decref(r);
	return a;
}

static void *peer_setup(const struct run_config *c, struct results_writer *res)
{
	struct testbed_config tc = testbed_config_of(c);
	struct tb_peer *t = calloc(1, sizeof(*t));

	if (!t || !(t->sas = calloc(1, sizeof(*t->sas))) || !(t->p = peer_open(&tc, res->meta))) {
		if (t)
			free(t->sas);
		free(t);
		return NULL;
	}
	t->v = peer_view(t->p);
	if (res->meta) {
		peer_setup_meta(t, c, res);
		writer_write_meta(res);
	}
	t->no_probes = c->no_probes;
	/*
	 * The peer loads its BPF programs (a second under TCG, the verifier
	 * twice where the first variant of the xmit program is refused) while
	 * this host loads its own; each scenario then only attaches them.
	 */
	if (t->v.have_agent && !c->no_probes && !c->dry_run && c->probe_set != PROBE_SET_KERNEL)
		agent_send_ahead(t->p, json_pack("{s:s, s:s, s:b}", "op", "probes-open", "set", probe_set_names[c->probe_set],
						 "cost", c->probe_cost));
	return t;
}

static void peer_teardown(void *tb)
{
	struct tb_peer *t = tb;

	json_decref(t->w.sa_open);
	json_decref(t->w.sa_close);
	free(t->sas);
	peer_close(t->p);
	free(t);
}

static const char *peer_lost(void *tb)
{
	return peer_lost_why(((struct tb_peer *)tb)->p);
}

const struct testbed_ops peer_testbed_ops = {
	.run_slack_s = 2.0,
	.setup = peer_setup,
	.teardown = peer_teardown,
	.ends = peer_ends,
	.possible = peer_possible,
	.lost = peer_lost,
	.probes_attach = peer_probes_attach,
	.probes_detach = peer_probes_detach,
	.record_head = peer_record_head,
	.run_begin = peer_run_begin,
	.load_mark = peer_load_mark,
	.load_moved = peer_load_moved,
	.load = peer_load,
	.window = peer_window,
	.tick = peer_tick,
	.record_cpu = peer_record_cpu,
	.run_end = peer_run_end,
	.counters = peer_counters,
	.far_crypto = peer_far_crypto,
};

/* peer: the link's two ends and the host, and the options to reach it usable */
static int peer_check(const struct run_config *c, char *why, size_t len)
{
	struct testbed_config tc = testbed_config_of(c);

	return peer_host_check(&tc, why, len);
}

/* peer: this host and another reached with ssh, over a real link. */
const struct testbed_entry testbed_peer = {
	.name = "peer",
	.mark = OPT_PEER,
	.peer = true,
	.check = peer_check,
	.ops = &peer_testbed_ops,
};
