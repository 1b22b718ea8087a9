// SPDX-License-Identifier: GPL-2.0
/* The matrix: every scenario x repeat, on any testbed's operations (matrix.h). */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enclink_run.h"
#include "ipsec.h"
#include "journal.h"
#include "kstat.h"
#include "log.h"
#include "matrix.h"
#include "apply.h"
#include "measuring.h"
#include "probes.h"
#include "profile_run.h"
#include "progress.h"
#include "setup.h"
#include "signals.h"
#include "until_ci.h"

/* One matrix: the testbed, the options, the probes. */
struct matrix {
	const struct testbed_ops *ops;
	void *tb;
	const struct run_config *cfg;
	struct results_writer *res;
	struct progress pr;
	struct probes *probes;  /* loaded once per run (probes/probes.h) */
	bool probes_off;        /* this run is the probe-less half of an overhead pair */
	bool counting;          /* this run is a counting repeat (--count-repeats) */
	json_t *overhead;       /* scenario -> {"on": [bps...], "off": [bps...], "pairs": [...]} */
	struct enclink_run el;  /* the scenario's encrypted link: the load runs over its devices */
	int failed;
	int nskipped;            /* scenarios skipped (apply said it cannot run here) */
};

/* What one run measures, between the warm-up and the end of the load. */
struct measure {
	struct matrix *m;
	struct cpu_acct cpu;
	struct probes *probes;
	struct profiler *prof;  /* --profile: perf record, enabled in the window only */
};

static void measure_window(void *arg, int open)
{
	struct measure *w = arg;
	const struct testbed_ops *ops = w->m->ops;

	if (open) {
		ops->window(w->m->tb, 1);
		measuring_window(true);
		probes_window(w->probes, 1);
		profile_window(w->prof, 1);
		cpu_start(&w->cpu);
	} else {
		cpu_stop(&w->cpu);
		profile_window(w->prof, 0);
		probes_window(w->probes, 0);
		measuring_window(false);
		ops->window(w->m->tb, 0);
	}
}

static void measure_tick(void *arg)
{
	struct measure *w = arg;

	progress_tick(&w->m->pr);
	probes_tick(w->probes);
	w->m->ops->tick(w->m->tb);
}

/* --probe-overhead's marks on a record: which half, and the off half's own name. */
static void record_overhead(struct matrix *m, json_t *rec, const struct scenario *sc)
{
	if (!m->cfg->probe_overhead)
		return;
	json_object_set_new(rec, "probes", json_string(m->probes_off ? "off" : "on"));
	if (m->probes_off) {
		/* its own name: a results directory holds one record per scenario and repeat */
		char name[300];

		snprintf(name, sizeof(name), "%s+noprobes", sc->name);
		json_object_set_new(rec, "scenario", json_string(name));
		json_object_set_new(rec, "probes_off_of", json_string(sc->name));
	}
}

static json_t *record_head(struct matrix *m, const struct scenario *sc, int repeat)
{
	json_t *rec = record_new(m->cfg->testbed, sc->name, repeat);

	m->ops->record_head(m->tb, rec);
	record_encryption(rec, sc);
	return rec;
}

/* The probes' snapshot at the whole load's edges: this host's, then the other host's. */
static void load_mark(struct matrix *m, struct probes *p, int begin)
{
	probes_load_mark(p, begin);
	if (m->ops->load_mark)
		m->ops->load_mark(m->tb, begin);
}

/* Did either host's probes count on since the load-end snapshot? */
static bool load_moved(struct matrix *m, struct probes *p)
{
	return probes_load_moved(p) || (m->ops->load_moved && m->ops->load_moved(m->tb));
}

/*
 * The whole load's start: the probes' snapshot (taken once nothing
 * moves), then the SAs' base (run_begin) and the encrypted link's. A
 * packet between them (a last ACK of the run before) is in one count and
 * not another: all are taken again while the probes moved since their
 * snapshot.
 */
static void load_begin(struct matrix *m, struct probes *p, json_t *rec)
{
	for (int i = 0; i <= LOAD_END_READS; i++) {
		load_mark(m, p, 1);
		m->ops->run_begin(m->tb, rec);
		enclink_begin(&m->el);
		if (!probes_begin_moved(p))
			break;
	}
}

