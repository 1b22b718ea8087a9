// SPDX-License-Identifier: GPL-2.0
/* The markdown report (-f md, markdown): the tables of a pull request or a wiki page. */
#include "report.h"
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		/* < > & too: a renderer must not take a name for HTML */
		if (strchr("|\\*_`<>&", *s))
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/* s as a code span: fenced by more backquotes than it holds in a row */
static void md_code(FILE *f, const char *s)
{
	int run = 0, longest = 0;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, longest ? " %s " : "%s", s);
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
}

/* Markdown: where each source was measured, as a two-column table. */
static void md_provenance(FILE *f, const struct report *rep)
{
	struct report_kv kv[16];

	for (int i = 0; i < rep->nsrc; i++) {
		int n = report_provenance(rep, i, kv, 12);

		fprintf(f, "| | |\n|---|---|\n");
		for (int j = 0; j < n; j++) {
			fprintf(f, "| %s | ", kv[j].key);
			if (!strcmp(kv[j].key, "command"))
				md_code(f, kv[j].val); /* shown verbatim */
			else
				md_cell(f, kv[j].val);
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	}
}

/* Markdown: throughput and cycles (virtual clock: instructions) per byte, one row per kernel, scenario and metric. */
static void md_main_table(FILE *f, const struct report *rep)
{
	fprintf(f, "## Throughput and %s per byte\n\n",
		!strcmp(results_clock(&rep->all), "virtual") ? "instructions" : "cycles");
	fprintf(f, 
		   "n: runs with status ok. interval: the median's, distribution-free (docs/methodology.md); "
		   "covers: how often it holds the median. CV: the coefficient of variation.\n\n");
	fprintf(f, "| kernel | scenario | metric | n | median | interval | covers | CV | ratio |\n"
		   "|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64], ratio[32] = "", cv[16] = "-", cover[16] = "-";
		int d = fmt_decimals(row->s.median);

		if (row->m.kind == METRIC_COUNTER)
			continue;
		if (!isnan(row->ratio))
			snprintf(ratio, sizeof(ratio), "%.3f", row->ratio);
		if (!isnan(row->s.cv))
			snprintf(cv, sizeof(cv), "%.1f%%", 100 * row->s.cv);
		fmt_cover(cover, sizeof(cover), row->s.iv_cover);
		fprintf(f, "| ");
		md_cell(f, row->g->kernel);
		fprintf(f, " | ");
		md_cell(f, row->g->scenario);
		fprintf(f, " | %s | %d | %s | %s | %s | %s | %s |\n", metric_unit(&row->m), row->s.n,
			fmt_num(med, sizeof(med), row->s.median, d), fmt_interval(rng, sizeof(rng), &row->s, d),
			cover, cv, ratio);
	}
}

/* Markdown: the per-packet counters, when there are any. */
static void md_counters(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64];
		int d = fmt_decimals(row->s.median);

		if (row->m.kind != METRIC_COUNTER)
			continue;
		if (!any) {
			fprintf(f, "\n## Per-packet counters\n\n"
				   "| kernel | scenario | counter | n | median | interval |\n"
				   "|---|---|---|---:|---:|---:|\n");
			any = true;
		}
		fprintf(f, "| ");
		md_cell(f, row->g->kernel);
		fprintf(f, " | ");
		md_cell(f, row->g->scenario);
		fprintf(f, " | ");
		md_cell(f, row->m.counter);
		if (row->s.n)
			fprintf(f, " | %d | %s | %s |\n", row->s.n, fmt_num(med, sizeof(med), row->s.median, d),
				fmt_interval(rng, sizeof(rng), &row->s, d));
		else {
			/* no figure: the reason spans the figures' columns, in words */
			fprintf(f, " | 0 | no value: ");
			md_cell(f, row->unavailable ? row->unavailable : "none recorded");
			fprintf(f, " | - |\n");
		}
	}
}

/* Markdown: the runs not ok, which the figures exclude. */
static void md_not_ok(FILE *f, const struct report *rep)
{
	if (!report_not_ok(&rep->all))
		return;
	fprintf(f, "\n## Runs not ok (excluded)\n\n| kernel | scenario | repeats | status | reason |\n"
		   "|---|---|---:|---|---|\n");
	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];
		int n, first, last;

		/* once per scenario and reason, not per repeat */
		if (!summary_not_ok_group(&rep->all, i, &n, &first, &last))
			continue;
		fprintf(f, "| ");
		md_cell(f, rec->kernel);
		fprintf(f, " | ");
		md_cell(f, rec->scenario);
		if (n == 1)
			fprintf(f, " | %d | %s | ", first, run_status_name(rec->status));
		else
			fprintf(f, " | %d-%d (%d) | %s | ", first, last, n, run_status_name(rec->status));
		md_cell(f, rec->reason ? rec->reason : "");
		fprintf(f, " |\n");
	}
}

/* Markdown: the warnings as text, verbatim. */
static void md_warnings(FILE *f, const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&buf, &len);

	if (!w)
		return;
	summary_cv_warnings(w, &rep->all);
	fclose(w);
	if (len)
		fprintf(f, "\n```\n%s```\n", buf + 1);
	free(buf);
}

int report_markdown(FILE *f, const struct report *rep)
{
	fprintf(f, "# ipsecperf report\n\n");
	md_provenance(f, rep);
	md_main_table(f, rep);
	md_counters(f, rep);
	md_not_ok(f, rep);
	md_warnings(f, rep);
	return ferror(f) ? -1 : 0;
}
