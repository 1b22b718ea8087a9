// SPDX-License-Identifier: GPL-2.0
/*
 * Several SA pairs (run --sas: "sa_pair") and the kernel's IPsec errors
 * ("xfrm_stat"): the text report's row per pair and per moved counter of
 * each run, and the summary's tables of a kernel and scenario over its
 * runs (docs/reports.md).
 */
#include "report.h"
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "notes.h"
#include "stats.h"
#include "summary.h"

/* A run's name in the per-run sections: "[KERNEL ]SCENARIO rN". */
static void run_name(char *buf, size_t len, const struct report *rep, const struct run_record *rec)
{
	snprintf(buf, len, "%s%s%s r%d", rep->nkernels > 1 ? rec->kernel : "", rep->nkernels > 1 ? " " : "",
		 rec->scenario, rec->repeat);
	text_clean(buf);
}

/* run --sas: a row per SA pair of each measured run, its flows' throughput and its data SA's packets. */
static void text_sa_pairs(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];
		char name[200], line[400];

		if (!rec->npairs || rec->counting)
			continue;
		if (!any) {
			fputc('\n', f);
			fputs_wrapped(f, "SA pairs (run --sas): each pair's flows (their ports), their throughput and the pair's data SA's packets",
				      0, 0);
		}
		any = true;
		run_name(name, sizeof(name), rep, rec);
		for (int k = 0; k < rec->npairs; k++) {
			const struct sa_pair_rec *p = &rec->pairs[k];
			char bps[32] = "-", pk[32] = "-";

			if (p->has_bps)
				snprintf(bps, sizeof(bps), "%.4g Mbit/s", p->throughput_bps / 1e6);
			if (p->has_packets)
				snprintf(pk, sizeof(pk), "%.0f", p->packets);
			snprintf(line, sizeof(line), "  %s pair %d  %s  ports %s  %s  %s packets", name, p->pair, p->spi,
				 p->ports, bps, pk);
			text_clean(line);
			fputs_wrapped(f, line, 0, 6);
		}
	}
}

/* /proc/net/xfrm_stat: each run's counters that moved over its load, at either end (zeros left out). */
static void text_xfrm_stat(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];
		char name[200], line[400];

		if (!rec->nxfrm)
			continue;
		if (!any) {
			fputc('\n', f);
			fputs_wrapped(f, "The kernel's IPsec errors (/proc/net/xfrm_stat) that moved over a run's load, at each end; none elsewhere",
				      0, 0);
		}
		any = true;
		run_name(name, sizeof(name), rep, rec);
		for (int k = 0; k < rec->nxfrm; k++) {
			snprintf(line, sizeof(line), "  %s%s %s %s %.0f", name, rec->counting ? " (count)" : "",
				 rec->xfrm[k].receiver ? "receiver" : "sender", rec->xfrm[k].name, rec->xfrm[k].count);
			text_clean(line);
			fputs_wrapped(f, line, 0, 6);
		}
	}
}

void report_text_pairs(FILE *f, const struct report *rep)
{
	text_sa_pairs(f, rep);
	text_xfrm_stat(f, rep);
}

/* "[KERNEL ]SCENARIO" of a group, cleaned. */
static void group_name(char *buf, size_t len, const struct report *rep, const struct run_group *g)
{
	snprintf(buf, len, "%s%s%s", rep->nkernels > 1 ? g->kernel : "", rep->nkernels > 1 ? " " : "", g->scenario);
	text_clean(buf);
}

/* The ports of a pair, "5201 5203", or "4 from 5201" where they would not fit a narrow column. */
static void ports_cell(char *buf, size_t len, const char *ports)
{
	int n = 1;

	if (strlen(ports) <= 11) {
		snprintf(buf, len, "%s", ports);
		return;
	}
	for (const char *s = ports; *s; s++)
		n += *s == ' ';
	snprintf(buf, len, "%d from %.*s", n, (int)strcspn(ports, " "), ports);
}

/* One pair k of group g's measured runs ok: its throughput, share of the pairs' total and packets, their medians. */
static int pair_row(const struct report *rep, const struct run_group *g, int k, struct tab *t)
{
	double *bps = calloc(g->n, sizeof(*bps)), *share = calloc(g->n, sizeof(*share)),
	       *pk = calloc(g->n, sizeof(*pk));
	int nb = 0, ns = 0, np = 0, row = -1;
	const char *ports = NULL;
	char name[200], cell[48], buf[32];

	if (!bps || !share || !pk)
		goto out;
	for (int j = 0; j < g->n; j++) {
		const struct run_record *rec = &rep->all.runs[g->idx[j]];
		double sum = 0;

		if (rec->status != RUN_OK || rec->counting || k >= rec->npairs)
			continue;
		ports = rec->pairs[k].ports;
		for (int q = 0; q < rec->npairs; q++)
			sum += rec->pairs[q].has_bps ? rec->pairs[q].throughput_bps : 0;
		if (rec->pairs[k].has_bps) {
			bps[nb++] = rec->pairs[k].throughput_bps / 1e6;
			if (sum > 0)
				share[ns++] = 100 * rec->pairs[k].throughput_bps / sum;
		}
		if (rec->pairs[k].has_packets)
			pk[np++] = rec->pairs[k].packets;
	}
	if (!ports) {
		row = 0;
		goto out;
	}
	if ((row = tab_row(t)) < 0)
		goto out;
	group_name(name, sizeof(name), rep, g);
	ports_cell(cell, sizeof(cell), ports);
	tab_set(t, row, 0, "%.30s", name);
	tab_set(t, row, 1, "%d", k);
	tab_set(t, row, 2, "%s", cell);
	tab_set(t, row, 3, "%d", nb);
	double m = nb ? stats_median(bps, nb) : -1;

	tab_set(t, row, 4, "%s", nb ? fmt_num(buf, sizeof(buf), m, fmt_decimals_sig(m, 4)) : "-");
	tab_set(t, row, 5, "%s", ns ? fmt_num(buf, sizeof(buf), stats_median(share, ns), 1) : "-");
	tab_set(t, row, 6, "%s", np ? fmt_num(buf, sizeof(buf), stats_median(pk, np), 0) : "-");
	row = 0;
out:
	free(bps);
	free(share);
	free(pk);
	return row < 0 ? -1 : 0;
}

