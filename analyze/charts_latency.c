// SPDX-License-Identifier: GPL-2.0
/*
 * The latency of the request/response scenarios as a distribution: one
 * percentile plot (latency.gp) with a line per kernel and scenario, from
 * each run's latency_cdf, the median over the runs at each percentile.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "charts_int.h"
#include "gnuplot.h"
#include "log.h"
#include "stats.h"

/* The group's line into f: the median over its ok runs at each of the first run's quantiles; points written. */
static int latency_line(FILE *f, const struct report *rep, const struct run_group *grp)
{
	const struct run_record *first = NULL;
	double *v = calloc(grp->n + 1, sizeof(*v)), fewest = INFINITY;
	int npoints = 0;

	for (int i = 0; v && i < grp->n; i++) {
		const struct run_record *rec = &rep->all.runs[grp->idx[i]];

		if (rec->status == RUN_OK && !rec->counting && rec->ncdf) {
			first = first ? first : rec;
			fewest = rec->transactions < fewest ? rec->transactions : fewest;
		}
	}
	for (int p = 0; first && p < first->ncdf; p++) {
		double q = first->cdf[p][0];
		struct stats s;
		int n = 0;

		/* the max has no place on a scale of nines (the tables have it); nor has a percentile past every run's last transaction */
		if (q >= 1 || fewest * (1 - q) < 1)
			continue;
		for (int i = 0; i < grp->n; i++) {
			const struct run_record *rec = &rep->all.runs[grp->idx[i]];

			/* the same quantile at the same place: every run of one load writes the same list */
			if (rec->status == RUN_OK && !rec->counting && p < rec->ncdf && rec->cdf[p][0] == q)
				v[n++] = rec->cdf[p][1] / 1000;
		}
		stats_compute(v, n, &s);
		if (n && s.median > 0)
			fprintf(f, "%.10g %.10g\n", 1 / (1 - q), s.median);
		npoints += n > 0;
	}
	free(v);
	return npoints;
}

/* latency.dat and latency.vars.gp; how many lines (0: no scenario has a distribution), -1 on a write error. */
static int latency_files(const struct report *rep, int dfd)
{
	int nl = 0, err = 0, *which = calloc(rep->ngroups + 1, sizeof(*which));
	FILE *f;

	if (!which || !(f = chart_file(dfd, "latency.dat", 0644))) {
		free(which);
		return -1;
	}
	fprintf(f, "# latency: per kernel and scenario, a block (two blank lines between): 1/(1-q), microseconds\n");
	for (int g = 0; g < rep->ngroups; g++) {
		long at = ftell(f);

		if (group_unit(&rep->all, &rep->groups[g]) != UNIT_TRANSACTION)
			continue;
		fprintf(f, "%s# group %d\n", nl ? "\n\n" : "", g + 1);
		if (latency_line(f, rep, &rep->groups[g]) > 0)
			which[nl++] = g;
		else if (at >= 0)
			fseek(f, at, SEEK_SET); /* nothing to draw: the block's header goes too */
	}
	if (ftruncate(fileno(f), ftell(f)) < 0 || fclose(f) != 0) {
		free(which);
		return -1;
	}
	if (!nl || !(f = chart_file(dfd, "latency.vars.gp", 0644))) {
		free(which);
		return nl ? -1 : 0;
	}
	fprintf(f, "# settings of chart latency, for latency.gp; written by ipsecperf report\n");
	fprintf(f, "datafile = 'latency.dat'\noutfile = 'latency'\ntitle = ");
	err |= gp_str(f, "Request/response latency: the median run's value at each percentile");
	err |= gp_subtitle(f, rep);
	fprintf(f, "\nnl = %d\narray llabel[nl]\n", nl);
	for (int i = 0; i < nl; i++) {
		char label[300];
		const struct run_group *grp = &rep->groups[which[i]];

		snprintf(label, sizeof(label), "%.140s%s%.140s", rep->nkernels > 1 ? grp->kernel : "",
			 rep->nkernels > 1 ? " " : "", grp->scenario);
		fprintf(f, "llabel[%d] = ", i + 1);
		err |= gp_str(f, label);
		fputc('\n', f);
	}
	free(which);
	if (fclose(f) != 0 || err)
		return -1;
	return nl;
}

int latency_chart(const struct report *rep, int dfd, const char *dir, char **name)
{
	int nl = latency_files(rep, dfd);

	if (nl < 0) {
		pr_warn("report: cannot write chart latency in %s: %s", dir, errno ? strerror(errno) : "a name gnuplot cannot take");
		return -1;
	}
	if (nl == 0)
		return 0;
	for (int fmt = 0; fmt < 2; fmt++) {
		int st = run_gnuplot(dfd, fmt ? "svg" : "png", "latency.vars.gp", "latency.gp");

		if (st != 0) {
			pr_warn("report: gnuplot failed (status %d) on %s/latency.vars.gp", st, dir);
			return -1;
		}
	}
	*name = strdup("latency");
	return *name ? 1 : -1;
}
