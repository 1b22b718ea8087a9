// SPDX-License-Identifier: GPL-2.0
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

void format_duration(char *buf, size_t len, double s)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void progress_init(struct progress *p, bool quiet, int total_runs, double run_s)
{
	memset(p, 0, sizeof(*p));
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->total_runs = total_runs;
	p->run_s = run_s;
}

void progress_begin_run(struct progress *p, int scenario_i, int scenario_n,
			const char *scenario, int repeat, int repeats)
{
	p->scenario_i = scenario_i;
	p->scenario_n = scenario_n;
	snprintf(p->label, sizeof(p->label), "%s, repeat %d/%d", scenario, repeat, repeats);
	p->run_start = mono_s();
	progress_tick(p);
}

void progress_tick(struct progress *p)
{
	char left[32], line[sizeof(p->shown)];
	double in_run = mono_s() - p->run_start;
	double remaining = (p->total_runs - p->done_runs) * p->run_s - in_run;

	if (!p->enabled)
		return;
	format_duration(left, sizeof(left), remaining);
	snprintf(line, sizeof(line), "[%d/%d] %s, %s left", p->scenario_i, p->scenario_n, p->label, left);
	if (!strcmp(line, p->shown))
		return;
	strcpy(p->shown, line);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

void progress_end_run(struct progress *p)
{
	p->done_runs++;
}

void progress_clear(struct progress *p)
{
	p->shown[0] = '\0';
	if (p->enabled) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
