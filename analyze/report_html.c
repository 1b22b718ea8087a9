// SPDX-License-Identifier: GPL-2.0
/* The HTML report (-f html): one self-contained page, the charts inlined as SVG. */
#include "report.h"
#include "report_int.h"

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "html.h"
#include "profile_flame.h"
#include "provenance.h"
#include "summary.h"

/*
 * Inline one gnuplot SVG: without its XML prolog and DOCTYPE (inline SVG
 * needs neither), and with its ids prefixed by the chart number, since
 * every gnuplot SVG defines the same ones (gpPt0, textbox, ...).
 */
static void html_svg(FILE *f, int dfd, const char *name, int chart)
{
	static const char *const refs[] = { "id='", "id=\"", "#gp", "url(#" };
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	char *buf = fd < 0 ? NULL : file_read_fd(fd, NULL), *p;
	size_t n = buf ? strlen(buf) : 0;

	if (fd >= 0)
		close(fd);
	if (n == 0 || !(p = strstr(buf, "<svg"))) {
		free(buf);
		return;
	}
	while (*p) {
		size_t i, len = 0;

		for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
			len = strlen(refs[i]);
			if (!strncmp(p, refs[i], len))
				break;
		}
		if (i == sizeof(refs) / sizeof(refs[0])) {
			fputc(*p++, f);
			continue;
		}
		/* "#gp" keeps its "gp" after the prefix */
		if (i == 2) {
			fprintf(f, "#c%d-", chart);
			p += 1;
		} else {
			fprintf(f, "%.*sc%d-", (int)len, p, chart);
			p += len;
		}
	}
	free(buf);
}

/* "Throughput", "Cycles per byte", "esp_output per packet" for a chart's base name */
static void chart_heading(FILE *f, const struct report *rep, const char *name)
{
	int g;

	if (sscanf(name, "time-g%d", &g) == 1 && g >= 1 && g <= rep->ngroups) {
		fputs("Throughput over time, ", f);
		html_esc(f, rep->groups[g - 1].kernel);
		fputc(' ', f);
		html_esc(f, rep->groups[g - 1].scenario);
	} else if (!strcmp(name, "throughput"))
		fputs("Throughput", f);
	else if (!strcmp(name, "cycles_per_byte"))
		fputs("Cycles per byte", f);
	else if (!strcmp(name, "instructions_per_byte"))
		fputs("Instructions per byte", f);
	else if (!strcmp(name, "transactions_per_s"))
		fputs("Transactions per second", f);
	else if (!strcmp(name, "cycles_per_transaction"))
		fputs("Cycles per transaction", f);
	else if (!strcmp(name, "latency"))
		fputs("Latency distribution, per percentile", f);
	else if (!strcmp(name, "datagrams_per_s"))
		fputs("Datagrams per second at the rate found", f);
	else if (!strcmp(name, "cycles_per_datagram"))
		fputs("Cycles per datagram", f);
	else if (!strncmp(name, "counter-", 8)) {
		html_esc(f, name + 8);
		fputs(" per packet", f);
	} else
		html_esc(f, name);
}

static const struct report_row *find_row_q(const struct report *rep, const struct run_group *g,
					   enum metric_kind kind, int q)
{
	for (int i = 0; i < rep->nrows; i++)
		if (rep->rows[i].g == g && rep->rows[i].m.kind == kind && (kind != METRIC_LAT || rep->rows[i].m.q == q))
			return &rep->rows[i];
	return NULL;
}

static const struct report_row *find_row(const struct report *rep, const struct run_group *g,
					 enum metric_kind kind)
{
	return find_row_q(rep, g, kind, 0);
}

static void html_cv(FILE *f, const struct stats *s)
{
	if (isnan(s->cv))
		fputs("<td class=n>-</td>", f);
	else
		fprintf(f, "<td class=\"n%s\">%.1f%%</td>", s->cv > CV_WARN ? " warn" : "", 100 * s->cv);
}

