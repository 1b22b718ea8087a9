// SPDX-License-Identifier: GPL-2.0
/*
 * What every load shares (load.h): the scenario's entry of the table of
 * loads (loads.c) and running it, the check at an endpoint, the flows'
 * fairness. Here, so that no load file calls another.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "load.h"
#include "signals.h"

const struct load_kind *load_of(const struct scenario *sc)
{
	const struct load_kind *k = sc ? load_find(sc->load) : NULL;

	return k ? k : load_kinds[0];
}

int load_check_at(const struct endpoint *e, const struct scenario *sc, char *why, size_t len)
{
	const struct load_kind *k = load_of(sc);

	return k->check_at ? k->check_at(e, sc, why, len) : 0;
}

const char *const load_direction_names[3] = { "tx", "rx", "both" };

double load_fairness(const struct load_flow *f, int n)
{
	double sum = 0, sq = 0;

	for (int i = 0; i < n; i++) {
		sum += f[i].throughput_bps;
		sq += f[i].throughput_bps * f[i].throughput_bps;
	}
	return n > 0 && sq > 0 ? sum * sum / (n * sq) : 0;
}

int load_run(const struct load_params *p, struct load_result *r)
{
	return load_of(p->sc)->run(p, r);
}

pid_t load_fork(const char *netns, int cpu, char *err, size_t errlen)
{
	pid_t pid = exec_fork(netns, cpu, err, errlen);

	/*
	 * No inherited descriptors: the journal's (whose lock tells cleanup
	 * that a run is alive) and the results' stay with ipsecperf alone.
	 */
	if (pid == 0)
		syscall(SYS_close_range, 3, ~0U, 0);
	return pid;
}

int load_wait_flag(_Atomic int *flag, pid_t child, int timeout_ms)
{
	for (int t = 0; t < timeout_ms; t += 10) {
		if (atomic_load(flag))
			return 0;
		/* a look while waiting for the child's flag in shared memory */
		if (waitpid(child, NULL, WNOHANG) == child)
			return -1;
		if (sleep_ms_or_stop(10))
			return -1;
	}
	return -1;
}

int load_key_int(const struct scenario *sc, const char *key, long def, long min, long max, long *v, char *why,
		 size_t len)
{
	const char *s = sc ? scenario_load_key(sc, key) : NULL;
	char *end;

	*v = def;
	if (!s)
		return 0;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (!*s || *end || errno || *v < min || *v > max) {
		snprintf(why, len, "[load] %s must be a whole number from %ld to %ld, not '%s'", key, min, max, s);
		return -1;
	}
	return 0;
}
