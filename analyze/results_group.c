// SPDX-License-Identifier: GPL-2.0
/* The runs grouped by kernel and scenario, and each group's values of a metric. */
#include "results.h"
#include "results_int.h"
#include "name_list.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Groups and kernels are found through a jansson object used as a hash
 * table ("kernel\nscenario" -> index; names hold no newline), and a
 * group's index list grows as it fills: a directory of many distinct names
 * costs time and memory in proportion to its records, not their square.
 */
static int hash_index(json_t *h, const char *a, const char *b, int next, int *idx)
{
	char *key;
	json_t *v;
	int err = 0;

	if (asprintf(&key, "%s\n%s", a, b ? b : "") < 0)
		return -1;
	v = json_object_get(h, key);
	if (v)
		*idx = (int)json_integer_value(v);
	else if (json_object_set_new(h, key, json_integer(next)) < 0)
		err = -1;
	else
		*idx = next;
	free(key);
	return err;
}

int results_groups(const struct results *r, struct run_group **groups, int *ngroups)
{
	struct run_group *g = calloc(r->nruns + 1, sizeof(*g));
	json_t *h = json_object();
	int *cap = calloc(r->nruns + 1, sizeof(*cap));
	int n = 0;

	*groups = NULL;
	*ngroups = 0;
	if (!g || !h || !cap)
		goto out_nomem;
	for (int i = 0; i < r->nruns; i++) {
		const struct run_record *rec = &r->runs[i];
		int j;

		if (hash_index(h, rec->kernel, rec->scenario, n, &j) < 0)
			goto out_nomem;
		if (j == n) {
			g[n].kernel = rec->kernel;
			g[n].scenario = rec->scenario;
			n++;
		}
		if (g[j].n == cap[j]) {
			int *idx = realloc(g[j].idx, (cap[j] = cap[j] * 2 + 8) * sizeof(*idx));

			if (!idx)
				goto out_nomem;
			g[j].idx = idx;
		}
		g[j].idx[g[j].n++] = i;
		if (rec->counting)
			g[j].n_count++;
		if (rec->status == RUN_OK)
			(*(rec->counting ? &g[j].n_count_ok : &g[j].n_ok))++;
	}
	json_decref(h);
	free(cap);
	*groups = g;
	*ngroups = n;
	return 0;
out_nomem:
	json_decref(h);
	free(cap);
	if (g)
		results_groups_free(g, n);
	return -1;
}

void results_groups_free(struct run_group *groups, int ngroups)
{
	for (int i = 0; i < ngroups; i++)
		free(groups[i].idx);
	free(groups);
}

int results_kernels(const struct results *r, const char ***kernels, int *n)
{
	const char **k = calloc(r->nruns + 1, sizeof(*k));
	json_t *h = json_object();

	*n = 0;
	*kernels = k;
	if (!k || !h) {
		json_decref(h);
		return -1;
	}
	for (int i = 0; i < r->nruns; i++) {
		int j;

		if (hash_index(h, r->runs[i].kernel, NULL, *n, &j) < 0) {
			json_decref(h);
			return -1;
		}
		if (j == *n)
			k[(*n)++] = r->runs[i].kernel;
	}
	json_decref(h);
	return 0;
}

const char *const latency_names[RESULTS_NLAT] = { "p50", "p90", "p99", "p99.9", "max" };
const double latency_quantiles[RESULTS_NLAT] = { 0.5, 0.9, 0.99, 0.999, 1 };

bool metric_higher_is_better(const struct metric *m)
{
	return m->kind == METRIC_THROUGHPUT || m->kind == METRIC_TPS || m->kind == METRIC_PPS;
}

const char *metric_name(const struct metric *m, char *buf, size_t len)
{
	switch (m->kind) {
	case METRIC_THROUGHPUT:
		return "throughput";
	case METRIC_CPB:
		return "cycles_per_byte";
	case METRIC_IPB:
		return "instructions_per_byte";
	case METRIC_COUNTER:
		snprintf(buf, len, "%s", m->counter);
		return buf;
	case METRIC_CPB_SENDER:
		return "cycles_per_byte_sender";
	case METRIC_CPB_RECEIVER:
		return "cycles_per_byte_receiver";
	case METRIC_CPU_SHARE:
		snprintf(buf, len, "top_cpu_share.%s", m->counter);
		return buf;
	case METRIC_TPS:
		return "transactions_per_s";
	case METRIC_LAT:
		snprintf(buf, len, "latency_%s", latency_names[m->q]);
		return buf;
	case METRIC_CPU_UNIT:
		return m->unit == UNIT_DATAGRAM ? "cycles_per_datagram" : "cycles_per_transaction";
	case METRIC_PPS:
		return "datagrams_per_s";
	case METRIC_LOSS:
		return "loss";
	}
	return "?";
}

enum run_unit group_unit(const struct results *r, const struct run_group *g)
{
	for (int i = 0; i < g->n; i++)
		if (r->runs[g->idx[i]].unit != UNIT_BYTE)
			return r->runs[g->idx[i]].unit;
	return UNIT_BYTE;
}

bool group_virtual(const struct results *r, const struct run_group *g)
{
	for (int i = 0; i < g->n; i++)
		if (r->runs[g->idx[i]].virtual_clock)
			return true;
	return false;
}

static bool group_has_ipb(const struct results *r, const struct run_group *g)
{
	for (int i = 0; i < g->n; i++)
		if (r->runs[g->idx[i]].has_ipb || r->runs[g->idx[i]].virtual_clock)
			return true;
	return false;
}

