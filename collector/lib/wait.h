/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waiting, written once: a sleep, a wait for a condition with a deadline,
 * and stopping a process (asked, then SIGTERM, then SIGKILL, with its
 * start time checked so that a reused pid is never signalled). Every
 * layer's polling loop and every "TERM, wait, KILL" goes through these.
 */
#ifndef IPSECPERF_WAIT_H
#define IPSECPERF_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

/* Sleep ms milliseconds (a signal may end it early). */
void wait_ms(int ms);

/*
 * Ask done(arg) every step_ms until it answers nonzero or timeout_ms have
 * passed (timeout_ms < 0: no deadline). Returns its last answer: nonzero
 * as soon as it gave one (a caller may use 1 for done, -1 for give up),
 * 0 at the deadline.
 */
int wait_until(int (*done)(void *arg), void *arg, int timeout_ms, int step_ms);

/* Has our child pid ended? Reaps it, its wait status in *status (may be NULL); gone (ECHILD) counts as ended. */
bool wait_child_ended(pid_t pid, int *status);

/*
 * How to stop a process (wait_stop): quiet_ms to end by itself (it was
 * asked otherwise: a flag, EOF on its stdin), then SIGTERM and grace_ms,
 * then SIGKILL. group: signal its process group (-pid) too. starttime:
 * not our child, a process known by its pid and start time
 * (proc_starttime), signalled only while both still match and waited for
 * by looking; 0: our child, reaped.
 */
struct wait_stop {
	int quiet_ms;
	int grace_ms;
	bool group;
	long long starttime;
};

/*
 * Stop pid as s says. Returns our child's wait status as exit code
 * (128 + signal when killed), 0 for another process once it is gone,
 * -1 when pid <= 0 or it could not be waited for.
 */
int wait_stop(pid_t pid, const struct wait_stop *s);

/*
 * The kernel's start time (clock ticks after boot, /proc/PID/stat) of pid,
 * or of this process for 0; -1 when there is no such process. With the pid
 * it tells a process from a later one that got the same pid.
 */
long long proc_starttime(pid_t pid);

#endif
