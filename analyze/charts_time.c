// SPDX-License-Identifier: GPL-2.0
/* Throughput over time, flent-like: one chart per kernel and scenario, one line per repeat. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "charts_int.h"
#include "gnuplot.h"
#include "intervals.h"
#include "log.h"

/* Each ok run's intervals into name, a block per repeat: how many (their repeats in reps), or -1. */
static int time_dat(const struct report *rep, const struct run_group *grp, int dfd, const char *name,
		    const char *base, struct run_intervals *iv, int *reps)
{
	FILE *f = chart_file(dfd, name, 0644);
	int nr = 0;

	if (!f)
		return -1;
	fprintf(f, "# %s: per repeat, a block (two blank lines between): second, Gbit/s\n", base);
	for (int i = 0; i < grp->n; i++) {
		const struct run_record *rec = &rep->all.runs[grp->idx[i]];

		if (rec->status != RUN_OK || run_intervals_read(rep->src[rec->source].dir, rec, iv) < 0)
			continue;
		fprintf(f, "%s# repeat %d (%s)\n", nr ? "\n\n" : "", rec->repeat, iv->source);
		for (int j = 0; j < iv->n; j++)
			fprintf(f, "%.6g %.10g\n", iv->t[j], iv->gbps[j]);
		reps[nr++] = rec->repeat;
	}
	return fclose(f) != 0 ? -1 : nr;
}

/* The settings timeseries.gp reads; nonzero if a string could not be written. */
static int time_vars(FILE *f, const struct report *rep, const struct run_group *grp, const char *base,
		     const int *reps, int nr)
{
	char title[600];
	int err = 0;

	fprintf(f, "# settings of chart %s, for timeseries.gp; written by ipsecperf report\n", base);
	fprintf(f, "datafile = ");
	err |= gp_str(f, base);
	fprintf(f, ".'.dat'\noutfile = ");
	err |= gp_str(f, base);
	snprintf(title, sizeof(title), "Throughput over time (1 s intervals): %.250s, %.250s", grp->kernel,
		 grp->scenario);
	fprintf(f, "\ntitle = ");
	err |= gp_str(f, title);
	err |= gp_subtitle(f, rep);
	fprintf(f, "\nnr = %d\narray rlabel[nr]\n", nr);
	for (int i = 0; i < nr; i++)
		fprintf(f, "rlabel[%d] = 'repeat %d'\n", i + 1, reps[i]);
	return err;
}

int time_chart(const struct report *rep, int dfd, const char *dir, int g, char **name)
{
	const struct run_group *grp = &rep->groups[g];
	struct run_intervals *iv = malloc(sizeof(*iv));
	char path[128], base[64], vars[96];
	int nr, err = -1, *reps = calloc(grp->n + 1, sizeof(*reps));
	FILE *f;

	if (!iv || !reps)
		goto out;
	/* the file names are numbers: kernel and scenario names stay data */
	snprintf(base, sizeof(base), "time-g%d", g + 1);
	snprintf(path, sizeof(path), "%s.dat", base);
	nr = time_dat(rep, grp, dfd, path, base, iv, reps);
	if (nr < 0)
		goto out_write;
	if (!nr) {
		unlinkat(dfd, path, 0);
		err = 0;
		goto out;
	}
	snprintf(path, sizeof(path), "%s.vars.gp", base);
	f = chart_file(dfd, path, 0644);
	if (!f)
		goto out_write;
	err = time_vars(f, rep, grp, base, reps, nr);
	if (fclose(f) != 0 || err) {
		errno = err ? EINVAL : errno;
		goto out_write;
	}
	snprintf(vars, sizeof(vars), "%s.vars.gp", base);
	for (int fmt = 0; fmt < 2; fmt++) {
		int st = run_gnuplot(dfd, fmt ? "svg" : "png", vars, "timeseries.gp");

		if (st != 0) {
			pr_warn("report: gnuplot failed (status %d) on %s/%s", st, dir, vars);
			err = -1;
			goto out;
		}
	}
	*name = strdup(base);
	err = *name ? 1 : -1;
	goto out;
out_write:
	pr_warn("report: cannot write chart %s in %s: %s", base, dir, strerror(errno));
	err = -1;
out:
	free(reps);
	free(iv);
	return err;
}
