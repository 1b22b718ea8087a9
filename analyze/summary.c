// SPDX-License-Identifier: GPL-2.0
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int fmt_decimals(double v)
{
	int d;

	if (!isfinite(v) || v == 0)
		return 2;
	d = 3 - (int)floor(log10(fabs(v)));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

const char *fmt_num(char *buf, size_t len, double v, int d)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", d, v);
	return buf;
}

const char *fmt_range(char *buf, size_t len, const struct stats *s, int d)
{
	if (s->n < 2)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f-%.*f", d, s->min, d, s->max);
	return buf;
}

void fputs_wrapped(FILE *f, const char *text, int first_indent, int indent)
{
	fprintf(f, "%*s", first_indent, "");
	fputs_wrapped_at(f, text, first_indent, indent);
}

void fputs_wrapped_at(FILE *f, const char *text, int col, int indent)
{
	bool on_line = false;
	const char *p = text;

	for (;;) {
		size_t w;

		while (*p == ' ')
			p++;
		w = strcspn(p, " ");
		if (!w)
			break;
		if (on_line && col + 1 + (int)w > REPORT_COLUMNS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			on_line = false;
		}
		if (on_line) {
			fputc(' ', f);
			col++;
		}
		/* a word longer than a line is printed whole: never cut a name */
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		on_line = true;
	}
	fputc('\n', f);
}

static int group_stats(const struct results *r, const struct run_group *g, enum metric_kind k,
		       struct stats *s)
{
	struct metric m = { .kind = k };
	double *v = malloc((g->n + 1) * sizeof(*v));
	int n;

	if (!v)
		return -1;
	n = group_values(r, g, &m, v);
	stats_compute(v, n, s);
	free(v);
	return 0;
}

static bool any_estimated(const struct results *r)
{
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].status == RUN_OK && r->runs[i].cycles_estimated)
			return true;
	return false;
}

int summary_tables(FILE *f, const struct results *r)
{
	struct run_group *g;
	const char **kernels;
	int ng, nk, nbad = 0;

	if (results_groups(r, &g, &ng) < 0 || results_kernels(r, &kernels, &nk) < 0)
		return -1;
	for (int k = 0; k < nk; k++) {
		double base = NAN;
		const char *base_name = NULL;

		fprintf(f, "%skernel %s\n", k ? "\n" : "", kernels[k]);
		fprintf(f, "%-18s %-28s %s\n", "", "throughput Gbit/s", "cycles/byte");
		fprintf(f, "%-15s %2s %7s %-13s %5s %7s %-11s %3s\n", "scenario", "n", "median",
			"min-max", "ratio", "median", "min-max", "!ok");
		fprintf(f, "%-15s %2s %7s %-13s %5s %7s %-11s %3s\n", "---------------", "--",
			"-------", "-------------", "-----", "-------", "-----------", "---");
		for (int i = 0; i < ng; i++) {
			struct stats t, c;
			char med[32], rng[64], ratio[32], cmed[32], crng[64];
			int dt, dc;

			if (strcmp(g[i].kernel, kernels[k]))
				continue;
			if (group_stats(r, &g[i], METRIC_THROUGHPUT, &t) < 0 ||
			    group_stats(r, &g[i], METRIC_CPB, &c) < 0)
				goto out_nomem;
			if (!base_name) {
				base_name = g[i].scenario;
				base = t.median;
			}
			dt = fmt_decimals(t.median);
			dc = fmt_decimals(c.median);
			if (isnan(t.median) || isnan(base) || base == 0)
				snprintf(ratio, sizeof(ratio), "-");
			else
				snprintf(ratio, sizeof(ratio), "%.3f", t.median / base);
			fprintf(f, "%-15s %2d %7s %-13s %5s %7s %-11s %3d\n", g[i].scenario, g[i].n_ok,
				fmt_num(med, sizeof(med), t.median, dt),
				fmt_range(rng, sizeof(rng), &t, dt), ratio,
				fmt_num(cmed, sizeof(cmed), c.median, dc),
				fmt_range(crng, sizeof(crng), &c, dc), g[i].n - g[i].n_ok);
			nbad += g[i].n - g[i].n_ok;
		}
		if (base_name && k == nk - 1) {
			char note[200];

			snprintf(note, sizeof(note),
				 "n: runs with status ok; ratio: median throughput over the first scenario's (%s).",
				 base_name);
			fputs_wrapped(f, note, 0, 0);
		}
	}
	if (any_estimated(r))
		fputs_wrapped(f, "cycles/byte estimated from busy CPU time x TSC frequency (no PMU).",
			      0, 0);
	if (nbad) {
		fprintf(f, "\nruns not ok (excluded from the figures):\n");
		for (int i = 0; i < r->nruns; i++) {
			const struct run_record *rec = &r->runs[i];
			char line[600];

			if (rec->status == RUN_OK)
				continue;
			if (nk > 1)
				snprintf(line, sizeof(line), "%s %s repeat %d: %s: %s", rec->kernel,
					 rec->scenario, rec->repeat, run_status_name(rec->status),
					 rec->reason ? rec->reason : "no reason recorded");
			else
				snprintf(line, sizeof(line), "%s repeat %d: %s: %s", rec->scenario,
					 rec->repeat, run_status_name(rec->status),
					 rec->reason ? rec->reason : "no reason recorded");
			fputs_wrapped(f, line, 2, 6);
		}
	}
	summary_cv_warnings(f, r);
	free(kernels);
	results_groups_free(g, ng);
	return ferror(f) ? -1 : 0;
out_nomem:
	free(kernels);
	results_groups_free(g, ng);
	return -1;
}

