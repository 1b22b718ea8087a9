// SPDX-License-Identifier: GPL-2.0
/* What the loads' own files share: their children, their [load] keys (load_util.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "load_util.h"
#include "peer_run.h"
#include "signals.h"
#include "wait.h"

int load_child_ready(pid_t pid, _Atomic int *flag, const char *err, const char *late, char *why, size_t len)
{
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	journal_add_process(pid);
	if (load_wait_flag(flag, pid, 5000) == 0)
		return 0;
	snprintf(why, len, "%.200s", err[0] ? err : stop_requested() ? "interrupted" : late);
	return -1;
}

int load_child_gone(pid_t *pid, const char *who, const char *err, char *why, size_t len)
{
	if (stop_requested()) {
		snprintf(why, len, "interrupted by signal %d", stop_signal());
		return -1;
	}
	/* one look, among the run's other checks */
	if (*pid > 0 && wait_child_ended(*pid, NULL)) {
		*pid = -1;
		snprintf(why, len, "%s stopped: %.200s", who, err[0] ? err : "no message");
		return -1;
	}
	return 0;
}

void load_child_stop(pid_t *pid, _Atomic int *flag, int value)
{
	if (*pid <= 0)
		return;
	atomic_store(flag, value);
	wait_stop(*pid, &(struct wait_stop){ .quiet_ms = 3000, .grace_ms = 1000 });
	*pid = -1;
}

struct load_agent *load_agent_of(void **state, size_t size)
{
	struct load_agent *a = *state;

	if (!a && (a = *state = calloc(1, sizeof(*a)))) {
		a->pid = -1;
		a->page = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (a->page == MAP_FAILED) {
			free(a); /* no state without its shared page: the other requests read it */
			*state = a = NULL;
		}
	}
	return a;
}

bool load_agent_running(struct load_agent *a)
{
	bool running = a && a->pid > 0 && !wait_child_ended(a->pid, NULL);

	if (a && !running)
		a->pid = -1;
	return running;
}

json_t *load_agent_started(struct load_agent *a, _Atomic int *flag, _Atomic int *stop, const char *err,
			   const char *late)
{
	char why[256];

	if (a->pid > 0 && load_wait_flag(flag, a->pid, 5000) == 0)
		return json_pack("{s:b, s:i}", "ok", 1, "pid", (int)a->pid);
	snprintf(why, sizeof(why), "%s", a->pid < 0 ? strerror(errno) : err[0] ? err : late);
	load_child_stop(&a->pid, stop, 1);
	return json_pack("{s:b, s:s}", "ok", 0, "error", why);
}

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
