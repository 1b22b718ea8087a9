// SPDX-License-Identifier: GPL-2.0
/* gnuplot charts for `ipsecperf report --charts`: data files + the bars.gp template. */
#include <math.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "files.h"
#include "log.h"
#include "charts_int.h"
#include "gnuplot.h"
#include "report.h"

const char *templates_dir(void)
{
	/* build/ipsecperf finds ../analyze/templates; an install finds share/ */
	static const char *const rels[] = { "../analyze/templates", "../share/ipsecperf/templates", NULL };
	static char dir[PATH_MAX + 64];

	return data_dir("IPSECPERF_TEMPLATES", rels, "bars.gp", "templates", dir,
			sizeof(dir));
}

struct chart {
	char name[128];
	char title[192];
	const char *ylabel;
	struct metric m;
};

/*
 * Scenarios of all kernels, in first-appearance order, and for each group
 * (by its index in rep->groups) its scenario's number.
 */
static int scenario_list(const struct report *rep, const char ***out, int **group_scen)
{
	const char **s = calloc(rep->ngroups + 1, sizeof(*s));
	int *gs = calloc(rep->ngroups + 1, sizeof(*gs));
	json_t *seen = json_object();
	int n = 0;

	if (!s || !gs || !seen)
		goto out_nomem;
	for (int i = 0; i < rep->ngroups; i++) {
		json_t *j = json_object_get(seen, rep->groups[i].scenario);

		if (!j) {
			if (json_object_set_new(seen, rep->groups[i].scenario, json_integer(n)) < 0)
				goto out_nomem;
			s[n++] = rep->groups[i].scenario;
			gs[i] = n - 1;
		} else {
			gs[i] = (int)json_integer_value(j);
		}
	}
	json_decref(seen);
	*out = s;
	*group_scen = gs;
	return n;
out_nomem:
	json_decref(seen);
	free(s);
	free(gs);
	return -1;
}

/*
 * The chart's row of each scenario (of nscen) and kernel: cell[s * nk + k],
 * NULL where there is none; one pass over the rows.
 */
static const struct report_row **chart_cells(const struct report *rep, const struct chart *c,
					     const int *group_scen, int nscen)
{
	const struct report_row **cell = calloc((size_t)nscen * rep->nkernels + 1, sizeof(*cell));

	for (int i = 0; cell && i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];

		if (r->m.kind == c->m.kind && (c->m.kind != METRIC_COUNTER || !strcmp(r->m.counter, c->m.counter)) &&
		    (c->m.kind != METRIC_CPU_UNIT || r->m.unit == c->m.unit))
			cell[(size_t)group_scen[r->g - rep->groups] * rep->nkernels + r->k] = r;
	}
	return cell;
}

/* NAME.runs.dat: every ok run's value, "scenario kernel value", drawn as points over the bars */
static int write_runs(const struct report *rep, int dfd, const struct chart *c,
		      const struct report_row **cell, int nscen)
{
	char name[200];
	double *v;
	FILE *f;

	snprintf(name, sizeof(name), "%s.runs.dat", c->name);
	f = chart_file(dfd, name, 0644);
	if (!f)
		return -1;
	fprintf(f, "# %s: scenario number, kernel number, one ok run's value\n", c->name);
	for (int s = 0; s < nscen; s++)
		for (int k = 0; k < rep->nkernels; k++) {
			const struct report_row *r = cell[(size_t)s * rep->nkernels + k];
			int n;

			if (!r || !r->s.n)
				continue;
			v = calloc(r->g->n + 1, sizeof(*v));
			if (!v)
				break;
			n = group_values(&rep->all, r->g, &r->m, v);
			for (int i = 0; i < n; i++)
				fprintf(f, "%d %d %.10g\n", s + 1, k + 1, v[i]);
			free(v);
		}
	return fclose(f) != 0 ? -1 : 0;
}

/*
 * Write NAME.dat (numbers only) and NAME.vars.gp (the names, as gnuplot
 * strings); 0 if written, 1 if there is nothing to plot.
 */
