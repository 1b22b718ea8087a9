// SPDX-License-Identifier: GPL-2.0
/* The report's core: load and pool the DIRs into rows, and what every format shares (provenance). */
#include "report.h"
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modes.h"
#include "pool.h"
#include "provenance.h"

const char *metric_unit(const struct metric *m)
{
	switch (m->kind) {
	case METRIC_THROUGHPUT:
		return "Gbit/s";
	case METRIC_CPB:
		return "cycles/byte";
	case METRIC_IPB:
		return "instructions/byte";
	case METRIC_CPB_SENDER:
		return "cycles/byte sender";
	case METRIC_CPB_RECEIVER:
		return "cycles/byte receiver";
	case METRIC_CPU_SHARE:
		return "% on the busiest CPU";
	case METRIC_COUNTER:
		return m->unit == UNIT_TRANSACTION ? "per transaction" : m->unit == UNIT_DATAGRAM ? "per datagram"
											 : "per packet";
	case METRIC_TPS:
		return "transactions/s";
	case METRIC_LAT: {
		static const char *const u[RESULTS_NLAT] = { "us p50", "us p90", "us p99", "us p99.9", "us max" };

		return u[m->q];
	}
	case METRIC_CPU_UNIT:
		return m->unit == UNIT_DATAGRAM ? "cycles/datagram" : "cycles/transaction";
	case METRIC_PPS:
		return "datagrams/s";
	case METRIC_LOSS:
		return "loss %";
	}
	return "";
}

/* ---- loading ---- */

static const char *first_unavailable(const struct results *r, const struct run_group *g,
				     const char *counter)
{
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		for (int c = 0; c < rec->ncounters; c++)
			if (!strcmp(rec->counters[c].name, counter) && rec->counters[c].symbol &&
			    !strncmp(rec->counters[c].symbol, "unavailable", 11))
				return rec->counters[c].symbol;
	}
	return NULL;
}

