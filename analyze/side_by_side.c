// SPDX-License-Identifier: GPL-2.0
#include "side_by_side.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "summary.h"

#define COLW 27 /* one kernel's column: "median interval (n)"; 2 fit in 72 */

/* One cell: the group's metric; *median gets the median (NAN if none). */
static void cell(char *buf, size_t len, const struct results *r, const struct run_group *g,
		 const struct metric *m, double base, double *median)
{
	char num[32], range[48];
	struct stats st;
	double *v;
	int n, d;

	*median = NAN;
	if (!g) {
		snprintf(buf, len, "-");
		return;
	}
	v = calloc(g->n + 1, sizeof(*v));
	n = v ? group_values(r, g, m, v) : 0;
	if (n == 0) {
		free(v);
		snprintf(buf, len, "%s", g->n_ok ? "-" : "failed");
		return;
	}
	stats_compute(v, n, &st);
	free(v);
	*median = st.median;
	d = fmt_decimals(st.median);
	fmt_num(num, sizeof(num), st.median, d);
	fmt_interval(range, sizeof(range), &st, d);
	if (isfinite(base) && base != 0)
		snprintf(buf, len, "%s (%d) %+.0f%%", num, n, 100.0 * (st.median - base) / base);
	else
		snprintf(buf, len, "%s %s (%d)", num, range, n);
}

static void print_metric(FILE *f, const struct results *r, const char **kernels, int nk,
			 const struct metric *m, const char *title)
{
	struct run_group *groups;
	const char **scen;
	int ngroups, nscen = 0;

	if (results_groups(r, &groups, &ngroups) < 0)
		return;
	scen = calloc(ngroups + 1, sizeof(*scen));
	for (int g = 0; scen && g < ngroups; g++) {
		bool seen = false;

		for (int j = 0; j < nscen; j++)
			seen |= !strcmp(scen[j], groups[g].scenario);
		if (!seen)
			scen[nscen++] = groups[g].scenario;
	}
	fprintf(f, "\n%s, median interval (n)\n%-14s", title, "scenario");
	for (int k = 0; k < nk; k++) {
		char h[16];

		snprintf(h, sizeof(h), "K%d", k + 1);
		fprintf(f, "  %-*s", k + 1 < nk ? COLW : 0, h);
	}
	fputc('\n', f);
	for (int s = 0; s < nscen; s++) {
		double base = NAN;

		fprintf(f, "%-14.14s", scen[s]);
		for (int k = 0; k < nk; k++) {
			const struct run_group *g = NULL;
			char buf[96];
			double med;

			for (int j = 0; j < ngroups; j++)
				if (!strcmp(groups[j].scenario, scen[s]) &&
				    !strcmp(groups[j].kernel, kernels[k]))
					g = &groups[j];
			cell(buf, sizeof(buf), r, g, m, k ? base : NAN, &med);
			if (k == 0)
				base = med;
			fprintf(f, "  %-*s", k + 1 < nk ? COLW : 0, buf);
		}
		fputc('\n', f);
	}
	free(scen);
	results_groups_free(groups, ngroups);
}

int kernels_side_by_side(FILE *f, const struct results *r, kernel_note_fn note, const void *arg)
{
	const char **kernels;
	int nk;

	/* one kernel: the summary above says it all */
	if (results_kernels(r, &kernels, &nk) < 0 || nk < 2) {
		free(kernels);
		return 0;
	}
	fprintf(f, "\nKernels side by side (K2.. with their change from K1):\n");
	for (int k = 0; k < nk; k++)
		fprintf(f, "  K%d = %s%s\n", k + 1, kernels[k], note ? note(kernels[k], arg) : "");
	print_metric(f, r, kernels, nk, &(struct metric){ .kind = METRIC_THROUGHPUT },
		     "Throughput, Gbit/s");
	if (!strcmp(results_clock(r), "virtual"))
		print_metric(f, r, kernels, nk, &(struct metric){ .kind = METRIC_IPB },
			     "Instructions per byte (virtual clock)");
	else
		print_metric(f, r, kernels, nk, &(struct metric){ .kind = METRIC_CPB },
			     "Cycles per byte");
	free(kernels);
	return ferror(f) ? -1 : 0;
}
