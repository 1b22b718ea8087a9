// SPDX-License-Identifier: GPL-2.0
/*
 * The agent started for an ssh key pinned to it (command="ipsecperf
 * peer-agent" in the peer's authorized_keys, or such a command under a sudo
 * rule): sshd starts it whatever the run asked, and says what that was in
 * SSH_ORIGINAL_COMMAND. The run asks ssh for its agent's session, for the
 * undo of each change (`peer-agent --undo RECORD`, ethtool -K, ip link set
 * mtu, modprobe), a module's load or unload, the iperf3 server or client
 * under timeout(1), and a re-read of a file the testbed reads: the agent
 * serves exactly those, read from the command's words as shell_join made
 * them (never by a shell), and refuses anything else with
 * PEER_AGENT_PINNED_EXIT, saying why on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "log.h"
#include "peer_agent.h"
#include "peer_files.h"
#include "peer_run.h"
#include "remote.h"

/* cat of the files the testbed reads, as cat would print them (up to REMOTE_FILE_MAX, what the run reads). */
static int serve_cat(char *const w[], int n)
{
	struct exec_result r;
	int st = peer_files_cat(w + 1, n - 1, REMOTE_FILE_MAX, &r);

	if (st < 0)
		return EXIT_FAIL;
	if (r.too_long) {
		pr_warn("peer-agent: cat: more than %d MiB, more than the run reads", REMOTE_FILE_MAX >> 20);
		st = EXIT_FAIL;
	} else {
		fwrite(r.out, 1, r.out_len, stdout);
		fwrite(r.err, 1, r.err_len, stderr);
	}
	free(r.out);
	free(r.err);
	return fflush(stdout) == 0 ? st : EXIT_FAIL;
}

/* One program the run sends (checked): the agent becomes it, as a shell would run it. */
static int serve_exec(char *const w[])
{
	signal(SIGPIPE, SIG_DFL);
	execvp(w[0], w);
	pr_warn("peer-agent: cannot run %s: %s", w[0], strerror(errno));
	return 127;
}

static int refuse(const char *cmd, const char *why)
{
	char shown[160];

	snprintf(shown, sizeof(shown), "%s", cmd);
	msg_clean(shown, true); /* what the key was asked for is data */
	pr_warn("peer-agent: this ssh key is pinned to the agent (command= in the peer's authorized_keys), which runs only what the peer testbed sends; `%s` was not run: %s",
		shown, why);
	return PEER_AGENT_PINNED_EXIT;
}

int peer_agent_pinned(const char *cmd)
{
	char **w = shell_split(cmd), why[600];
	int n = 0, rc;

	while (w && w[n])
		n++;
	if (!w)
		rc = refuse(cmd, "it is not a command as the run sends one (words of safe characters or in single quotes)");
	else if (n == 2 && !strcmp(w[1], "peer-agent"))
		rc = peer_agent_serve();
	else if (n == 4 && !strcmp(w[1], "peer-agent") && !strcmp(w[2], "--undo"))
		rc = peer_agent_undo(w[3]);
	else if (peer_ssh_allowed(w, n, why, sizeof(why)) < 0)
		rc = refuse(cmd, why);
	else
		rc = !strcmp(w[0], "cat") ? serve_cat(w, n) : serve_exec(w);
	remote_argv_free(w);
	return rc;
}
