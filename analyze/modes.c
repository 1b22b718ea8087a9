// SPDX-License-Identifier: GPL-2.0
/*
 * Two modes in one sample: runs of one scenario that fall in two tight
 * groups far apart (a bistable path: which CPU or queue a flow lands on,
 * a timer's phase). Their median stands for neither group, so report and
 * compare say so, naming the runs of each.
 */
#include "modes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

static void runs_list(char *buf, size_t len, const double *v, const int *rep, int n, double split, bool above)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o < len; i++)
		if ((v[i] > split) == above)
			o += snprintf(buf + o, len - o, "%s%d", o ? ", " : "", rep[i]);
}

int modes_note(struct notes *ns, const struct results *r, const struct run_group *g, const char *side)
{
	double v[STATS_MODES_MAX];
	int rep[STATS_MODES_MAX];
	char lows[256], highs[256];
	double lo, hi, split;
	int n = 0;

	for (int i = 0; i < g->n && n < STATS_MODES_MAX; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status != RUN_OK || rec->counting || !rec->has_throughput)
			continue;
		v[n] = rec->throughput_bps;
		rep[n++] = rec->repeat;
	}
	split = stats_modes(v, n, &lo, &hi);
	if (isnan(split))
		return 0;
	runs_list(lows, sizeof(lows), v, rep, n, split, false);
	runs_list(highs, sizeof(highs), v, rep, n, split, true);
	return notes_add(ns, "modes", NULL,
			 "%s%s%s %s: throughput falls in two modes, %.4g Gbit/s (runs %s) and %.4g Gbit/s (runs %s): the median stands for neither; find what differs between the two groups before comparing (docs/methodology.md, \"Two modes\").",
			 side ? side : "", side ? " " : "", g->kernel, g->scenario, lo / 1e9, lows, hi / 1e9, highs) < 0
		       ? -1
		       : 1;
}