int group_metrics(const struct results *r, const struct run_group *g, struct metric *out)
{
	enum run_unit u = group_unit(r, g);
	int n = 0;

	switch (u) {
	case UNIT_BYTE:
		out[n++] = (struct metric){ .kind = METRIC_THROUGHPUT };
		/* the virtual clock's cycles would be busy time x a TSC it does not have: instructions instead */
		if (!group_virtual(r, g))
			out[n++] = (struct metric){ .kind = METRIC_CPB };
		if (group_has_ipb(r, g))
			out[n++] = (struct metric){ .kind = METRIC_IPB };
		break;
	case UNIT_TRANSACTION:
		out[n++] = (struct metric){ .kind = METRIC_TPS };
		for (int q = 0; q < RESULTS_NLAT; q++)
			out[n++] = (struct metric){ .kind = METRIC_LAT, .q = q };
		out[n++] = (struct metric){ .kind = METRIC_CPU_UNIT, .unit = u };
		break;
	case UNIT_DATAGRAM:
		out[n++] = (struct metric){ .kind = METRIC_PPS };
		out[n++] = (struct metric){ .kind = METRIC_THROUGHPUT };
		out[n++] = (struct metric){ .kind = METRIC_LOSS };
		out[n++] = (struct metric){ .kind = METRIC_CPU_UNIT, .unit = u };
		break;
	}
	return n;
}

static const struct run_counter *find_counter(const struct run_record *rec, const char *name)
{
	for (int i = 0; i < rec->ncounters; i++)
		if (!strcmp(rec->counters[i].name, name))
			return &rec->counters[i];
	return NULL;
}

/* Does one of the group's ok counting runs have counter name per packet? */
static bool counted(const struct results *r, const struct run_group *g, const char *name)
{
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];
		const struct run_counter *c = rec->counting && rec->status == RUN_OK ? find_counter(rec, name) : NULL;

		if (c && (c->has_per_packet || c->has_per_unit))
			return true;
	}
	return false;
}

/* The metric's figure of one run ok, into *v; false where the run has none. */
static bool run_value(const struct run_record *rec, const struct metric *m, bool from_counting, double *v)
{
	const struct run_counter *c;

	switch (m->kind) {
	case METRIC_THROUGHPUT:
		*v = rec->throughput_bps / 1e9;
		return rec->has_throughput;
	case METRIC_CPB:
		*v = rec->cycles_per_byte;
		return rec->has_cpb;
	case METRIC_IPB:
		*v = rec->instructions_per_byte;
		return rec->has_ipb;
	case METRIC_CPB_SENDER:
		*v = rec->cpb_sender;
		return rec->has_cpb_sender;
	case METRIC_CPB_RECEIVER:
		*v = rec->cpb_receiver;
		return rec->has_cpb_receiver;
	case METRIC_COUNTER:
		c = find_counter(rec, m->counter);
		/* a load with a unit: per transaction or datagram, the figure its reports speak of */
		if (c && rec->unit != UNIT_BYTE) {
			if (c->has_per_unit) {
				*v = c->per_unit;
				return true;
			}
		/* a counting repeat's figure: over its whole load, exact, where it has one */
		} else if (c && from_counting && c->has_per_packet_load) {
			*v = c->per_packet_load;
			return true;
		} else if (c && c->has_per_packet) {
			*v = c->per_packet;
			return true;
		}
		break;
	case METRIC_CPU_SHARE: {
		const struct run_spread *sp = run_spread_find(rec, m->counter);
		struct cpu_spread cs;

		if (!sp)
			break;
		cpu_spread_of(sp->v, sp->n, &cs);
		*v = 100 * cs.top_share; /* percent */
		return cs.top >= 0;
	}
	case METRIC_TPS:
		*v = rec->tps;
		return rec->has_tps;
	case METRIC_LAT:
		*v = rec->lat_ns[m->q] / 1000; /* microseconds */
		return rec->has_lat;
	case METRIC_CPU_UNIT:
		*v = rec->cpu_per_unit;
		return rec->has_cpu_unit;
	case METRIC_PPS:
		*v = rec->pps;
		return rec->has_pps;
	case METRIC_LOSS:
		*v = 100 * rec->loss; /* percent */
		return rec->has_loss;
	}
	return false;
}

int group_values(const struct results *r, const struct run_group *g, const struct metric *m,
		 double *out)
{
	/* which runs give the metric: the throughput runs, or the counting ones */
	bool from_counting = m->kind == METRIC_COUNTER ? g->n_count_ok && counted(r, g, m->counter)
			     : m->kind == METRIC_CPU_SHARE && results_spread_from_counting(r, g, m->counter);
	int n = 0;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status == RUN_OK && rec->counting == from_counting && run_value(rec, m, from_counting, &out[n]))
			n++;
	}
	return n;
}

int group_counters(const struct results *r, const struct run_group *g, const char ***names,
		   int *n)
{
	int cap = 0;

	*names = NULL;
	*n = 0;
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		for (int c = 0; rec->status == RUN_OK && c < rec->ncounters; c++)
			if (names_add_once(names, n, &cap, rec->counters[c].name) < 0)
				return -1;
	}
	return 0;
}

const char *results_clock(const struct results *r)
{
	int ok[2] = { 0, 0 }, any[2] = { 0, 0 };

	for (int i = 0; i < r->nruns; i++) {
		int v = r->runs[i].virtual_clock;

		any[v]++;
		ok[v] += r->runs[i].status == RUN_OK;
	}
	/* the runs that went ok say it; a run that failed before its guest booted may only guess */
	if (ok[0] || ok[1])
		return ok[0] && ok[1] ? "mixed" : ok[1] ? "virtual" : "real";
	if (any[0] || any[1])
		return any[0] && any[1] ? "mixed" : any[1] ? "virtual" : "real";
	return r->meta.clock && !strcmp(r->meta.clock, "virtual") ? "virtual" : "real";
}
