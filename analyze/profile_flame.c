// SPDX-License-Identifier: GPL-2.0
/*
 * The profiles' flame graphs: a group's runs into a flame graph tree,
 * each run weighted so that a function's frames add up to the cycles per
 * byte the text report gives it (prof_merge: the mean over the runs of
 * its share times the run's cycles per byte); the default pairs of the
 * differential graphs; the HTML report's section.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "flamegraph.h"
#include "html.h"
#include "log.h"
#include "profile_flame.h"

#define MAX_FIGURES 64 /* flame graphs in one page; a results directory may hold 2048 groups */

static bool all_cpb(const struct pgroup *g)
{
	for (int r = 0; r < g->nruns; r++)
		if (!isfinite(g->runs[r].cpb))
			return false;
	return g->nruns > 0;
}

/* g's runs into side of t: by cycles per byte (cpb), or by percent of the pooled busy samples. */
static int add_group(struct fg_tree *t, int side, const struct pgroup *g, bool cpb)
{
	uint64_t all = 0;

	for (int r = 0; r < g->nruns; r++)
		all = prof_count_add(all, g->runs[r].samples - g->runs[r].idle);
	for (int r = 0; r < g->nruns; r++) {
		uint64_t busy = g->runs[r].samples - g->runs[r].idle;
		double w;

		if (!busy)
			continue;
		w = cpb ? g->runs[r].cpb / ((double)busy * g->nruns) : 100.0 / (double)all;
		if (fg_tree_add(t, side, &g->rfold[r], w) < 0)
			return -1;
	}
	return 0;
}

int profile_flame_svg(FILE *f, const struct pgroup *base, const struct pgroup *g, const char *id,
		      bool standalone)
{
	bool cpb = all_cpb(g) && (!base || all_cpb(base));
	bool by_kernel = base && !strcmp(base->scenario, g->scenario);
	struct fg_labels l = { .id = id, .unit = cpb ? "cycles/byte" : "% of busy samples", .diff = base != NULL };
	struct fg_tree *t = fg_tree_new();
	char title[1024];
	int ret = -1;

	if (!t || add_group(t, 1, g, cpb) < 0 || (base && add_group(t, 0, base, cpb) < 0))
		goto out;
	if (!base)
		snprintf(title, sizeof(title), "%s on %s: %d run%s", g->scenario, g->kernel, g->nruns,
			 g->nruns == 1 ? "" : "s");
	else if (by_kernel)
		snprintf(title, sizeof(title), "%s on %s against %s", g->scenario, g->kernel, base->kernel);
	else
		snprintf(title, sizeof(title), "%s against %s on %s", g->scenario, base->scenario, g->kernel);
	l.title = title;
	l.side[0] = base ? (by_kernel ? base->kernel : base->scenario) : NULL;
	l.side[1] = by_kernel ? g->kernel : g->scenario;
	ret = fg_svg(f, t, &l, standalone);
out:
	fg_tree_free(t);
	return ret;
}

const struct pgroup *profile_flame_base(const struct preport *r, const struct pgroup *g, bool by_kernel)
{
	const struct pgroup *b;

	if (by_kernel)
		return strcmp(g->kernel, r->g[0].kernel) ? preport_group(r, r->g[0].kernel, g->scenario) : NULL;
	b = preport_group(r, g->kernel, "no-gso");
	if (b)
		return b != g && !strncmp(g->scenario, "esp", 3) ? b : NULL;
	for (int i = 0; i < r->ng; i++)
		if (!strcmp(r->g[i].kernel, g->kernel))
			return &r->g[i] != g ? &r->g[i] : NULL;
	return NULL;
}

/* One figure: the graph and its caption. */
static int figure(FILE *f, const struct pgroup *base, const struct pgroup *g, int n)
{
	char id[32];

	snprintf(id, sizeof(id), "flame-%d-svg", n);
	fprintf(f, "<figure id=\"flame-%d\">\n", n);
	if (profile_flame_svg(f, base, g, id, false) < 0)
		return -1;
	fputs("<figcaption>", f);
	if (base) {
		fputs("Difference: ", f);
		html_esc(f, g->scenario);
		fputs(" on ", f);
		html_esc(f, g->kernel);
		fputs(" against ", f);
		html_esc(f, base->scenario);
		fputs(" on ", f);
		html_esc(f, base->kernel);
	} else {
		html_esc(f, g->scenario);
		fputs(" on ", f);
		html_esc(f, g->kernel);
	}
	fputs("</figcaption>\n</figure>\n", f);
	return 0;
}

static const char explain[] =
	"<p>Where the CPU time of the measured window went (perf cpu-clock, all CPUs, idle left out): "
	"each box is a function on the stack, its callers below it, as wide as its part of the run's "
	"cycles per byte (the same numbers as <code>ipsecperf report --profile</code>). Hover for a "
	"frame's figures, click to zoom. The differences are coloured by the change in cycles per "
	"byte, red for more and blue for less; functions seen on one side only are hatched.</p>\n";

int profile_flame_html(FILE *f, char *const dirs[], int ndirs)
{
	struct preport r;
	char err[8192];
	int n = 0;

	fputs("<section id=profiles><h2>Flame graphs</h2>\n", f);
	if (profile_load(&r, dirs, ndirs, err, sizeof(err)) != EXIT_OK) {
		/* runs whose profiling failed are in the text report; a file that cannot be read is news */
		if (strncmp(err, "no profiles in ", 15))
			pr_warn("report: flame graphs left out: %s", err);
		fputs("<p class=warn>No flame graphs: ", f);
		html_esc(f, err);
		fputs("</p>\n</section>\n", f);
		return 0;
	}
	fputs(explain, f);
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < r.ng && n < MAX_FIGURES; i++) {
			const struct pgroup *g = &r.g[i], *base = pass ? profile_flame_base(&r, g, pass == 2) : NULL;

			if (pass && !base)
				continue;
			if (figure(f, base, g, n++) < 0) {
				preport_free(&r);
				return -1;
			}
		}
	if (n == MAX_FIGURES)
		fprintf(f, "<p class=warn>Only the first %d flame graphs are drawn; "
			   "<code>ipsecperf report --profile -f svg</code> draws any other.</p>\n", MAX_FIGURES);
	fputs("</section>\n", f);
	preport_free(&r);
	return ferror(f) ? -1 : n;
}