static int add_row(struct report *rep, int *cap, int k, const struct run_group *g, struct metric m)
{
	struct report_row *row;
	double *v;
	int n;

	if (rep->nrows == *cap) {
		struct report_row *nr = realloc(rep->rows, (*cap = *cap * 2 + 16) * sizeof(*nr));

		if (!nr)
			return -1;
		rep->rows = nr;
	}
	v = malloc((g->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	row = &rep->rows[rep->nrows++];
	memset(row, 0, sizeof(*row));
	row->g = g;
	row->k = k;
	row->m = m;
	n = group_values(&rep->all, g, &m, v);
	stats_compute(v, n, &row->s);
	row->ratio = NAN;
	free(v);
	if (m.kind == METRIC_COUNTER && n == 0)
		row->unavailable = first_unavailable(&rep->all, g, m.counter);
	/* a counter that cannot apply to this scenario is no row of it */
	if (row->unavailable && !strncmp(row->unavailable, "unavailable: " RESULTS_NO_SAS_WHY,
					 strlen("unavailable: " RESULTS_NO_SAS_WHY)))
		rep->nrows--;
	return 0;
}

int report_load(struct report *rep, char *const dirs[], int ndirs)
{
	int cap = 0;

	memset(rep, 0, sizeof(*rep));
	if (pool_load(dirs, ndirs, &rep->src, &rep->nsrc, &rep->all) < 0)
		return -1;
	if (results_groups(&rep->all, &rep->groups, &rep->ngroups) < 0 ||
	    results_kernels(&rep->all, &rep->kernels, &rep->nkernels) < 0)
		goto out_nomem;
	for (int k = 0; k < rep->nkernels; k++) {
		/* each unit's first scenario is the base of its ratios: throughput, transactions, datagrams */
		double base[3] = { NAN, NAN, NAN };
		bool have_base[3] = { false, false, false };

		for (int i = 0; i < rep->ngroups; i++) {
			const struct run_group *g = &rep->groups[i];
			struct metric ms[RESULTS_GROUP_METRICS];
			enum run_unit u = group_unit(&rep->all, g);
			const char **names;
			int nn, first = rep->nrows, nm = group_metrics(&rep->all, g, ms);

			if (strcmp(g->kernel, rep->kernels[k]))
				continue;
			for (int m = 0; m < nm; m++)
				if (add_row(rep, &cap, k, g, ms[m]) < 0)
					goto out_nomem;
			/* each end's own cycles, where the testbed measured them apart (peer, vm-pair) */
			for (enum metric_kind e = METRIC_CPB_SENDER; u == UNIT_BYTE && e <= METRIC_CPB_RECEIVER; e++) {
				if (add_row(rep, &cap, k, g, (struct metric){ .kind = e }) < 0)
					goto out_nomem;
				if (!rep->rows[rep->nrows - 1].s.n)
					rep->nrows--;
			}
			if (!have_base[u]) {
				have_base[u] = true;
				base[u] = rep->rows[first].s.median;
			}
			if (base[u] > 0)
				rep->rows[first].ratio = rep->rows[first].s.median / base[u];
			/* counters: those of ok runs, plus unavailable ones of any run */
			if (group_counters(&rep->all, g, &names, &nn) < 0)
				goto out_nomem;
			for (int c = 0; c < nn; c++)
				if (add_row(rep, &cap, k, g,
					    (struct metric){ .kind = METRIC_COUNTER, .counter = names[c], .unit = u }) < 0) {
					free(names);
					goto out_nomem;
				}
			free(names);
		}
	}
	for (int i = 0; i < rep->ngroups; i++)
		if (modes_note(&rep->notes, &rep->all, &rep->groups[i], NULL) < 0)
			goto out_nomem;
	return 0;
out_nomem:
	pr_warn("report: out of memory");
	report_free(rep);
	return -1;
}

int report_check_pool(struct report *rep, unsigned allow)
{
	struct prov_check pc;

	prov_check_init(&pc, &rep->notes, allow);
	prov_check_pool(&pc, NULL, rep->src, rep->nsrc, &rep->all);
	if (!prov_refused(&pc))
		return 0;
	prov_print_refused(&pc, "report");
	return -1;
}

void report_free(struct report *rep)
{
	pool_free(rep->src, rep->nsrc, &rep->all);
	notes_free(&rep->notes);
	results_groups_free(rep->groups, rep->ngroups);
	free(rep->kernels);
	free(rep->rows);
	memset(rep, 0, sizeof(*rep));
}

const char *report_counter_not_drawn(const struct report *rep, const char *counter)
{
	const char *why = NULL;

	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];

		if (r->m.kind != METRIC_COUNTER || strcmp(r->m.counter, counter))
			continue;
		if (r->s.n && (r->s.min != 0 || r->s.max != 0))
			return NULL;
		if (r->s.n)
			why = why ? why : "zero in every run";
		else if (r->unavailable)
			why = r->unavailable;
	}
	return why ? why : "no value recorded";
}

/* ---- provenance ---- */

int report_not_ok(const struct results *r)
{
	int n = 0;

	for (int i = 0; i < r->nruns; i++)
		n += r->runs[i].status != RUN_OK;
	return n;
}

/* Source i's runs: how many measured throughput, how many counted (--count-repeats). */
void report_source_purposes(const struct report *rep, int i, int *measured, int *counted)
{
	*measured = *counted = 0;
	for (int r = 0; r < rep->all.nruns; r++)
		if (rep->all.runs[r].source == i)
			(*(rep->all.runs[r].counting ? counted : measured))++;
}

/* The one line that says which repeats counted and which measured; 0 when none counted. */
static int purposes_line(const struct report *rep, int i, char *buf, size_t len)
{
	int measured, counted;

	report_source_purposes(rep, i, &measured, &counted);
	if (!counted)
		return 0;
	snprintf(buf, len, "%d measured (throughput, cycles: probes %s), %d counted (the ESP programs attached: the per-packet counters only)",
		 measured, rep->src[i].meta.probe_set ? rep->src[i].meta.probe_set : "as recorded", counted);
	return 1;
}