int summary_cv_warnings(FILE *f, const struct results *r)
{
	static const struct { enum metric_kind k; const char *name; } ms[] = {
		{ METRIC_THROUGHPUT, "throughput" },
		{ METRIC_CPB, "cycles/byte" },
	};
	struct run_group *g;
	const char **kernels;
	int ng, nk, warned = 0, maxn = 0;

	if (results_groups(r, &g, &ng) < 0)
		return 0;
	if (results_kernels(r, &kernels, &nk) < 0) {
		results_groups_free(g, ng);
		return 0;
	}
	for (int i = 0; i < ng; i++) {
		if (g[i].n_ok > maxn)
			maxn = g[i].n_ok;
		for (size_t m = 0; m < sizeof(ms) / sizeof(ms[0]); m++) {
			struct stats s;
			char line[400];

			if (group_stats(r, &g[i], ms[m].k, &s) < 0 || !(s.cv > CV_WARN))
				continue;
			if (!warned++)
				fputc('\n', f);
			snprintf(line, sizeof(line), "warning: %s%s%s: %s CV %.1f%% > %.0f%% (n=%d); add repeats.",
				 nk > 1 ? g[i].kernel : "", nk > 1 ? " " : "", g[i].scenario, ms[m].name,
				 100 * s.cv, 100 * CV_WARN, s.n);
			fputs_wrapped(f, line, 0, 4);
		}
	}
	if (warned) {
		char hint[200];

		snprintf(hint, sizeof(hint),
			 "hint: rerun with --repeat %d or more; a noisy scenario needs more runs before its median can be trusted.",
			 maxn < 5 ? 10 : 2 * maxn);
		fputs_wrapped(f, hint, 0, 4);
	}
	free(kernels);
	results_groups_free(g, ng);
	return warned;
}

int summary_print(FILE *f, const char *dir)
{
	struct results r;
	char err[1024];
	int ret;

	if (results_load(dir, &r, err, sizeof(err)) < 0) {
		pr_warn("%s", err);
		return -1;
	}
	ret = summary_tables(f, &r);
	results_free(&r);
	if (ret < 0)
		pr_warn("%s: cannot write the summary", dir);
	return ret;
}
