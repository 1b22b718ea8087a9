// SPDX-License-Identifier: GPL-2.0
/* How each kind of journal record is undone. Add a row for a new kind. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ethtool_nl.h"
#include "exec.h"
#include "ipsec.h"
#include "journal.h"
#include "log.h"
#include "remote.h"
#include "rtnl.h"

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


static const struct {
	const char *kind;
	int (*undo)(json_t *r);
} kinds[] = {
	{ "argv", undo_argv },
	{ "process", undo_process },
	{ "xfrm-state", ipsec_undo_state },   /* ipsec.c: delete an SA by spi/dst */
	{ "xfrm-policy", ipsec_undo_policy }, /* ipsec.c: delete a policy by selector/dir */
	{ "modules", kmod_undo },             /* kmod.c: unload the modules a run loaded */
	{ "remote-argv", remote_undo_argv },  /* remote.c: a command on the peer, through ssh */
	{ "netns", rtnl_undo_netns },         /* rtnl.c: delete a namespace we made */
	{ "ethtool-features", ethnl_undo_features }, /* ethtool_nl.c: set offloads back */
};

int journal_undo_one(json_t *r)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));

	for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].undo(r);
	pr_warn("undo: unknown journal record kind '%s'", kind ? kind : "(none)");
	return -1;
}