/* The kernel's IPsec counters at both ends (record_xfrm_stat), before or after a load. */
static void xfrm_stat_mark(struct matrix *m, struct kstat k[2], bool ok[2])
{
	const struct endpoint *end[2];
	struct ipsec_sas *sas;

	m->ops->ends(m->tb, &end[0], &end[1], &sas);
	for (int i = 0; i < 2; i++)
		ok[i] = kstat_read_ep(end[i], &k[i]) == 0;
}

/* The scenario's SAs, as the testbed keeps them. */
static const struct ipsec_sas *scenario_sas(struct matrix *m)
{
	const struct endpoint *tx, *rx;
	struct ipsec_sas *sas;

	m->ops->ends(m->tb, &tx, &rx, &sas);
	return sas;
}

/* One run of one scenario: the load, measured; returns its record. */
static json_t *run_once(struct matrix *m, const struct scenario *sc, int repeat)
{
	const struct testbed_ops *ops = m->ops;
	const struct run_config *c = m->cfg;
	char prefix[PATH_MAX + 200], why[512] = "";
	struct measure w = { .m = m, .probes = m->probes_off ? NULL : m->probes };
	struct load_result lr = { .extra = NULL };
	json_t *rec = record_head(m, sc, repeat);
	struct kstat ks[2][2];
	bool ks_ok[2][2];

	snprintf(prefix, sizeof(prefix), "%s/raw/%s-r%d-%s", m->res->dir, sc->name, repeat,
		 m->probes_off ? "noprobes-" : m->counting ? "count-" : "");
	cpu_open(&w.cpu);
	if (c->profile_hz)
		w.prof = profile_begin(c->profile_hz, m->res->dir, prefix);

	struct load_params lp = {
		.duration_s = c->duration_s, .omit_s = c->omit_s, .port = c->port, .raw_prefix = prefix,
		.window = measure_window, .tick = measure_tick, .arg = &w, .sc = sc, .flows = c->flows,
		.direction = c->direction, .congestion = c->congestion,
	};

	enclink_load_ends(&m->el, &lp.tx, &lp.rx);
	xfrm_stat_mark(m, ks[0], ks_ok[0]);
	load_begin(m, w.probes, rec);
	if (ops->load(m->tb, sc, &lp, &lr) < 0) {
		record_status(rec, "failed", lr.error[0] ? lr.error : "the load failed");
	} else {
		record_status(rec, "ok", NULL);
		record_load(rec, sc, &lr);
		ops->record_cpu(m->tb, rec, &lr, &w.cpu);
		record_window(rec, &w.cpu);
	}
	measuring_record(rec, sc->name, repeat);
	load_mark(m, w.probes, 0);
	/* the SAs' own counters: proof that the traffic went through them */
	int end_rc = ops->run_end(m->tb, rec, why, sizeof(why));
	/*
	 * A packet sent between the probes' load-end snapshot and the SAs'
	 * read (a last retransmission or ACK) is in one and not the other:
	 * the whole load's counts then differ by one. Take both again, until
	 * nothing moved between them: up to LOAD_END_READS times, since on a
	 * loaded TCG host the closing connections' retransmissions came 50 ms
	 * of quiet apart and outlasted three reads (vm-pair, 6 packets).
	 */
	for (int i = 0; i < LOAD_END_READS && load_moved(m, w.probes); i++) {
		load_mark(m, w.probes, 0);
		end_rc = ops->run_end(m->tb, rec, why, sizeof(why));
	}
	if (end_rc < 0 && record_is(rec, "ok"))
		record_status(rec, "failed", why);
	xfrm_stat_mark(m, ks[1], ks_ok[1]);
	record_xfrm_stat(rec, ks[0], ks_ok[0], ks[1], ks_ok[1]);
	/* the encrypted link's devices: what they counted, and proof that the load went through them */
	if (enclink_record(&m->el, rec, why, sizeof(why)) < 0 && record_is(rec, "ok"))
		record_status(rec, "failed", why);
	ops->counters(m->tb, w.probes, rec, m->probes_off ? "probes detached for this half of --probe-overhead"
								: "probes not loaded (--no-probes)");
	record_per_unit(rec, sc);
	ipsec_pairs_record(scenario_sas(m), rec);
	json_decref(lr.extra);
	/* esp-gso = off measures ESP without GSO, or nothing: a run that took the GSO path is not ok */
	if (record_is(rec, "ok") && ipsec_path_check(&sc->ipsec, rec, why, sizeof(why)) > 0) {
		record_status(rec, "skipped", why);
		/* another path's throughput: nothing may take it for this scenario's (the counters stay, as proof) */
		json_object_del(rec, "throughput_bps");
		json_object_del(rec, "sender_bps");
	}
	record_overhead(m, rec, sc);
	if (m->counting)
		json_object_set_new(rec, "purpose", json_string("count"));
	profile_end(w.prof, rec); /* after the cycles: it needs the run's cycles per byte */
	cpu_close(&w.cpu);
	return rec;
}

