// SPDX-License-Identifier: GPL-2.0
/* Waits, written once (wait.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "wait.h"

void wait_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

int wait_until(int (*done)(void *arg), void *arg, int timeout_ms, int step_ms)
{
	double end = mono_s() + timeout_ms / 1000.0;
	int rc;

	while (!(rc = done(arg))) {
		if (timeout_ms >= 0 && mono_s() >= end)
			return 0;
		wait_ms(step_ms);
	}
	return rc;
}

bool wait_child_ended(pid_t pid, int *status)
{
	int st = 0;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == pid && status)
		*status = st;
	return r == pid || (r < 0 && errno == ECHILD);
}

long long proc_starttime(pid_t pid)
{
	char path[64], buf[1024];
	FILE *f;
	char *p;
	long long st = -1;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* field 22 is starttime; p points at the end of field 2 */
		int field = 2;
		char *save = NULL;

		for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (++field == 22) {
				st = atoll(tok);
				break;
			}
	}
	fclose(f);
	return st;
}

struct stopping {
	pid_t pid;
	const struct wait_stop *s;
	int status;
};

/* 1 once the process has ended: reaped (our child) or no longer the one of that start time. */
static int ended(void *arg)
{
	struct stopping *x = arg;

	if (x->s->starttime)
		return proc_starttime(x->pid) != x->s->starttime;
	return wait_child_ended(x->pid, &x->status);
}

static void signal_it(const struct stopping *x, int sig)
{
	if (x->s->starttime && proc_starttime(x->pid) != x->s->starttime)
		return;
	if (x->s->group)
		kill(-x->pid, sig);
	kill(x->pid, sig);
}

int wait_stop(pid_t pid, const struct wait_stop *s)
{
	struct stopping x = { pid, s, 0 };

	if (pid <= 0)
		return -1;
	if (!wait_until(ended, &x, s->quiet_ms, 10)) {
		signal_it(&x, SIGTERM);
		if (!wait_until(ended, &x, s->grace_ms, 10)) {
			signal_it(&x, SIGKILL);
			if (!s->starttime) {
				while (waitpid(pid, &x.status, 0) < 0)
					if (errno != EINTR)
						return -1;
			} else {
				wait_until(ended, &x, 1000, 10);
			}
		}
	}
	if (s->starttime)
		return 0;
	return WIFEXITED(x.status) ? WEXITSTATUS(x.status) : 128 + WTERMSIG(x.status);
}
