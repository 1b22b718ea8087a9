/* SPDX-License-Identifier: GPL-2.0 */
/* The progress line: on a terminal only, redrawn in place on stderr. */
#ifndef IPSECPERF_PROGRESS_H
#define IPSECPERF_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress {
	bool enabled;
	int total_runs;   /* scenarios x repeats (x kernels) */
	int done_runs;
	double run_s;     /* expected seconds per run */
	double run_start; /* monotonic seconds */
	char label[128];  /* "clear 2/3" */
	int scenario_i, scenario_n;
	char shown[192];  /* the line on screen: redrawn only when it changes */
};

void progress_init(struct progress *p, bool quiet, int total_runs, double run_s);
void progress_begin_run(struct progress *p, int scenario_i, int scenario_n,
			const char *scenario, int repeat, int repeats);
void progress_tick(struct progress *p);
void progress_end_run(struct progress *p);
void progress_clear(struct progress *p);

/* "1:05" for 65 s; unit-tested */
void format_duration(char *buf, size_t len, double seconds);

#endif
