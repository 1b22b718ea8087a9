// SPDX-License-Identifier: GPL-2.0
/* One end of a testbed, here or on the peer (endpoint.h). */
#include <stdlib.h>

#include "endpoint.h"
#include "exec.h"
#include "files.h"
#include "journal.h"
#include "remote.h"

const char *ep_lost(const struct endpoint *e)
{
	return e->lost ? e->lost(e->arg) : NULL;
}

int ep_run(const struct endpoint *e, char *const argv[], char **out, char **err)
{
	int st;

	if (!ep_remote(e))
		return exec_run(e->netns, argv, out, err);
	st = remote_run(e->host, argv, out, err);
	if (st == 255 && e->lose)
		e->lose(e->arg, "ssh could not reach the peer");
	return st;
}

int ep_change(const struct endpoint *e, char *const do_argv[], char *const undo_argv[], char **err)
{
	return ep_remote(e) ? remote_do(e->host, do_argv, undo_argv, err) : host_do(e->netns, do_argv, undo_argv, err);
}

pid_t ep_spawn(const struct endpoint *e, char *const argv[], int cpu, int out_fd, int err_fd)
{
	struct spawn_opts o = { .netns = ep_remote(e) ? NULL : e->netns, .cpu = ep_remote(e) ? -1 : cpu, .stdout_fd = out_fd,
				.stderr_fd = err_fd };
	pid_t pid = ep_remote(e) ? remote_spawn(e->host, argv, &o) : exec_spawn(argv, &o);

	if (pid > 0)
		journal_add_process(pid);
	return pid;
}

char *ep_read(const struct endpoint *e, const char *path)
{
	char *out = NULL;

	if (!ep_remote(e))
		return file_read(path, NULL);
	if (ep_run(e, (char *[]){ "cat", (char *)path, NULL }, &out, NULL) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

void ep_print(FILE *f, const struct endpoint *e, char *const argv[])
{
	if (ep_remote(e))
		remote_print(f, e->host, argv);
	else
		exec_print(f, e->netns, argv);
}
