// SPDX-License-Identifier: GPL-2.0
/* One end of a testbed, here or on the peer (endpoint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "exec.h"
#include "files.h"
#include "journal.h"
#include "log.h"
#include "peer_run.h"
#include "remote.h"

const char *ep_lost(const struct endpoint *e)
{
	return e->lost ? e->lost(e->arg) : NULL;
}

/*
 * argv run by the peer's agent: its exit status, or 255 (as from ssh) when
 * the session died (the end then lost), -1 when it ran but its output did
 * not come (*err says why), or PEER_RUN_NOT_RUN when the agent did not run
 * it (an older agent): then ssh runs it. A program that ran is never run twice.
 */
static int agent_run(const struct endpoint *e, char *const argv[], char **out, char **err)
{
	json_t *req = json_pack("{s:s, s:[]}", "op", "run", "argv"), *r;
	char *line;
	int st;

	for (int i = 0; argv[i]; i++)
		json_array_append_new(json_object_get(req, "argv"), json_string(argv[i]));
	line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!line)
		return PEER_RUN_NOT_RUN;
	if (log_verbose > 1) {
		fprintf(stderr, "ipsecperf: + by the agent on %s: ", e->host->ssh_dest);
		exec_print(stderr, NULL, argv);
	}
	r = e->agent(e->arg, line);
	free(line);
	if (!r) {
		if (err)
			*err = strdup(ep_lost(e) ?: "the agent did not answer");
		return 255;
	}
	st = peer_run_result(r, out, err);
	json_decref(r);
	return st;
}

int ep_run(const struct endpoint *e, char *const argv[], char **out, char **err)
{
	int st;

	if (!ep_remote(e))
		return exec_run(e->netns, argv, out, err);
	/* the agent, when there is one: no ssh connection and remote shell per command */
	st = e->agent ? agent_run(e, argv, out, err) : PEER_RUN_NOT_RUN;
	/*
	 * A cat (the agent's are reads of the files peer_files.h lists)
	 * whose output an answer cannot hold, /proc/net/tcp on a busy host, is
	 * read again over ssh: reading twice changes nothing. Any other program
	 * is not run again.
	 */
	if (st == PEER_RUN_TOO_LONG && !strcmp(argv[0], "cat")) {
		if (out) {
			free(*out);
			*out = NULL;
		}
		if (err) {
			free(*err);
			*err = NULL;
		}
		st = PEER_RUN_NOT_RUN;
	}
	if (st == PEER_RUN_TOO_LONG)
		return -1;
	if (st != PEER_RUN_NOT_RUN)
		return st;
	/* a file the testbed reads may be longer than a command's output: /proc/net/tcp of a busy host */
	st = strcmp(argv[0], "cat") ? remote_run(e->host, argv, out, err)
				    : remote_run_within(e->host, argv,
							&(struct exec_limits){ .max_out = REMOTE_FILE_MAX,
									       .deadline_ms = REMOTE_RUN_DEADLINE_MS },
							out, err);
	if (st == 255 && e->lose)
		e->lose(e->arg, "ssh could not reach the peer");
	return st;
}

int ep_change(const struct endpoint *e, char *const do_argv[], char *const undo_argv[], char **err)
{
	char *errout = NULL;

	if (!ep_remote(e))
		return host_do(e->netns, do_argv, undo_argv, err);
	if (!e->agent || !do_argv || journal_dry_run())
		return remote_do(e->host, do_argv, undo_argv, err);
	/* the undo journaled as before (ssh runs it, also for `cleanup`); the change made by the agent */
	if (remote_do(e->host, NULL, undo_argv, err) < 0)
		return -1;
	if (log_verbose == 1) {
		fprintf(stderr, "ipsecperf: + on %s: ", e->host->ssh_dest);
		exec_print(stderr, NULL, do_argv);
	}
	int st = ep_run(e, do_argv, NULL, &errout); /* before exec_status reads errout */

	return exec_status(st, errout, err);
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
