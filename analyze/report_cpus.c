// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's "ESP work per CPU": for each kernel and scenario,
 * where the probes counted ESP's calls (counters.<name>.per_cpu, and the
 * receiver's) and where the CPUs were busy (cpu_busy_s.per_cpu), summed
 * over the scenario's runs; the busiest CPU's share, the CPUs by share,
 * and "all ESP work on one CPU" when it is so.
 */
#include "report.h"
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "summary.h"

#define SHOWN_CPUS 4 /* CPUs listed by their share; the rest "+N" */

/* "cpu1 60% cpu0 40%": the CPUs that did any, largest first, at most SHOWN_CPUS. */
static void by_share(char *buf, size_t len, const double *v, int n, const struct cpu_spread *cs)
{
	bool *shown = calloc(n + 1, sizeof(*shown));
	size_t at = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; shown && k < cs->used && k < SHOWN_CPUS; k++) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (!shown[i] && v[i] > 0 && (best < 0 || v[i] > v[best]))
				best = i;
		if (best < 0)
			break;
		shown[best] = true;
		at += snprintf(buf + at, at < len ? len - at : 0, "%scpu%d %.0f%%", k ? " " : "", best,
			       100 * v[best] / cs->total);
	}
	if (cs->used > k && at < len)
		snprintf(buf + at, len - at, " +%d", cs->used - k);
	free(shown);
}

/* One row: a spread of the group, or nothing when no run has it. */
static int spread_row(struct tab *t, const struct report *rep, const struct run_group *g, const char *name,
		      bool *first)
{
	bool busy = !strncmp(name, "busy_s", 6);
	struct cpu_spread cs;
	char list[TAB_CELL];
	double *sum;
	int ncpu, runs = group_spread_sum(&rep->all, g, name, &sum, &ncpu), r;

	if (runs <= 0)
		return runs;
	cpu_spread_of(sum, ncpu, &cs);
	if ((r = tab_row(t)) < 0) {
		free(sum);
		return -1;
	}
	tab_set(t, r, 0, "%s", *first ? g->scenario : "");
	*first = false;
	tab_set(t, r, 1, "%s", name);
	tab_set(t, r, 2, "%d", runs);
	tab_set(t, r, 3, busy ? "%.2f" : "%.0f", cs.total);
	if (cs.top < 0) {
		tab_set(t, r, 4, "-");
		tab_set(t, r, 5, "%s", busy ? "idle" : "no calls");
	} else {
		tab_set(t, r, 4, "cpu%d %.0f%%", cs.top, 100 * cs.top_share);
		if (cs.used == 1)
			tab_set(t, r, 5, "all on one CPU");
		else {
			by_share(list, sizeof(list), sum, ncpu, &cs);
			tab_set(t, r, 5, "%s", list);
		}
	}
	free(sum);
	return 1;
}

/* Does the name count ESP work (a counter's per_cpu, not busy time)? */
static bool esp_spread(const char *name)
{
	return strncmp(name, "busy_s", 6) != 0;
}

/*
 * "all ESP work on one CPU" for an end (the sender: names without
 * "@receiver"; the receiver: with) whose every ESP counter that counted
 * anything counted on one and the same CPU; into note.
 */
static void one_cpu_note(char *note, size_t len, const struct report *rep, const struct run_group *g,
			 const char **names, int n)
{
	size_t at = strlen(note);

	for (int rx = 0; rx < 2; rx++) {
		int cpu = -1, counted = 0;
		bool one = true;

		for (int j = 0; j < n && one; j++) {
			bool is_rx = strstr(names[j], "@receiver") != NULL;
			struct cpu_spread cs;
			double *sum;
			int ncpu;

			if (!esp_spread(names[j]) || is_rx != (rx == 1) ||
			    group_spread_sum(&rep->all, g, names[j], &sum, &ncpu) <= 0)
				continue;
			cpu_spread_of(sum, ncpu, &cs);
			free(sum);
			if (cs.top < 0)
				continue;
			one = cs.used == 1 && (cpu < 0 || cpu == cs.top);
			cpu = cs.top;
			counted++;
		}
		if (one && counted && at < len)
			at += snprintf(note + at, len - at, "%s%s: all ESP work %son one CPU (cpu%d)", at ? "; " : "",
				       g->scenario, rx ? "of the receiver " : "", cpu);
	}
}

int report_text_cpus(FILE *f, const struct report *rep)
{
	static const char *const heads[] = { "scenario", "what", "runs", "total", "busiest", "CPUs by share" };
	static const bool left[] = { true, true, false, false, true, true };
	bool said = false;

	for (int k = 0; k < rep->nkernels; k++) {
		char note[1024] = "";
		struct tab t;
		int rows = 0;

		tab_init(&t, 6, heads, left);
		for (int i = 0; i < rep->ngroups; i++) {
			const struct run_group *g = &rep->groups[i];
			const char **names;
			bool first = true, esp = false;
			int n, rc = 0;

			if (strcmp(g->kernel, rep->kernels[k]))
				continue;
			if (group_spreads(&rep->all, g, &names, &n) < 0) {
				tab_free(&t);
				return -1;
			}
			for (int j = 0; j < n; j++)
				esp = esp || esp_spread(names[j]);
			if (esp)
				one_cpu_note(note, sizeof(note), rep, g, names, n);
			/* ESP's counters first, then the busy time beside them; none without ESP work counted */
			for (int pass = 0; esp && pass < 2 && rc >= 0; pass++)
				for (int j = 0; j < n && rc >= 0; j++)
					if (esp_spread(names[j]) == (pass == 0) && (rc = spread_row(&t, rep, g, names[j], &first)) > 0)
						rows++;
			free(names);
			if (rc < 0) {
				tab_free(&t);
				return -1;
			}
		}
		if (rows) {
			if (!said)
				fprintf(f, "\nESP work per CPU: where the probes counted each call and where the\n"
					   "CPUs were busy, summed over a scenario's runs (the counting repeats'\n"
					   "where there are some); name@receiver is the receiving host's\n");
			said = true;
			fprintf(f, "\nkernel %s\n", rep->kernels[k]);
			tab_print(f, &t, NULL);
			if (*note) {
				fputc('\n', f);
				fputs_wrapped(f, note, 0, 2);
			}
		}
		tab_free(&t);
	}
	return 0;
}
