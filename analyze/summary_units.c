// SPDX-License-Identifier: GPL-2.0
/*
 * The summary's tables of the request/response and packet-rate loads
 * (summary.h): the latency percentiles and what the tail rests on, the
 * rate search's figures. 72 columns, as the rest of the summary.
 */
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

/* Transactions beyond a percentile for it to be more than the last few: what the note asks of each run. */
#define TAIL_SAMPLES 10

/* The fewest transactions of g's ok runs (NAN: none). */
static double fewest_transactions(const struct results *r, const struct run_group *g)
{
	double fewest = NAN;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status == RUN_OK && !rec->counting && rec->has_lat && !(rec->transactions >= fewest))
			fewest = rec->transactions;
	}
	return fewest;
}

int summary_latency_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel)
{
	static const char *const heads[] = { "scenario", "p50", "p90", "p99", "p99.9", "max", "fewest" };
	static const bool left[] = { true, false, false, false, false, false, false };
	double thin = 0; /* the highest quantile some run had too few transactions for */
	struct tab t;

	tab_init(&t, 7, heads, left);
	for (int i = 0; i < ng; i++) {
		double fewest;
		int row;

		if (strcmp(g[i].kernel, kernel) || group_unit(r, &g[i]) != UNIT_TRANSACTION)
			continue;
		if ((row = tab_row(&t)) < 0) {
			tab_free(&t);
			return -1;
		}
		tab_set(&t, row, 0, "%s", g[i].scenario);
		for (int q = 0; q < RESULTS_NLAT; q++) {
			struct metric m = { .kind = METRIC_LAT, .q = q };
			double *v = malloc((g[i].n + 1) * sizeof(*v));
			struct stats s;
			char buf[32];

			if (!v) {
				tab_free(&t);
				return -1;
			}
			stats_compute(v, group_values(r, &g[i], &m, v), &s);
			free(v);
			tab_set(&t, row, 1 + q, "%s", fmt_num(buf, sizeof(buf), s.median, fmt_decimals_sig(s.median, 3)));
		}
		fewest = fewest_transactions(r, &g[i]);
		tab_set(&t, row, 6, isnan(fewest) ? "-" : "%.0f", fewest);
		for (int q = 0; q < RESULTS_NLAT - 1; q++)
			if (fewest < hist_samples_needed(latency_quantiles[q], TAIL_SAMPLES) && latency_quantiles[q] > thin)
				thin = latency_quantiles[q];
	}
	if (t.nrows) {
		char note[400];

		fputc('\n', f);
		fputs_wrapped(f, "Latency, microseconds: each run's percentile (from its histogram, within 0.4%), median over the runs; fewest: transactions in the run with the fewest",
			      0, 0);
		tab_print(f, &t, NULL);
		if (thin > 0) {
			snprintf(note, sizeof(note),
				 "note: p%g rests on fewer than %d transactions beyond it in some run (it needs %.0f a run): take it as a run's last few, and lengthen --duration for it.",
				 100 * thin, TAIL_SAMPLES, (double)hist_samples_needed(thin, TAIL_SAMPLES));
			fputs_wrapped(f, note, 0, 6);
		}
	}
	tab_free(&t);
	return 0;
}

int summary_rate_table(FILE *f, const struct results *r, const struct run_group *g, int ng, const char *kernel)
{
	static const char *const heads[] = { "scenario", "bytes", "Mbit/s", "loss %", "steps" };
	static const bool left[] = { true, false, false, false, false };
	struct tab t;

	tab_init(&t, 5, heads, left);
	for (int i = 0; i < ng; i++) {
		struct stats bps, loss;
		int row, bytes = 0, steps = 0;
		char buf[32];

		if (strcmp(g[i].kernel, kernel) || group_unit(r, &g[i]) != UNIT_DATAGRAM)
			continue;
		if (summary_group_stats(r, &g[i], METRIC_THROUGHPUT, &bps) < 0 ||
		    summary_group_stats(r, &g[i], METRIC_LOSS, &loss) < 0 || (row = tab_row(&t)) < 0) {
			tab_free(&t);
			return -1;
		}
		for (int j = 0; j < g[i].n; j++) {
			const struct run_record *rec = &r->runs[g[i].idx[j]];

			if (rec->status == RUN_OK && !rec->counting) {
				bytes = rec->datagram_bytes;
				steps = rec->rate_steps > steps ? rec->rate_steps : steps;
			}
		}
		tab_set(&t, row, 0, "%s", g[i].scenario);
		tab_set(&t, row, 1, bytes ? "%d" : "-", bytes);
		tab_set(&t, row, 2, "%s", fmt_num(buf, sizeof(buf), 1000 * bps.median, fmt_decimals_sig(1000 * bps.median, 4)));
		tab_set(&t, row, 3, "%s", fmt_num(buf, sizeof(buf), loss.median, fmt_decimals_sig(loss.max, 2)));
		tab_set(&t, row, 4, steps ? "%d" : "-", steps);
	}
	if (t.nrows) {
		fputc('\n', f);
		fputs_wrapped(f, "Packet rate, the window at the rate found: datagram payload, its bit rate and loss (medians), the search's steps (the most of a run)",
			      0, 0);
		tab_print(f, &t, NULL);
	}
	tab_free(&t);
	return 0;
}

void summary_ratio_note(FILE *f, const char *const base_name[3])
{
	static const char *const what[3] = { "throughput", "transactions/s", "datagrams/s" };
	char note[600];
	int len = snprintf(note, sizeof(note), "n: runs with status ok; ratio: ");

	for (int u = 0, k = 0; u < 3; u++) {
		if (!base_name[u])
			continue;
		len += snprintf(note + len, sizeof(note) - len > 0 ? sizeof(note) - len : 0, "%smedian %s over the first scenario's (%s)",
				k++ ? "; " : "", what[u], base_name[u]);
	}
	if (len < (int)sizeof(note) - 1)
		strcat(note, ".");
	fputs_wrapped(f, note, 0, 0);
}
