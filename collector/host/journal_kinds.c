// SPDX-License-Identifier: GPL-2.0
/*
 * How each kind of journal record is undone: the journal's own kinds
 * ("argv", "process") here, the others registered by the layer above that
 * knows their owners (collector/cmd/undo_kinds.c), so that the journal depends on none
 * of the modules that journal.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "log.h"

static int undo_argv(json_t *r)
{
	json_t *a = json_object_get(r, "argv");
	const char *ns = json_string_value(json_object_get(r, "netns"));
	size_t n = json_array_size(a);
	char **argv;
	char *err = NULL;
	int st;

	if (!n)
		return -1;
	argv = calloc(n + 1, sizeof(*argv));
	for (size_t i = 0; i < n; i++)
		argv[i] = (char *)json_string_value(json_array_get(a, i));
	st = exec_run(ns, argv, NULL, &err);
	if (st != 0) {
		msg_trim(err);
		pr_warn("undo: %s failed: %s", argv[0], err && *err ? err : "no message");
	}
	free(err);
	free(argv);
	return st == 0 ? 0 : -1;
}

/* Kill a child we started, unless it is gone or the pid was reused. */
static int undo_process(json_t *r)
{
	pid_t pid = (pid_t)json_integer_value(json_object_get(r, "pid"));
	long long st = json_integer_value(json_object_get(r, "starttime"));

	if (pid <= 0 || proc_starttime(pid) != st)
		return 0;
	kill(pid, SIGTERM);
	for (int i = 0; i < 100 && proc_starttime(pid) == st; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	if (proc_starttime(pid) == st)
		kill(pid, SIGKILL);
	return 0;
}


/* The kinds known: the journal's own first, then those registered. */
#define MAX_KINDS 16
static struct journal_kind kinds[MAX_KINDS] = {
	{ "argv", undo_argv },
	{ "process", undo_process },
};
static size_t nkinds = 2;

void journal_register_kinds(const struct journal_kind *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < nkinds && strcmp(kinds[j].kind, k[i].kind))
			j++;
		if (j == MAX_KINDS) {
			pr_warn("journal: more than %d kinds of record; raise MAX_KINDS", MAX_KINDS);
			abort();
		}
		kinds[j] = k[i];
		if (j == nkinds)
			nkinds++;
	}
}

int journal_undo_one(json_t *r)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));

	for (size_t i = 0; kind && i < nkinds; i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].undo(r);
	pr_warn("undo: unknown journal record kind '%s'", kind ? kind : "(none)");
	return -1;
}