/*
 * --probe-overhead: the same run with and without the probes attached, in
 * alternating order (odd repeats with probes first). The first record is
 * written here, the second returned; both throughputs are kept for the
 * ratio printed at the end (probe_overhead_print).
 */
static json_t *run_overhead_pair(struct matrix *m, const struct scenario *sc, int repeat)
{
	json_t *recs[2], *bps[2] = { NULL, NULL }, *sc_obj = json_object_get(m->overhead, sc->name);

	if (!sc_obj) {
		sc_obj = json_pack("{s:[], s:[], s:[]}", "on", "off", "pairs");
		json_object_set_new(m->overhead, sc->name, sc_obj);
	}
	for (int i = 0; i < 2; i++) {
		bool off = (i == 0) == !(repeat & 1);

		m->probes_off = off;
		if (off)
			m->ops->probes_detach(m->tb, m->probes);
		recs[i] = run_once(m, sc, repeat);
		if (off)
			m->ops->probes_attach(m->tb, m->probes, m->cfg);
		m->probes_off = false;
		if (record_is(recs[i], "ok")) {
			bps[off] = json_incref(json_object_get(recs[i], "throughput_bps"));
			json_array_append(json_object_get(sc_obj, off ? "off" : "on"), bps[off]);
		}
		if (i == 0) {
			if (record_is(recs[0], "failed"))
				m->failed++;
			writer_append(m->res, recs[0]);
			json_decref(recs[0]);
		}
	}
	/* [with, without] of the repeat, for the paired ratios */
	if (bps[0] && bps[1])
		json_array_append_new(json_object_get(sc_obj, "pairs"), json_pack("[O, O]", bps[0], bps[1]));
	json_decref(bps[0]);
	json_decref(bps[1]);
	return recs[1];
}

/*
 * --until-ci: where the rule stands after rec, into rec; true when the
 * scenario is done (always after a skipped or failed scenario, rc != 0).
 */
static bool until_ci_note(const struct run_config *c, json_t *rec, int rc, double *tput, int *ntput, int nth)
{
	struct until_ci u;

	if (json_is_number(json_object_get(rec, "throughput_bps")) && record_is(rec, "ok"))
		tput[(*ntput)++] = json_number_value(json_object_get(rec, "throughput_bps"));
	until_ci_eval(tput, *ntput, c->until_ci, &u);
	bool stop = rc != 0 || until_ci_stop(&u, nth, c->max_repeat);

	json_object_set_new(rec, "until_ci",
		json_pack("{s:f, s:i, s:i, s:o, s:o, s:o, s:b, s:b}", "target_pct", c->until_ci,
			  "max_repeat", c->max_repeat, "n_ok", *ntput,
			  "ci95_lo_bps", isnan(u.lo) ? json_null() : json_real(u.lo),
			  "ci95_hi_bps", isnan(u.hi) ? json_null() : json_real(u.hi),
			  "width_pct", isnan(u.width_pct) ? json_null() : json_real(u.width_pct),
			  "reached", u.reached, "last", stop));
	return stop;
}

/* The dry-run of a scenario's load: the commands, once. */
static void dry_run_load(struct matrix *m, const struct scenario *sc)
{
	struct load_result lr;
	struct load_params lp = { .duration_s = m->cfg->duration_s, .omit_s = m->cfg->omit_s,
				  .port = m->cfg->port, .sc = sc, .flows = m->cfg->flows,
				  .direction = m->cfg->direction, .congestion = m->cfg->congestion };

	enclink_load_ends(&m->el, &lp.tx, &lp.rx);
	m->ops->load(m->tb, sc, &lp, &lr);
}

/*
 * Every repeat of one scenario, applied (rc 0) or not (rc > 0 skipped, < 0
 * failed, why). Returns 0 when the scenario still runs here after them.
 */
