// SPDX-License-Identifier: GPL-2.0
/* What the loads' own files share: their children, their [load] keys (load_util.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "load_util.h"
#include "peer_run.h"
#include "signals.h"
#include "wait.h"

const char *load_key(const struct scenario *sc, const char *key)
{
	for (int i = 0; i < sc->nload_keys; i++)
		if (!strcmp(sc->load_keys[i].key, key))
			return sc->load_keys[i].value;
	return NULL;
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

struct flag_wait {
	_Atomic int *flag;
	pid_t child;
};

/* 1: the child set its flag; -1: it ended, or a stop was asked for; 0: not yet. */
static int flag_set(void *arg)
{
	struct flag_wait *w = arg;

	if (atomic_load(w->flag))
		return 1;
	return wait_child_ended(w->child, NULL) || stop_requested() ? -1 : 0;
}

int load_wait_flag(_Atomic int *flag, pid_t child, int timeout_ms)
{
	return wait_until(flag_set, &(struct flag_wait){ flag, child }, timeout_ms, 10) == 1 ? 0 : -1;
}

int load_key_int(const struct scenario *sc, const char *key, long def, long min, long max, long *v, char *why,
		 size_t len)
{
	const char *s = sc ? load_key(sc, key) : NULL;
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

const char *load_agent_where(json_t *req, int *port, int *cpu)
{
	static char why[80];

	*port = peer_req_port(req);
	*cpu = peer_req_cpu(req);
	if (!json_string_value(json_object_get(req, "addr")))
		return "no addr";
	if (*port < 0) {
		snprintf(why, sizeof(why), "\"port\" is not a port from %d to 65535", PEER_PORT_MIN);
		return why;
	}
	return *cpu < -1 ? "\"cpu\" is not a CPU of this host" : NULL;
}