/* The header lines of one source, as key/value pairs; returns how many. */
/* The clock the runs were measured on, as the header says it. */
static const char *clock_text(const struct report *rep)
{
	const char *c = results_clock(&rep->all);

	if (!strcmp(c, "virtual"))
		return "virtual (qemu counted the guest's instructions: a guest second is 10^9 of them; throughput per instruction-time, cost in instructions per byte; docs/vm-testbed.md)";
	return !strcmp(c, "mixed") ? "mixed: runs on the real and on the virtual clock (run --clock)" : "real";
}

int report_provenance(const struct report *rep, int i, struct report_kv *kv, int max)
{
	const struct results_meta *m = &rep->src[i].meta;
	int n = 0;

	(void)max;
	kv[n].key = "results";
	snprintf(kv[n++].val, sizeof(kv[0].val), "%s", rep->src[i].dir);
	kv[n].key = "host";
	snprintf(kv[n].val, sizeof(kv[0].val), "%s", m->host ? m->host : "(not recorded)");
	if (m->cpu_model || m->cpu_count) {
		size_t l = strlen(kv[n].val);

		snprintf(kv[n].val + l, sizeof(kv[0].val) - l, ", %s%s%d CPUs",
			 m->cpu_model ? m->cpu_model : "", m->cpu_model ? ", " : "", m->cpu_count);
	}
	n++;
	kv[n].key = "testbed";
	{
		char accel[256];

		snprintf(kv[n++].val, sizeof(kv[0].val), "%s, accelerator %s",
			 m->testbed ? m->testbed : "(not recorded)",
			 prov_accel(rep->src, &rep->all, i, accel, sizeof(accel)));
	}
	kv[n].key = "kernels";
	kv[n].val[0] = '\0';
	for (int k = 0; k < m->nkernels; k++) {
		size_t l = strlen(kv[n].val);

		snprintf(kv[n].val + l, sizeof(kv[0].val) - l, "%s%s", k ? ", " : "", m->kernels[k]);
	}
	if (!m->nkernels)
		snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	n++;
	kv[n].key = "runs";
	{
		char dur[64] = "", rep_s[64] = "";

		if (m->duration_s > 0)
			snprintf(dur, sizeof(dur), "%g s each", m->duration_s);
		if (m->repeat > 0)
			snprintf(rep_s, sizeof(rep_s), "%d repeats per scenario", m->repeat);
		snprintf(kv[n].val, sizeof(kv[0].val), "%s%s%s%s%s", rep_s, *rep_s && *dur ? ", " : "",
			 dur, m->iperf3_version ? ", " : "",
			 m->iperf3_version ? m->iperf3_version : "");
		if (!kv[n].val[0])
			snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	}
	n++;
	if (m->probe_set) {
		kv[n].key = "probes";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s (--probe-set; docs/probes.md)", m->probe_set);
	}
	kv[n].key = "repeats";
	n += purposes_line(rep, i, kv[n].val, sizeof(kv[0].val));
	kv[n].key = "tool";
	snprintf(kv[n++].val, sizeof(kv[0].val), "ipsecperf %s",
		 m->tool_version ? m->tool_version : "(version not recorded)");
	if (m->created) {
		kv[n].key = "started";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s", m->created);
	}
	kv[n].key = "clock";
	snprintf(kv[n++].val, sizeof(kv[0].val), "%s", clock_text(rep));
	if (prov_emulated(rep->src, &rep->all, i)) {
		kv[n].key = "caution";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s", prov_emulated_caution());
	}
	kv[n].key = "command";
	if (!m->command)
		snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	else if (!strncmp(m->command, "ipsecperf ", 10) || strstr(m->command, "ipsecperf ") ||
		 m->command[0] == '/' || !strncmp(m->command, "build/", 6))
		snprintf(kv[n].val, sizeof(kv[0].val), "%s", m->command);
	else /* the arguments after the program name, as some writers record them */
		snprintf(kv[n].val, sizeof(kv[0].val), "ipsecperf %s", m->command);
	n++;
	return n;
}