/* One scenario's line of the summary table: throughput, ratio, cycles/byte. */
static void html_summary_row(FILE *f, const struct report *rep, int g, const struct report_row *t,
			     const struct report_row *c)
{
	char num[32];

	fprintf(f, "<tr><td>");
	html_esc(f, rep->groups[g].scenario);
	fprintf(f, "</td><td class=n>%s</td><td class=n>%d</td>",
		fmt_num(num, sizeof(num), t->s.median, fmt_decimals(t->s.median)), t->s.n);
	if (isnan(t->ratio))
		fputs("<td class=n>-</td>", f);
	else
		fprintf(f, "<td class=n>%.3fx</td>", t->ratio);
	html_cv(f, &t->s);
	if (c) {
		fprintf(f, "<td class=n>%s</td>",
			fmt_num(num, sizeof(num), c->s.median, fmt_decimals(c->s.median)));
		html_cv(f, &c->s);
	} else {
		fputs("<td class=n>-</td><td class=n>-</td>", f);
	}
	fputs("</tr>\n", f);
}

/*
 * What the verdict cannot say: the scenarios whose interval overlaps the
 * slowest's (not told apart by these runs), and those not measured at all.
 */
static void html_verdict_qualified(FILE *f, const struct report *rep, int k, const struct report_row *low)
{
	for (int pass = 0; pass < 2; pass++) {
		int n = 0;

		for (int g = 0; g < rep->ngroups; g++) {
			const struct report_row *t = find_row(rep, &rep->groups[g], METRIC_THROUGHPUT);
			bool hit;

			if (!t || t == low || strcmp(rep->groups[g].kernel, rep->kernels[k]))
				continue;
			hit = pass ? t->s.n == 0
				   : t->s.n && !isnan(t->s.iv_lo) && !isnan(low->s.iv_lo) &&
					     t->s.iv_lo <= low->s.iv_hi && low->s.iv_lo <= t->s.iv_hi;
			if (!hit)
				continue;
			fputs(n++ ? ", " : pass ? " Not measured (no ok run; see the runs not ok): "
						: " Its interval overlaps those of ", f);
			html_esc(f, t->g->scenario);
		}
		if (n && !pass)
			fputs(": these runs do not tell which of them is the slowest.", f);
		else if (n)
			fputc('.', f);
	}
}

/* Kernel k's summary table and verdict. */
static void html_summary_kernel(FILE *f, const struct report *rep, int k)
{
	const struct report_row *first = NULL, *low = NULL;

	fprintf(f, "<h3>kernel ");
	html_esc(f, rep->kernels[k]);
	/* the virtual clock counts no cycles: its cost column is instructions */
	bool virt = !strcmp(results_clock(&rep->all), "virtual");

	fprintf(f, "</h3>\n<table>\n<tr><th>scenario</th><th>throughput, Gbit/s</th><th>n</th>"
		   "<th>ratio to first</th><th>CV</th><th>%s</th><th>CV</th></tr>\n",
		virt ? "instructions/byte" : "cycles/byte");
	for (int g = 0; g < rep->ngroups; g++) {
		const struct report_row *t, *c;

		if (strcmp(rep->groups[g].kernel, rep->kernels[k]))
			continue;
		t = find_row(rep, &rep->groups[g], METRIC_THROUGHPUT);
		c = find_row(rep, &rep->groups[g], virt ? METRIC_IPB : METRIC_CPB);
		if (!t)
			continue;
		if (!first)
			first = t;
		if (t->s.n && (!low || t->s.median < low->s.median))
			low = t;
		html_summary_row(f, rep, g, t, c);
	}
	fputs("</table>\n", f);
	if (first && low && low != first && !isnan(low->ratio)) {
		fprintf(f, "<p class=verdict>Verdict: the slowest scenario, ");
		html_esc(f, low->g->scenario);
		fprintf(f, ", reaches %.3fx the throughput of ", low->ratio);
		html_esc(f, first->g->scenario);
		fprintf(f, " (%+.1f%%).", 100 * (low->ratio - 1));
		html_verdict_qualified(f, rep, k, low);
		fputs("</p>\n", f);
	}
}

/* A median cell of the row, "-" without one. */
static void html_median(FILE *f, const struct report_row *r)
{
	char num[32];

	fprintf(f, "<td class=n>%s</td>", r ? fmt_num(num, sizeof(num), r->s.median, fmt_decimals(r->s.median)) : "-");
}