/* The medians and whiskers of chart c into name: 1 written, 0 all zero (nothing to draw), -1. */
static int write_dat(const struct report *rep, int dfd, const char *name, const struct chart *c,
		     const struct report_row **cell, int nscen, bool *logscale)
{
	bool any = false, nonpos = false;
	double lo = 0, hi = 0;
	FILE *f = chart_file(dfd, name, 0644);

	if (!f)
		return -1;
	fprintf(f, "# %s: scenario number, then per kernel: median min max\n", c->name);
	for (int s = 0; s < nscen; s++) {
		fprintf(f, "%d", s + 1);
		for (int k = 0; k < rep->nkernels; k++) {
			const struct report_row *r = cell[(size_t)s * rep->nkernels + k];

			if (!r || !r->s.n) {
				fprintf(f, " - - -");
				continue;
			}
			/* all zero is nothing to draw either: gnuplot's empty y range */
			any |= r->s.min != 0 || r->s.max != 0;
			if (r->s.min > 0 && (lo == 0 || r->s.min < lo))
				lo = r->s.min;
			if (r->s.max > hi)
				hi = r->s.max;
			nonpos |= r->s.min <= 0;
			/* the whiskers: the median's interval (min-max up to 8 runs), as compare draws it */
			fprintf(f, " %.10g %.10g %.10g", r->s.median, isnan(r->s.iv_lo) ? r->s.min : r->s.iv_lo,
				isnan(r->s.iv_hi) ? r->s.max : r->s.iv_hi);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		return -1;
	/* a log scale where the values span more than 10x: 0.009 beside 0.39 stays visible */
	*logscale = !nonpos && lo > 0 && hi / lo > 10;
	return any;
}

/* Scenario s's label: its name and how many runs its bars stand on. */
static void scenario_label(const struct report *rep, const struct report_row **cell, int s,
			   const char *name, char *label, size_t len)
{
	int nmin = -1, nmax = -1;

	for (int k = 0; k < rep->nkernels; k++) {
		const struct report_row *r = cell[(size_t)s * rep->nkernels + k];

		if (!r || !r->s.n)
			continue;
		if (nmin < 0 || r->s.n < nmin)
			nmin = r->s.n;
		if (r->s.n > nmax)
			nmax = r->s.n;
	}
	if (nmin < 0)
		snprintf(label, len, "%.900s (n=0)", name);
	else if (nmin == nmax)
		snprintf(label, len, "%.900s (n=%d)", name, nmin);
	else
		snprintf(label, len, "%.900s (n=%d-%d)", name, nmin, nmax);
}

/* The settings bars.gp reads for chart c; nonzero if a string could not be written. */
static int write_vars(FILE *f, const struct report *rep, const struct chart *c, const char **scen,
		      const struct report_row **cell, int nscen, bool logscale)
{
	int err = 0;

	fprintf(f, "# settings of chart %s, for bars.gp; written by ipsecperf report\n", c->name);
	fprintf(f, "datafile = ");
	err |= gp_str(f, c->name);
	fprintf(f, ".'.dat'\nrunsfile = ");
	err |= gp_str(f, c->name);
	fprintf(f, ".'.runs.dat'\noutfile = ");
	err |= gp_str(f, c->name);
	fprintf(f, "\ntitle = ");
	err |= gp_str(f, c->title);
	err |= gp_subtitle(f, rep);
	fprintf(f, "\nylabel = ");
	err |= gp_str(f, c->ylabel);
	fprintf(f, "\nlogscale = %d", logscale);
	fprintf(f, "\nnk = %d\narray kernel[nk]\n", rep->nkernels);
	for (int k = 0; k < rep->nkernels; k++) {
		fprintf(f, "kernel[%d] = ", k + 1);
		err |= gp_str(f, rep->kernels[k]);
		fputc('\n', f);
	}
	fprintf(f, "ns = %d\narray label[ns]\n", nscen);
	for (int s = 0; s < nscen; s++) {
		char label[1024];

		scenario_label(rep, cell, s, scen[s], label, sizeof(label));
		fprintf(f, "label[%d] = ", s + 1);
		err |= gp_str(f, label);
		fputc('\n', f);
	}
	return err;
}

static int write_chart(const struct report *rep, int dfd, const struct chart *c,
		       const char **scen, const int *group_scen, int nscen)
{
	const struct report_row **cell = chart_cells(rep, c, group_scen, nscen);
	char name[200];
	bool logscale = false;
	int err = -1, any;
	FILE *f;

	if (!cell)
		return -1;
	snprintf(name, sizeof(name), "%s.dat", c->name);
	any = write_dat(rep, dfd, name, c, cell, nscen, &logscale);
	if (any < 0)
		goto out;
	if (!any) {
		unlinkat(dfd, name, 0);
		err = 1;
		goto out;
	}
	if (write_runs(rep, dfd, c, cell, nscen) < 0)
		goto out;
	snprintf(name, sizeof(name), "%s.vars.gp", c->name);
	f = chart_file(dfd, name, 0644);
	if (!f)
		goto out;
	err = write_vars(f, rep, c, scen, cell, nscen, logscale);
	if (fclose(f) != 0 || err) {
		if (err)
			errno = EINVAL; /* a control character: never in a script */
		err = -1;
	}
out:
	free(cell);
	return err;
}

/* the gnuplot scripts copied beside the charts */
static const char *const chart_templates[] = { "bars.gp", "timeseries.gp", "latency.gp", NULL };

/* The templates into the folder (dfd, named dir; report_run has found gnuplot); 0 or -1 after a message. */
static int charts_prepare(int dfd, const char *dir)
{
	char from[PATH_MAX + 16];

	/* the templates go beside the data, so that a user can re-plot with their own tweaks */
	for (const char *const *t = chart_templates; *t; t++) {
		size_t len = 0;
		char *text;
		FILE *f = NULL;
		int bad;

		snprintf(from, sizeof(from), "%s/%s", templates_dir(), *t);
		text = file_read(from, &len);
		bad = !text || !(f = chart_file(dfd, *t, 0644)) || fwrite(text, 1, len, f) != len;
		if (f && fclose(f) != 0)
			bad = 1;
		free(text);
		if (bad) {
			pr_warn("report: cannot copy the chart template %s to %s/%s: %s (set IPSECPERF_TEMPLATES)",
				from, dir, *t, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The bar charts: throughput, cycles per byte, then one per counter in first-appearance order. */
static int chart_list(const struct report *rep, struct chart *charts)
{
	int ncharts = 0;

	charts[ncharts++] = (struct chart){ "throughput", "Throughput (receiver): median, whiskers its interval",
					    "Gbit/s", { .kind = METRIC_THROUGHPUT } };
	charts[ncharts++] = (struct chart){ "cycles_per_byte",
					    "CPU cycles per byte received: median, whiskers its interval",
					    "cycles per byte", { .kind = METRIC_CPB } };
	/* the virtual clock's cost, or the PMU's instructions beside cycles (nothing drawn without them) */
	charts[ncharts++] = (struct chart){ "instructions_per_byte",
					    "Instructions per byte received: median, whiskers its interval",
					    "instructions per byte", { .kind = METRIC_IPB } };
	/* the other loads' (nothing is drawn where no scenario has one) */
	charts[ncharts++] = (struct chart){ "transactions_per_s", "Request/response: transactions per second, median, whiskers min-max",
					    "transactions per second", { .kind = METRIC_TPS } };
	charts[ncharts++] = (struct chart){ "cycles_per_transaction", "CPU cycles per transaction: median, whiskers min-max",
					    "cycles per transaction", { .kind = METRIC_CPU_UNIT, .unit = UNIT_TRANSACTION } };
	charts[ncharts++] = (struct chart){ "datagrams_per_s",
					    "Packet rate: datagrams per second at the highest rate under the loss threshold, median, whiskers min-max",
					    "datagrams per second", { .kind = METRIC_PPS } };
	charts[ncharts++] = (struct chart){ "cycles_per_datagram", "CPU cycles per datagram: median, whiskers min-max",
					    "cycles per datagram", { .kind = METRIC_CPU_UNIT, .unit = UNIT_DATAGRAM } };
	int nfixed = ncharts;

	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];
		int j;

		if (r->m.kind != METRIC_COUNTER)
			continue;
		for (j = nfixed; j < ncharts; j++)
			if (!strcmp(charts[j].m.counter, r->m.counter))
				break;
		if (j < ncharts)
			continue;
		charts[ncharts].m = r->m;
		snprintf(charts[ncharts].name, sizeof(charts[0].name), "counter-%s", r->m.counter);
		snprintf(charts[ncharts].title, sizeof(charts[0].title),
			 "%s per packet sent: median, whiskers its interval", r->m.counter);
		charts[ncharts].ylabel = "events per packet sent";
		ncharts++;
	}
	return ncharts;
}

/* One bar chart, data and both images: 1 drawn, 0 nothing to draw, -1 after a message. */
static int bar_chart(const struct report *rep, int dfd, const char *dir, const struct chart *c,
		     const char **scen, const int *group_scen, int nscen)
{
	char vars[160];
	int w = write_chart(rep, dfd, c, scen, group_scen, nscen);

	if (w < 0) {
		pr_warn("report: cannot write chart %s in %s: %s", c->name, dir, strerror(errno));
		return -1;
	}
	if (w > 0)
		return 0;
	snprintf(vars, sizeof(vars), "%s.vars.gp", c->name);
	for (int fmt = 0; fmt < 2; fmt++) {
		int st = run_gnuplot(dfd, fmt ? "svg" : "png", vars, "bars.gp");

		if (st != 0) {
			pr_warn("report: gnuplot failed (status %d) on %s/%s", st, dir, vars);
			return -1;
		}
	}
	return 1;
}

/* replot.sh: re-draws every chart after the user edits a script. */
static void write_replot(int dfd)
{
	FILE *f = chart_file(dfd, "replot.sh", 0755);

	if (!f)
		return;
	fchmod(fileno(f), 0755); /* executable whatever the umask */
	fprintf(f, "#!/bin/sh\n# Re-draw the charts after editing bars.gp or a *.vars.gp file.\n"
		   "cd \"$(dirname \"$0\")\" || exit 1\n"
		   "for v in *.vars.gp; do\n\tt=bars.gp\n\tcase $v in time-*) t=timeseries.gp;; latency.vars.gp) t=latency.gp;; esac\n"
		   "\tfor fmt in png svg; do\n"
		   "\t\tgnuplot -e \"fmt='$fmt'\" \"$v\" $t || exit 1\n\tdone\ndone\n");
	fclose(f);
}

int report_charts(const struct report *rep, int dfd, const char *dir, char ***names_out)
{
	const char **scen = NULL;
	int *group_scen = NULL;
	struct chart *charts;
	char **names;
	int nscen, ncharts, nnames = 0;

	*names_out = NULL;
	if (charts_prepare(dfd, dir) < 0)
		return -1;
	nscen = scenario_list(rep, &scen, &group_scen);
	charts = calloc(rep->nrows + 7, sizeof(*charts)); /* the fixed charts of chart_list, and a counter a row */
	names = calloc(rep->nrows + rep->ngroups + 8, sizeof(*names));
	if (nscen < 0 || !charts || !names)
		goto out_nomem;
	ncharts = chart_list(rep, charts);
	for (int i = 0; i < ncharts; i++) {
		int w = bar_chart(rep, dfd, dir, &charts[i], scen, group_scen, nscen);

		if (w < 0)
			goto out_fail;
		if (w == 0)
			continue;
		names[nnames] = strdup(charts[i].name);
		if (!names[nnames])
			goto out_nomem;
		nnames++;
	}
	/* the request/response latency as a distribution: one percentile plot */
	int lw = latency_chart(rep, dfd, dir, names + nnames);

	if (lw < 0)
		goto out_fail;
	nnames += lw;
	/* throughput over time: one chart per kernel and scenario, one line per repeat */
	for (int g = 0; g < rep->ngroups; g++) {
		int w = time_chart(rep, dfd, dir, g, names + nnames);

		if (w < 0)
			goto out_fail;
		nnames += w;
	}
	write_replot(dfd);
	free(scen);
	free(group_scen);
	free(charts);
	*names_out = names;
	return nnames;
out_nomem:
	pr_warn("report: out of memory");
out_fail:
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(scen);
	free(group_scen);
	free(charts);
	return -1;
}