static int run_repeats(struct matrix *m, int s, int rc, const char *why)
{
	const struct run_config *c = m->cfg;
	const struct scenario *sc = &c->scenarios[s];
	int nrep = c->until_ci ? c->max_repeat : c->repeat, ntput = 0;
	double *tput = calloc(nrep + 1, sizeof(*tput));
	char lost_why[600];

	for (int r = c->repeat_from; r < c->repeat_from + nrep && !stop_requested(); r++) {
		const char *lost = m->ops->lost ? m->ops->lost(m->tb) : NULL;
		json_t *rec;

		if (c->dry_run) {
			dry_run_load(m, sc);
			break;
		}
		progress_begin_run(&m->pr, s + 1, c->nscenarios, sc->name, r - c->repeat_from + 1, nrep);
		if (rc == 0 && lost) {
			/* the peer was lost: every later run fails, saying so */
			rc = -1;
			snprintf(lost_why, sizeof(lost_why), "%.250s", lost);
			why = lost_why;
		}
		if (rc != 0) {
			rec = record_head(m, sc, r);
			record_status(rec, rc > 0 ? "skipped" : "failed", why);
			record_per_unit(rec, sc);
		} else if (c->probe_overhead) {
			rec = run_overhead_pair(m, sc, r);
		} else {
			rec = run_once(m, sc, r);
		}
		progress_end_run(&m->pr);
		/* a run that found this kernel cannot run the scenario (ipsec_path_check): so will the others */
		if (rc == 0 && record_is(rec, "skipped")) {
			rc = 1;
			snprintf(lost_why, sizeof(lost_why), "%s", json_string_value(json_object_get(rec, "reason")) ?: "");
			why = lost_why;
		}
		/* the record says where the rule stands after it */
		bool stop = c->until_ci && tput && until_ci_note(c, rec, rc, tput, &ntput, r - c->repeat_from + 1);

		m->failed += writer_append_run(m->res, rec);
		if (stop)
			break;
	}
	free(tput);
	return rc;
}

/*
 * Does scenario sc get counting repeats (--count-repeats) in this run? Not
 * where the throughput repeats run the ESP programs already (--probe-set
 * esp or all).
 */
static bool counts(const struct run_config *c, const struct scenario *sc, bool probes)
{
	return c->count_repeats > 0 && sc->ipsec.on && probes && !c->dry_run && c->probe_set != PROBE_SET_ESP &&
	       c->probe_set != PROBE_SET_ALL;
}

/*
 * --count-repeats: the scenario again with the ESP programs attached,
 * after its throughput repeats and numbered as they are; their records say
 * "purpose": "count", and the reports take only their counters.
 */
static void run_counting(struct matrix *m, int s)
{
	const struct run_config *c = m->cfg;
	const struct scenario *sc = &c->scenarios[s];
	struct run_config cc = *c;

	if (!counts(c, sc, m->probes) || stop_requested() || (m->ops->lost && m->ops->lost(m->tb)))
		return;
	cc.probe_set = PROBE_SET_ESP;
	m->ops->probes_detach(m->tb, m->probes);
	probes_set_set(m->probes, cc.probe_set);
	m->ops->probes_attach(m->tb, m->probes, &cc);
	m->counting = true;
	for (int r = c->repeat_from; r < c->repeat_from + c->count_repeats && !stop_requested(); r++) {
		progress_begin_run(&m->pr, s + 1, c->nscenarios, sc->name, r - c->repeat_from + 1, c->count_repeats);
		json_t *rec = run_once(m, sc, r);

		bool skipped = record_is(rec, "skipped"); /* this kernel cannot run it (ipsec_path_check) */

		progress_end_run(&m->pr);
		m->failed += writer_append_run(m->res, rec);
		if (skipped)
			break;
	}
	m->counting = false;
	probes_set_set(m->probes, c->probe_set);
}

/* The scenario over the testbed's two ends, after the testbed's own check. */
static int apply(struct matrix *m, const struct scenario *sc, char *why, size_t len)
{
	const struct endpoint *tx, *rx;
	struct ipsec_sas *sas;
	int rc;

	m->el.k = NULL;
	m->ops->ends(m->tb, &tx, &rx, &sas);
	if (journal_dry_run())
		printf("# scenario %s: %s\n", sc->name, sc->description);
	if (m->ops->possible && (rc = m->ops->possible(m->tb, sc, why, len)))
		return rc;
	/* SA pairs: --sas, else the scenario's; flow k on port + k (twice the flows, each way, with --direction both) */
	struct ipsec_flows fl = { .npairs = m->cfg->sas ? m->cfg->sas : sc->ipsec.sas, .port = m->cfg->port,
				  .nports = m->cfg->flows * (m->cfg->direction == LOAD_BOTH ? 2 : 1) };

	return scenario_apply(tx, rx, sc, &fl, sas, &m->el, why, len);
}

