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
#include "wait.h"

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

	if (pid <= 0 || st <= 0 || proc_starttime(pid) != st)
		return 0;
	wait_stop(pid, &(struct wait_stop){ .grace_ms = 2000, .starttime = st });
	return 0;
}

static const char *arg(json_t *a, size_t i)
{
	const char *s = json_string_value(json_array_get(a, i));

	return s ? s : "";
}

const char *journal_argv_target(json_t *a, char *buf, size_t len)
{
	const char *p = arg(a, 0);
	size_t dev = 0;

	if (!strcmp(p, "rm") || (!strcmp(p, "ip") && !strcmp(arg(a, 1), "netns")))
		return NULL; /* a run's own folder, its own namespace */
	if (!strcmp(p, "umount"))
		return NULL; /* tracefs, mounted to be read: a run that finds it mounted only reads it too */
	if (!strcmp(p, "modprobe") || !strcmp(p, "rmmod")) {
		fmt_buf(buf, len, "modules");
		return buf;
	}
	if (!strcmp(p, "ethtool") && (!strcmp(arg(a, 1), "-K") || !strcmp(arg(a, 1), "--features") ||
				      !strcmp(arg(a, 1), "--offload")))
		dev = 2;
	else if (!strcmp(p, "ip") && !strcmp(arg(a, 1), "link") && !strcmp(arg(a, 2), "set"))
		dev = !strcmp(arg(a, 3), "dev") ? 4 : 3;
	if (dev && *arg(a, dev)) {
		fmt_buf(buf, len, "dev:%s", arg(a, dev));
		return buf;
	}
	if (!strcmp(arg(a, 1), "peer-agent") && !strcmp(arg(a, 2), "--undo")) {
		/* one of the peer's records, undone there by its agent */
		json_t *r = json_loads(arg(a, 3), 0, NULL);
		const char *t = r ? journal_target(r, buf, len) : buf;

		if (!r)
			fmt_buf(buf, len, "*");
		json_decref(r);
		return t;
	}
	fmt_buf(buf, len, "*");
	return buf;
}

static const char *argv_target(json_t *r, char *buf, size_t len)
{
	if (json_object_get(r, "netns"))
		return NULL; /* inside a run's own namespace */
	return journal_argv_target(json_object_get(r, "argv"), buf, len);
}

/* The kinds known: the journal's own first, then those registered. */
#define MAX_KINDS 16
static struct journal_kind kinds[MAX_KINDS] = {
	{ "argv", undo_argv, argv_target },
	{ "process", undo_process, NULL },
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

const char *journal_target(json_t *r, char *buf, size_t len)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));

	for (size_t i = 0; kind && i < nkinds; i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].target ? kinds[i].target(r, buf, len) : NULL;
	/* a kind this program does not know: it may be anything */
	fmt_buf(buf, len, "*");
	return buf;
}