static int summary_sa_pairs(FILE *f, const struct report *rep)
{
	static const char *const heads[] = { "scenario", "pair", "ports", "runs", "Mbit/s", "share %", "packets" };
	static const bool left[] = { true, false, true, false, false, false, false };
	struct tab t;
	int rc = 0;

	tab_init(&t, 7, heads, left);
	for (int g = 0; g < rep->ngroups && rc == 0; g++) {
		int most = 0;

		for (int j = 0; j < rep->groups[g].n; j++) {
			const struct run_record *rec = &rep->all.runs[rep->groups[g].idx[j]];

			most = rec->npairs > most ? rec->npairs : most;
		}
		for (int k = 0; k < most && rc == 0; k++)
			rc = pair_row(rep, &rep->groups[g], k, &t);
	}
	if (rc == 0 && t.nrows) {
		fputc('\n', f);
		fputs_wrapped(f, "SA pairs (run --sas), over the measured runs: each pair's flows' throughput, its share of the pairs' total and its data SA's packets (medians)",
			      0, 0);
		tab_print(f, &t, NULL);
	}
	tab_free(&t);
	return rc;
}

/* Group g's runs: each end's xfrm_stat counter that moved, in how many runs and by how much in all. */
static int xfrm_rows(const struct report *rep, const struct run_group *g, struct tab *t)
{
	for (int j = 0; j < g->n; j++) {
		const struct run_record *rec = &rep->all.runs[g->idx[j]];

		for (int k = 0; k < rec->nxfrm; k++) {
			const struct xfrm_stat_rec *x = &rec->xfrm[k];
			bool seen = false;

			/* the first run it moved in adds the row; the others were added up there */
			for (int jj = 0; jj < j && !seen; jj++) {
				const struct run_record *o = &rep->all.runs[g->idx[jj]];

				for (int kk = 0; kk < o->nxfrm && !seen; kk++)
					seen = o->xfrm[kk].receiver == x->receiver && !strcmp(o->xfrm[kk].name, x->name);
			}
			if (seen)
				continue;
			int runs = 0, row;
			double total = 0;
			char name[200], cname[48];

			for (int jj = j; jj < g->n; jj++) {
				const struct run_record *o = &rep->all.runs[g->idx[jj]];

				for (int kk = 0; kk < o->nxfrm; kk++)
					if (o->xfrm[kk].receiver == x->receiver && !strcmp(o->xfrm[kk].name, x->name)) {
						runs++;
						total += o->xfrm[kk].count;
					}
			}
			if ((row = tab_row(t)) < 0)
				return -1;
			group_name(name, sizeof(name), rep, g);
			snprintf(cname, sizeof(cname), "%s", x->name);
			text_clean(cname);
			tab_set(t, row, 0, "%.30s", name);
			tab_set(t, row, 1, "%s", x->receiver ? "receiver" : "sender");
			tab_set(t, row, 2, "%s", cname);
			tab_set(t, row, 3, "%d/%d", runs, g->n);
			tab_set(t, row, 4, "%.0f", total);
		}
	}
	return 0;
}

static int summary_xfrm_stat(FILE *f, const struct report *rep)
{
	static const char *const heads[] = { "scenario", "end", "counter", "runs", "total" };
	static const bool left[] = { true, true, true, false, false };
	struct tab t;
	int rc = 0;

	tab_init(&t, 5, heads, left);
	for (int g = 0; g < rep->ngroups && rc == 0; g++)
		rc = xfrm_rows(rep, &rep->groups[g], &t);
	if (rc == 0 && t.nrows) {
		fputc('\n', f);
		fputs_wrapped(f, "The kernel's IPsec errors (/proc/net/xfrm_stat) that moved over a run's load: the runs they moved in and by how much in all; none elsewhere",
			      0, 0);
		tab_print(f, &t, NULL);
	}
	tab_free(&t);
	return rc;
}

int report_summary_pairs(FILE *f, const struct report *rep)
{
	return summary_sa_pairs(f, rep) < 0 || summary_xfrm_stat(f, rep) < 0 ? -1 : 0;
}