/* Kernel k's request/response and packet-rate scenarios: a table each, beside the streams'. */
static void html_summary_units(FILE *f, const struct report *rep, int k, enum run_unit u)
{
	bool any = false;

	for (int g = 0; g < rep->ngroups; g++) {
		const struct run_group *grp = &rep->groups[g];
		const struct report_row *t = find_row(rep, grp, u == UNIT_TRANSACTION ? METRIC_TPS : METRIC_PPS);

		if (strcmp(grp->kernel, rep->kernels[k]) || group_unit(&rep->all, grp) != u || !t)
			continue;
		if (!any)
			fprintf(f, u == UNIT_TRANSACTION
				? "<table>\n<tr><th>scenario</th><th>transactions/s</th><th>n</th><th>ratio to first</th><th>CV</th>"
				  "<th>p50, &micro;s</th><th>p99, &micro;s</th><th>p99.9, &micro;s</th><th>cycles/transaction</th></tr>\n"
				: "<table>\n<tr><th>scenario</th><th>datagrams/s</th><th>n</th><th>ratio to first</th><th>CV</th>"
				  "<th>Gbit/s</th><th>loss, %%</th><th>cycles/datagram</th></tr>\n");
		any = true;
		fprintf(f, "<tr><td>");
		html_esc(f, grp->scenario);
		fputs("</td>", f);
		html_median(f, t);
		fprintf(f, "<td class=n>%d</td>", t->s.n);
		if (isnan(t->ratio))
			fputs("<td class=n>-</td>", f);
		else
			fprintf(f, "<td class=n>%.3fx</td>", t->ratio);
		html_cv(f, &t->s);
		if (u == UNIT_TRANSACTION) {
			html_median(f, find_row_q(rep, grp, METRIC_LAT, 0));
			html_median(f, find_row_q(rep, grp, METRIC_LAT, 2));
			html_median(f, find_row_q(rep, grp, METRIC_LAT, 3));
		} else {
			html_median(f, find_row(rep, grp, METRIC_THROUGHPUT));
			html_median(f, find_row(rep, grp, METRIC_LOSS));
		}
		html_median(f, find_row(rep, grp, METRIC_CPU_UNIT));
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</table>\n", f);
}

/* Where it was measured, one item per source. */
static void html_summary_prov(FILE *f, const struct report *rep)
{
	fprintf(f, "<ul class=prov>\n");
	for (int i = 0; i < rep->nsrc; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		char accel[256];

		fprintf(f, "<li>testbed <strong>");
		html_esc(f, m->testbed ? m->testbed : "(not recorded)");
		fprintf(f, "</strong>, accelerator <strong>");
		html_esc(f, prov_accel(rep->src, &rep->all, i, accel, sizeof(accel)));
		fprintf(f, "</strong> on ");
		html_esc(f, m->host ? m->host : "(host not recorded)");
		if (m->cpu_model) {
			fputs(", ", f);
			html_esc(f, m->cpu_model);
		}
		if (m->cpu_count > 0)
			fprintf(f, ", %d CPUs", m->cpu_count);
		if (m->duration_s > 0)
			fprintf(f, "; %g s runs", m->duration_s);
		fputs("</li>\n", f);
		if (prov_emulated(rep->src, &rep->all, i)) {
			fprintf(f, "<li class=caution>Caution: ");
			html_esc(f, prov_emulated_caution());
			fputs("</li>\n", f);
		}
	}
	fputs("</ul>\n", f);
}

/* The summary: provenance in brief, per kernel the scenarios' ratios and CVs, the warnings. */
static void html_summary(FILE *f, const struct report *rep)
{
	char *warn = NULL;
	size_t wlen = 0;
	FILE *w;

	fprintf(f, "<section id=summary><h2>Summary</h2>\n");
	html_summary_prov(f, rep);
	for (int k = 0; k < rep->nkernels; k++) {
		html_summary_kernel(f, rep, k);
		html_summary_units(f, rep, k, UNIT_TRANSACTION);
		html_summary_units(f, rep, k, UNIT_DATAGRAM);
	}
	w = open_memstream(&warn, &wlen);
	if (w) {
		summary_cv_warnings(w, &rep->all);
		report_interval_warnings(w, rep);
		fclose(w);
		if (wlen) {
			fputs("<div class=warn><pre>", f);
			html_esc(f, warn + 1);
			fputs("</pre></div>\n", f);
		}
		free(warn);
	}
	if (report_not_ok(&rep->all))
		fprintf(f, "<p class=warn>%d runs not ok, left out of every figure (see the text report).</p>\n",
			report_not_ok(&rep->all));
	for (int i = 0; i < rep->notes.n; i++) {
		fprintf(f, "<p class=warn>%s: ", rep->notes.v[i].allowed ? "mismatch (allowed)" : "note");
		html_esc(f, rep->notes.v[i].text);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* The figures of one kernel: throughput and cycles per byte, then the counters. */
static void html_kernel_figures(FILE *f, const struct report *rep, int k)
{
	bool any = false;

	fprintf(f, "<h3>kernel ");
	html_esc(f, rep->kernels[k]);
	fprintf(f, "</h3>\n<table>\n<tr><th>scenario</th><th>metric</th><th>n</th><th>median</th>"
		   "<th>interval</th><th>covers</th><th>CV</th><th>ratio</th></tr>\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64], cover[16] = "-";
		int d = fmt_decimals(row->s.median);

		if (row->k != k || row->m.kind == METRIC_COUNTER)
			continue;
		fmt_cover(cover, sizeof(cover), row->s.iv_cover);
		fprintf(f, "<tr><td>");
		html_esc(f, row->g->scenario);
		fprintf(f, "</td><td>%s</td><td class=n>%d</td><td class=n>%s</td><td class=n>%s</td>"
			   "<td class=n>%s</td>",
			metric_unit(&row->m), row->s.n, fmt_num(med, sizeof(med), row->s.median, d),
			fmt_interval(rng, sizeof(rng), &row->s, d), cover);
		html_cv(f, &row->s);
		if (isnan(row->ratio))
			fputs("<td class=n></td></tr>\n", f);
		else
			fprintf(f, "<td class=n>%.3f</td></tr>\n", row->ratio);
	}
	fputs("</table>\n", f);
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64];
		int d = fmt_decimals(row->s.median);

		if (row->k != k || row->m.kind != METRIC_COUNTER || !row->s.n)
			continue;
		if (!any)
			fprintf(f, "<table>\n<tr><th>counter, per packet</th><th>scenario</th><th>n</th>"
				   "<th>median</th><th>interval</th></tr>\n");
		any = true;
		fprintf(f, "<tr><td>");
		html_esc(f, row->m.counter);
		fprintf(f, "</td><td>");
		html_esc(f, row->g->scenario);
		fprintf(f, "</td><td class=n>%d</td><td class=n>%s</td><td class=n>%s</td></tr>\n", row->s.n,
			fmt_num(med, sizeof(med), row->s.median, d), fmt_interval(rng, sizeof(rng), &row->s, d));
	}
	if (any)
		fputs("</table>\n", f);
}

/* Counters that no run gave a value: listed with their reason, never drawn. */
static void html_counters_not_drawn(FILE *f, const struct report *rep)
{
	json_t *seen = json_object();
	bool any = false;

	for (int i = 0; seen && i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		const char *why;

		if (row->m.kind != METRIC_COUNTER || json_object_get(seen, row->m.counter))
			continue;
		json_object_set_new(seen, row->m.counter, json_true());
		why = report_counter_not_drawn(rep, row->m.counter);
		if (!why)
			continue;
		if (!any)
			fputs("<p>Counters not drawn, without a value in any run:</p>\n<ul>\n", f);
		any = true;
		fputs("<li><strong>", f);
		html_esc(f, row->m.counter);
		fputs("</strong>: ", f);
		html_esc(f, why);
		fputs("</li>\n", f);
	}
	if (any)
		fputs("</ul>\n", f);
	json_decref(seen);
}

/* The page's head and style. */
static void html_head(FILE *f)
{
	html_page_head(f, "ipsecperf report");
}

/* Was a run recorded with --profile? Then the page has flame graphs. */
static bool report_profiled(const struct report *rep)
{
	for (int i = 0; i < rep->all.nruns; i++)
		if (rep->all.runs[i].profiled)
			return true;
	return false;
}

/* The flame graphs of the profiled runs (analyze/profile_flame.c reads them again, as report --profile does). */
static int html_profiles(FILE *f, const struct report *rep)
{
	char **dirs = calloc(rep->nsrc, sizeof(*dirs));
	int ret;

	if (!dirs)
		return -1;
	for (int i = 0; i < rep->nsrc; i++)
		dirs[i] = rep->src[i].dir;
	fputs("</section>\n", f);
	ret = profile_flame_html(f, dirs, rep->nsrc);
	free(dirs);
	return ret;
}

/* The contents, a link per chart. */
static void html_nav(FILE *f, const struct report *rep, int ncharts, char **chart_names)
{
	fputs("<nav><h2>Contents</h2>\n<ol>\n<li><a href=\"#summary\">Summary</a></li>\n"
	      "<li><a href=\"#figures\">Figures</a></li>\n<li><a href=\"#charts\">Charts</a>", f);
	if (ncharts > 0) {
		fputs("\n<ol>\n", f);
		for (int i = 0; i < ncharts; i++) {
			fprintf(f, "<li><a href=\"#chart-%d\">", i);
			chart_heading(f, rep, chart_names[i]);
			fputs("</a></li>\n", f);
		}
		fputs("</ol>\n", f);
	}
	fputs("</li>\n", f);
	if (report_profiled(rep))
		fputs("<li><a href=\"#profiles\">Flame graphs</a></li>\n", f);
	fputs("<li><a href=\"#text\">Text report</a></li>\n"
	      "<li><a href=\"#provenance\">Provenance</a></li>\n</ol></nav>\n", f);
}

/* The charts section: each SVG inline, captioned with where it was measured. */
static void html_charts(FILE *f, const struct report *rep, int chart_dfd, int ncharts,
			char **chart_names, const char *no_charts)
{
	char sub[1024];

	fputs("</section>\n<section id=charts><h2>Charts</h2>\n", f);
	if (ncharts > 0)
		fputs("<p>Bars: median; whiskers: its interval; dots: the runs; n in the labels. A chart whose "
		      "values span more than 10x has a log scale. Throughput over time: each run's 1 s "
		      "intervals (iperf3's or the stream load's), one line per repeat. Latency: each "
		      "request/response scenario's distribution, the median run's latency at each percentile, "
		      "the percentiles spaced by their nines.</p>\n", f);
	if (no_charts) {
		fputs("<p class=warn>No charts: ", f);
		html_esc(f, no_charts);
		fputs(".</p>\n", f);
	}
	html_counters_not_drawn(f, rep);
	report_chart_subtitle(rep, sub, sizeof(sub));
	for (int i = 0; i < ncharts; i++) {
		char name[300];

		snprintf(name, sizeof(name), "%s.svg", chart_names[i]);
		fprintf(f, "<figure id=\"chart-%d\">\n", i);
		html_svg(f, chart_dfd, name, i);
		fputs("<figcaption>", f);
		chart_heading(f, rep, chart_names[i]);
		fputs(": ", f);
		html_esc(f, sub);
		fputs("</figcaption>\n</figure>\n", f);
	}
}

/* Where each source was measured, a table each. */
static void html_provenance(FILE *f, const struct report *rep)
{
	struct report_kv kv[16];

	for (int i = 0; i < rep->nsrc; i++) {
		int n = report_provenance(rep, i, kv, 12);

		fprintf(f, "<table>\n");
		for (int j = 0; j < n; j++) {
			fprintf(f, "<tr><th>%s</th><td%s>%s", kv[j].key,
				strcmp(kv[j].key, "caution") ? "" : " class=caution",
				strcmp(kv[j].key, "command") ? "" : "<code>");
			html_esc(f, kv[j].val);
			fprintf(f, "%s</td></tr>\n", strcmp(kv[j].key, "command") ? "" : "</code>");
		}
		fprintf(f, "</table>\n");
	}
}

int report_html(FILE *f, const struct report *rep, int chart_dfd, int ncharts,
		char **chart_names, const char *no_charts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);

	if (!t)
		return -1;
	report_text(t, rep);
	fclose(t);
	html_head(f);
	html_summary(f, rep);
	html_nav(f, rep, ncharts, chart_names);
	fprintf(f, "<section id=figures><h2>Figures</h2>\n<p>n: runs with status ok. Interval: the "
		   "median's, distribution-free (min-max up to 8 runs); covers: how often it holds the median; "
		   "CV: the coefficient of variation (highlighted above %.0f%%). Ratio: the median throughput "
		   "over the first scenario's.</p>\n", 100 * CV_WARN);
	for (int k = 0; k < rep->nkernels; k++)
		html_kernel_figures(f, rep, k);
	html_charts(f, rep, chart_dfd, ncharts, chart_names, no_charts);
	if (report_profiled(rep) && html_profiles(f, rep) < 0) {
		free(text);
		return -1;
	}
	fprintf(f, "%s<section id=text><h2>Text report</h2>\n<p>As it would be pasted into a "
		   "mail.</p>\n<pre>", report_profiled(rep) ? "" : "</section>\n");
	html_esc(f, text);
	fprintf(f, "</pre></section>\n<section id=provenance><h2>Provenance</h2>\n");
	html_provenance(f, rep);
	fprintf(f, "</section>\n</body></html>\n");
	free(text);
	return ferror(f) ? -1 : 0;
}
