// SPDX-License-Identifier: GPL-2.0
/*
 * compare on the request/response and packet-rate loads (compare_int.h):
 * the default gate of each unit BASE has, and the note on the latency
 * percentiles whose runs had too few transactions beyond them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "histogram.h"

/*
 * The gate without --metric: each unit's headline and cost, of the units
 * BASE has (a stream's throughput and cycles per byte; transactions per
 * second and cycles per transaction; datagrams per second and cycles per
 * datagram). The latency percentiles are compared and flagged, and gate
 * only when named: one run's tail moves with the host.
 */
int compare_default_metrics(const struct side *b, const char **out)
{
	static const char *const per_unit[3][2] = { { "throughput", "cycles_per_byte" },
						    { "transactions_per_s", "cycles_per_transaction" },
						    { "datagrams_per_s", "cycles_per_datagram" } };
	bool has[3] = { false, false, false };
	int n = 0;

	for (int i = 0; i < b->ng; i++)
		has[group_unit(&b->r, &b->g[i])] = true;
	if (!has[1] && !has[2])
		has[0] = true; /* as before: no groups at all still gate on throughput */
	for (int u = 0; u < 3; u++)
		for (int j = 0; has[u] && j < 2; j++)
			/* the virtual clock counts no cycles: its streams' cost is instructions */
			out[n++] = u == UNIT_BYTE && j == 1 && !strcmp(results_clock(&b->r), "virtual")
					   ? "instructions_per_byte" : per_unit[u][j];
	return n;
}

/* The fewest transactions of a group's ok runs (INFINITY: none). */
static double fewest_transactions(const struct results *r, const struct run_group *g)
{
	double fewest = INFINITY;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status == RUN_OK && !rec->counting && rec->has_lat && rec->transactions < fewest)
			fewest = rec->transactions;
	}
	return fewest;
}

/*
 * The latency percentiles whose runs had too few transactions beyond them:
 * a run's p99.9 rests on its last n/1000; with fewer than TAIL_SAMPLES
 * beyond it, its change is the change of a few transactions.
 */
#define TAIL_SAMPLES 10
void compare_tail_note(struct notes *notes, const struct side *b, const struct side *n, const struct pair_row *rows,
		      int nrows)
{
	char thin[1024] = "";

	for (int i = 0; i < nrows; i++) {
		const struct pair_row *r = &rows[i];
		double q = r->m.kind == METRIC_LAT ? latency_quantiles[r->m.q] : 1;
		double fb = fewest_transactions(&b->r, r->gb), fn = fewest_transactions(&n->r, r->gn);
		double few = fb < fn ? fb : fn;

		if (q >= 1 || !isfinite(few) || few >= hist_samples_needed(q, TAIL_SAMPLES))
			continue;
		snprintf(thin + strlen(thin), sizeof(thin) - strlen(thin), "%s%s %s (%.0f a run, %.0f needed)",
			 *thin ? ", " : "", r->scenario, latency_names[r->m.q], few,
			 (double)hist_samples_needed(q, TAIL_SAMPLES));
	}
	if (*thin)
		notes_add(notes, "tail_samples", NULL,
			  "latency percentiles are compared as throughput is, one value a run (its percentile, from a histogram within 0.4%%); a run's pQ rests on its transactions beyond it, and takes %d of them, n >= %d/(1-Q), to be more than the last few: fewer in %s. Lengthen --duration for those.",
			  TAIL_SAMPLES, TAIL_SAMPLES, thin);
}
