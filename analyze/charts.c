// SPDX-License-Identifier: GPL-2.0
/* gnuplot charts for `ipsecperf report --charts`: data files + the bars.gp template. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "exec.h"
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

		if (r->m.kind == c->m.kind && (c->m.kind != METRIC_COUNTER || !strcmp(r->m.counter, c->m.counter)))
			cell[(size_t)group_scen[r->g - rep->groups] * rep->nkernels + r->k] = r;
	}
	return cell;
}

/* NAME.runs.dat: every ok run's value, "scenario kernel value", drawn as points over the bars */
static int write_runs(const struct report *rep, const char *dir, const struct chart *c,
		      const struct report_row **cell, int nscen)
{
	char path[PATH_MAX + 200];
	double *v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.runs.dat", dir, c->name);
	f = fopen(path, "w");
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
static int write_chart(const struct report *rep, const char *dir, const struct chart *c,
		       const char **scen, const int *group_scen, int nscen)
{
	const struct report_row **cell = chart_cells(rep, c, group_scen, nscen);
	char path[PATH_MAX + 200];
	bool any = false, nonpos = false;
	double lo = 0, hi = 0;
	int err = -1;
	FILE *f;

	if (!cell)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.dat", dir, c->name);
	f = fopen(path, "w");
	if (!f)
		goto out;
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
			fprintf(f, " %.10g %.10g %.10g", r->s.median, r->s.min, r->s.max);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		goto out;
	if (!any) {
		unlink(path);
		err = 1;
		goto out;
	}
	if (write_runs(rep, dir, c, cell, nscen) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s.vars.gp", dir, c->name);
	f = fopen(path, "w");
	if (!f)
		goto out;
	err = 0;
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
	/* a log scale where the values span more than 10x: 0.009 beside 0.39 stays visible */
	fprintf(f, "\nlogscale = %d", !nonpos && lo > 0 && hi / lo > 10);
	fprintf(f, "\nnk = %d\narray kernel[nk]\n", rep->nkernels);
	for (int k = 0; k < rep->nkernels; k++) {
		fprintf(f, "kernel[%d] = ", k + 1);
		err |= gp_str(f, rep->kernels[k]);
		fputc('\n', f);
	}
	fprintf(f, "ns = %d\narray label[ns]\n", nscen);
	for (int s = 0; s < nscen; s++) {
		char label[1024];
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
			snprintf(label, sizeof(label), "%.900s (n=0)", scen[s]);
		else if (nmin == nmax)
			snprintf(label, sizeof(label), "%.900s (n=%d)", scen[s], nmin);
		else
			snprintf(label, sizeof(label), "%.900s (n=%d-%d)", scen[s], nmin, nmax);
		fprintf(f, "label[%d] = ", s + 1);
		err |= gp_str(f, label);
		fputc('\n', f);
	}
	if (fclose(f) != 0 || err) {
		if (err)
			errno = EINVAL; /* a control character: never in a script */
		err = -1;
	}
out:
	free(cell);
	return err;
}

int report_charts(const struct report *rep, const char *dir, char ***names_out)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	const char **scen = NULL;
	int *group_scen = NULL;
	struct chart *charts;
	char **names, why[256];
	int nscen, ncharts = 0, nnames = 0, dfd;
	FILE *f;

	*names_out = NULL;
	if (!exec_have("gnuplot")) {
		pr_warn("report: gnuplot not found: cannot draw charts (install gnuplot-nox)");
		return -1;
	}
	/* a new or empty folder of ours, never through a symlink (cmd_report checked it first) */
	dfd = out_dir_open(dir, why, sizeof(why));
	if (dfd < 0) {
		pr_warn("report: %s: %s; choose another with -c", dir, why);
		return -1;
	}
	close(dfd);
	/* the templates go beside the data, so that a user can re-plot with their own tweaks */
	for (const char *const *t = (const char *const[]){ "bars.gp", "timeseries.gp", NULL }; *t; t++) {
		snprintf(from, sizeof(from), "%s/%s", templates_dir(), *t);
		snprintf(to, sizeof(to), "%s/%s", dir, *t);
		if (copy_file(from, to) < 0) {
			pr_warn("report: cannot copy the chart template %s to %s: %s (set IPSECPERF_TEMPLATES)",
				from, to, strerror(errno));
			return -1;
		}
	}
	nscen = scenario_list(rep, &scen, &group_scen);
	charts = calloc(rep->nrows + 2, sizeof(*charts));
	names = calloc(rep->nrows + rep->ngroups + 2, sizeof(*names));
	if (nscen < 0 || !charts || !names)
		goto out_nomem;
	charts[ncharts++] = (struct chart){ "throughput", "Throughput (receiver): median, whiskers min-max",
					    "Gbit/s", { .kind = METRIC_THROUGHPUT } };
	charts[ncharts++] = (struct chart){ "cycles_per_byte",
					    "CPU cycles per byte received: median, whiskers min-max",
					    "cycles per byte", { .kind = METRIC_CPB } };
	/* one chart per counter, in first-appearance order */
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];
		int j;

		if (r->m.kind != METRIC_COUNTER)
			continue;
		for (j = 2; j < ncharts; j++)
			if (!strcmp(charts[j].m.counter, r->m.counter))
				break;
		if (j < ncharts)
			continue;
		charts[ncharts].m = r->m;
		snprintf(charts[ncharts].name, sizeof(charts[0].name), "counter-%s", r->m.counter);
		snprintf(charts[ncharts].title, sizeof(charts[0].title),
			 "%s per packet sent: median, whiskers min-max", r->m.counter);
		charts[ncharts].ylabel = "events per packet sent";
		ncharts++;
	}
	for (int i = 0; i < ncharts; i++) {
		char vars[160];
		int w = write_chart(rep, dir, &charts[i], scen, group_scen, nscen);

		if (w < 0) {
			pr_warn("report: cannot write chart %s in %s: %s", charts[i].name, dir, strerror(errno));
			goto out_fail;
		}
		if (w > 0)
			continue;
		snprintf(vars, sizeof(vars), "%s.vars.gp", charts[i].name);
		for (int fmt = 0; fmt < 2; fmt++) {
			int st = run_gnuplot(dir, fmt ? "svg" : "png", vars, "bars.gp");

			if (st != 0) {
				pr_warn("report: gnuplot failed (status %d) on %s/%s", st, dir, vars);
				goto out_fail;
			}
		}
		names[nnames] = strdup(charts[i].name);
		if (!names[nnames])
			goto out_nomem;
		nnames++;
	}
	/* throughput over time: one chart per kernel and scenario, one line per repeat */
	for (int g = 0; g < rep->ngroups; g++) {
		int w = time_chart(rep, dir, g, names + nnames);

		if (w < 0)
			goto out_fail;
		nnames += w;
	}
	snprintf(to, sizeof(to), "%s/replot.sh", dir);
	f = fopen(to, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\n# Re-draw the charts after editing bars.gp or a *.vars.gp file.\n"
			   "cd \"$(dirname \"$0\")\" || exit 1\n"
			   "for v in *.vars.gp; do\n\tt=bars.gp\n\tcase $v in time-*) t=timeseries.gp;; esac\n"
			   "\tfor fmt in png svg; do\n"
			   "\t\tgnuplot -e \"fmt='$fmt'\" \"$v\" $t || exit 1\n\tdone\ndone\n");
		fclose(f);
		chmod(to, 0755);
	}
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