/* One scenario: applied, its repeats, undone. */
static void run_scenario(struct matrix *m, int s)
{
	const struct testbed_ops *ops = m->ops;
	const struct scenario *sc = &m->cfg->scenarios[s];
	const char *lost = ops->lost ? ops->lost(m->tb) : NULL;
	int mark = journal_mark();
	char why[1024] = "";
	int rc = lost ? -1 : apply(m, sc, why, sizeof(why));

	/* a load without LOAD_FLOWS (the built-in stream) is one connection, from the sending end */
	if (rc == 0 && (m->cfg->flows > 1 || m->cfg->direction) && !(load_of(sc)->caps & LOAD_FLOWS)) {
		char names[200];

		rc = 1;
		snprintf(why, sizeof(why), "%s: %s (load = %s) runs one flow from the sending end; %s runs these",
			 m->cfg->flows > 1 ? "--flows" : "--direction", load_of(sc)->title, sc->load,
			 load_names(LOAD_FLOWS, names, sizeof(names)));
	}

	if ((lost = ops->lost ? ops->lost(m->tb) : NULL))
		snprintf(why, sizeof(why), "%.250s", lost);
	/* the crypto drivers the SAs' algorithm got, on each end, while the SAs exist */
	if (rc == 0 && sc->ipsec.on && !m->cfg->dry_run) {
		char alg[160];

		scenario_esp_alg(sc, alg, sizeof(alg));
		writer_crypto(m->res, alg, setup_crypto(alg), ops->far_crypto ? ops->far_crypto(m->tb, alg) : NULL);
	}
	/* after the scenario, so that the modules it loaded (esp4) show their symbols */
	probes_need_esp(m->probes, sc->ipsec.on);
	if (rc == 0 && !m->cfg->dry_run)
		ops->probes_attach(m->tb, m->probes, m->cfg);
	if (run_repeats(m, s, rc, why) == 0)
		run_counting(m, s);
	progress_clear(&m->pr);
	if (rc != 0)
		pr_warn("run: %s %s: %s", sc->name, rc > 0 ? "skipped" : "failed", why);
	m->nskipped += rc > 0;
	ops->probes_detach(m->tb, m->probes); /* before the undo may unload a probed module */
	journal_undo_to(mark);
}

int run_matrix(const struct testbed_ops *ops, const struct run_config *c, struct results_writer *res,
	       json_t **overhead)
{
	struct matrix m = { .ops = ops, .cfg = c, .res = res };

	*overhead = NULL;
	m.tb = ops->setup(c, res);
	if (!m.tb)
		return -1;
	int nruns = c->nscenarios * (c->until_ci ? c->max_repeat : c->repeat);

	for (int s = 0; s < c->nscenarios; s++)
		nruns += counts(c, &c->scenarios[s], !c->no_probes) ? c->count_repeats : 0;
	progress_init(&m.pr, c->quiet || c->dry_run, nruns,
		      (c->omit_s + c->duration_s + ops->run_slack_s) * (c->probe_overhead ? 2 : 1));
	if (!c->dry_run && !c->no_probes) {
		m.probes = probes_open(); /* once per run; attached per scenario */
		probes_set_set(m.probes, c->probe_set);
	}
	if (c->probe_overhead)
		m.overhead = json_object();
	/* not part of --probe-overhead: timing every program run costs more than some programs */
	if (c->probe_cost)
		probes_stats_enable(m.probes);
	for (int s = 0; s < c->nscenarios && !stop_requested(); s++)
		run_scenario(&m, s);
	progress_clear(&m.pr);
	probes_close(m.probes);
	ops->teardown(m.tb);
	/* a dry run that would measure nothing says so (the skips said above) */
	if (c->dry_run && c->nscenarios && m.nskipped == c->nscenarios && !stop_requested()) {
		pr_warn("run: --dry-run: every scenario would be skipped (said above): this run would measure nothing");
		m.failed = RUN_NOTHING;
	}
	if (m.overhead && res->dir[0])
		probe_overhead_write(res->dir, m.overhead);
	*overhead = m.overhead;
	return m.failed;
}
