// SPDX-License-Identifier: GPL-2.0
/* gnuplot charts for `ipsecperf report --charts`: data files + the bars.gp template. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "log.h"
#include "report.h"

const char *templates_dir(void)
{
	/* build/ipsecperf finds ../analyze/templates; an install finds share/ */
	static const char *const rels[] = { "../analyze/templates", "../share/ipsecperf/templates", NULL };
	static char dir[PATH_MAX + 64];

	return data_dir("IPSECPERF_TEMPLATES", rels, "bars.gp", "templates", dir,
			sizeof(dir));
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out;
	char buf[8192];
	size_t n;
	int ret = 0;

	if (!in)
		return -1;
	out = fopen(to, "w");
	if (!out) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	if (ferror(in))
		ret = -1;
	fclose(in);
	if (fclose(out) != 0)
		ret = -1;
	return ret;
}

/* gnuplot single-quoted string: a quote is doubled */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* run gnuplot in dir (so the scripts' relative paths hold), argv only */
static int run_gnuplot(const char *dir, const char *fmt, const char *vars)
{
	char expr[32];
	pid_t pid;
	int status;

	snprintf(expr, sizeof(expr), "fmt='%s'", fmt);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { "gnuplot", "-e", expr, (char *)vars, "bars.gp", NULL };

		if (chdir(dir) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct chart {
	char name[128];
	char title[192];
	const char *ylabel;
	struct metric m;
};

/* scenarios of all kernels, in first-appearance order */
static int scenario_list(const struct report *rep, const char ***out)
{
	const char **s = calloc(rep->ngroups + 1, sizeof(*s));
	int n = 0;

	if (!s)
		return -1;
	for (int i = 0; i < rep->ngroups; i++) {
		int j;

		for (j = 0; j < n; j++)
			if (!strcmp(s[j], rep->groups[i].scenario))
				break;
		if (j == n)
			s[n++] = rep->groups[i].scenario;
	}
	*out = s;
	return n;
}

static const struct report_row *find_row(const struct report *rep, const char *kernel,
					 const char *scenario, const struct metric *m)
{
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];

		if (r->m.kind == m->kind && !strcmp(r->g->kernel, kernel) &&
		    !strcmp(r->g->scenario, scenario) &&
		    (m->kind != METRIC_COUNTER || !strcmp(r->m.counter, m->counter)))
			return r;
	}
	return NULL;
}

/* Write NAME.dat and NAME.vars.gp; 0 if written, 1 if there is nothing to plot. */
static int write_chart(const struct report *rep, const char *dir, const struct chart *c,
		       const char **scen, int nscen)
{
	char path[PATH_MAX + 200];
	bool any = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, c->name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# %s: scenario, label, then per kernel: median min max\n", c->name);
	for (int s = 0; s < nscen; s++) {
		char label[256];
		int nmin = -1, nmax = -1;

		for (int k = 0; k < rep->nkernels; k++) {
			const struct report_row *r = find_row(rep, rep->kernels[k], scen[s], &c->m);

			if (!r || !r->s.n)
				continue;
			if (nmin < 0 || r->s.n < nmin)
				nmin = r->s.n;
			if (r->s.n > nmax)
				nmax = r->s.n;
		}
		if (nmin < 0)
			snprintf(label, sizeof(label), "%s (n=0)", scen[s]);
		else if (nmin == nmax)
			snprintf(label, sizeof(label), "%s (n=%d)", scen[s], nmin);
		else
			snprintf(label, sizeof(label), "%s (n=%d-%d)", scen[s], nmin, nmax);
		fprintf(f, "%s \"%s\"", scen[s], label);
		for (int k = 0; k < rep->nkernels; k++) {
			const struct report_row *r = find_row(rep, rep->kernels[k], scen[s], &c->m);

			if (!r || !r->s.n) {
				fprintf(f, " - - -");
				continue;
			}
			any = true;
			fprintf(f, " %.10g %.10g %.10g", r->s.median, r->s.min, r->s.max);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		return -1;
	if (!any) {
		unlink(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s.vars.gp", dir, c->name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# settings of chart %s, for bars.gp; written by ipsecperf report\n", c->name);
	fprintf(f, "datafile = ");
	gp_str(f, c->name);
	fprintf(f, ".'.dat'\noutfile = ");
	gp_str(f, c->name);
	fprintf(f, "\ntitle = ");
	gp_str(f, c->title);
	fprintf(f, "\nylabel = ");
	gp_str(f, c->ylabel);
	fprintf(f, "\nnk = %d\nkernels = '", rep->nkernels);
	for (int k = 0; k < rep->nkernels; k++)
		fprintf(f, "%s%s", k ? " " : "", rep->kernels[k]);
	fprintf(f, "'\n");
	return fclose(f) == 0 ? 0 : -1;
}

int report_charts(const struct report *rep, const char *dir, char ***names_out)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	const char **scen = NULL;
	struct chart *charts;
	char **names, why[256];
	int nscen, ncharts = 0, nnames = 0, dfd;
	FILE *f;

	*names_out = NULL;
	if (!exec_have("gnuplot")) {
		pr_warn("report: gnuplot not found: cannot draw charts (install gnuplot-nox)");
		return -1;
	}
	for (int k = 0; k < rep->nkernels; k++)
		if (strchr(rep->kernels[k], ' ') || strchr(rep->kernels[k], '\'')) {
			pr_warn("report: kernel name '%s' has a space or quote; charts need plain names",
				rep->kernels[k]);
			return -1;
		}
	/* a new or empty folder of ours, never through a symlink (cmd_report checked it first) */
	dfd = out_dir_open(dir, why, sizeof(why));
	if (dfd < 0) {
		pr_warn("report: %s: %s; choose another with -c", dir, why);
		return -1;
	}
	close(dfd);
	snprintf(from, sizeof(from), "%s/bars.gp", templates_dir());
	snprintf(to, sizeof(to), "%s/bars.gp", dir);
	if (copy_file(from, to) < 0) {
		pr_warn("report: cannot copy the chart template %s to %s: %s (set IPSECPERF_TEMPLATES)",
			from, to, strerror(errno));
		return -1;
	}
	nscen = scenario_list(rep, &scen);
	charts = calloc(rep->nrows + 2, sizeof(*charts));
	names = calloc(rep->nrows + 2, sizeof(*names));
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
		int w = write_chart(rep, dir, &charts[i], scen, nscen);

		if (w < 0) {
			pr_warn("report: cannot write chart %s in %s: %s", charts[i].name, dir, strerror(errno));
			goto out_fail;
		}
		if (w > 0)
			continue;
		snprintf(vars, sizeof(vars), "%s.vars.gp", charts[i].name);
		for (int fmt = 0; fmt < 2; fmt++) {
			int st = run_gnuplot(dir, fmt ? "svg" : "png", vars);

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
	snprintf(to, sizeof(to), "%s/replot.sh", dir);
	f = fopen(to, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\n# Re-draw the charts after editing bars.gp or a *.vars.gp file.\n"
			   "cd \"$(dirname \"$0\")\" || exit 1\n"
			   "for v in *.vars.gp; do\n\tfor fmt in png svg; do\n"
			   "\t\tgnuplot -e \"fmt='$fmt'\" \"$v\" bars.gp || exit 1\n\tdone\ndone\n");
		fclose(f);
		chmod(to, 0755);
	}
	free(scen);
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
	free(charts);
	return -1;
}
