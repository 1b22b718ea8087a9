/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running programs on another host (the peer testbed) with ssh, behind an
 * exec-like API. ssh is always started with -o BatchMode=yes (never a
 * password prompt), the user's -o options, "--", the destination and the
 * remote command. ssh joins the remote command into one string for the
 * remote user's shell, so every element of the remote argv is shell-quoted
 * here (single quotes, ' as '\''): the one place ipsecperf builds a command
 * string, and it only quotes, never interpolates.
 *
 * A façade of remote.c (ssh: commands, changes, sessions) and
 * shell_words.c (the words of a command, quoted and split).
 *
 * Changes on the peer are journaled locally as "remote-argv" records that
 * carry the ssh destination and options, so that the undo (and `ipsecperf
 * cleanup`, after a SIGKILL) runs on the machine the change was made on.
 * They go to the peer journal folder, which outlives a reboot of this host
 * (journal_dir.h).
 */
#ifndef IPSECPERF_REMOTE_H
#define IPSECPERF_REMOTE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exec.h"

#define REMOTE_MAX_OPTS 16
/*
 * A session's line buffer: the longest answer line it takes is
 * REMOTE_LINE_MAX - 2 bytes and its newline (what the agent measures its
 * answers against); a longer one loses the session.
 */
#define REMOTE_LINE_MAX 65536
#define REMOTE_ANSWER_MAX (REMOTE_LINE_MAX - 2)

/*
 * What the peer may send back besides the agent's answers, far above any
 * legitimate one: a command's output (each of stdout and stderr), what ssh
 * writes on a session's stderr, each raw/ file of a program started there.
 */
#define REMOTE_OUTPUT_MAX (1 << 20)
/*
 * What a file the testbed reads on the peer may hold when it comes over
 * ssh: /proc/net/tcp is 150 bytes a socket, and a busy host (thousands in
 * TIME-WAIT) passes 1 MiB; this is about 200,000 sockets.
 */
#define REMOTE_FILE_MAX (32 << 20)
/* How long one command through ssh may take, connection included: it bounds a hang. */
#define REMOTE_RUN_DEADLINE_MS 60000

struct host {
	const char *ssh_dest;                    /* [user@]host */
	const char *ssh_opts[REMOTE_MAX_OPTS + 1]; /* values of -o, NULL-terminated */
	int nopts;
};

/*
 * Quote one word for a POSIX shell: unchanged when it holds only characters
 * no shell treats specially, else in single quotes. Returns malloc'd text.
 */
char *shell_quote(const char *s);

/* The words of argv, each quoted, joined by spaces (malloc'd). NULL for an empty argv. */
char *shell_join(char *const argv[]);

/*
 * shell_join undone: the words of s (a NULL-terminated argv, free with
 * remote_argv_free), or NULL when s is not exactly what shell_join makes
 * (words of safe characters or in single quotes with ' as '\'', one blank
 * between two): the command a key pinned to the agent was asked to run
 * (SSH_ORIGINAL_COMMAND), read as data, never by a shell.
 */
char **shell_split(const char *s);

/*
 * Is dest a usable ssh destination ([user@]host, no leading '-', no blanks
 * or control characters)? 0, or -1 with the reason in why.
 */
int remote_check_dest(const char *dest, char *why, size_t len);
/* Is opt a usable -o value (Name=value or "Name value", no newline)? */
int remote_check_opt(const char *opt, char *why, size_t len);

/* The ssh argv for argv on h (NULL-terminated; free with remote_argv_free). */
char **remote_ssh_argv(const struct host *h, char *const argv[]);
void remote_argv_free(char **a);

/*
 * Run argv on h to completion; like exec_run (255: ssh itself failed, the
 * reason in *err), within REMOTE_OUTPUT_MAX a stream and
 * REMOTE_RUN_DEADLINE_MS: past either, ssh is stopped and -1 returned,
 * *out empty and *err saying which.
 */
int remote_run(const struct host *h, char *const argv[], char **out, char **err);
/* remote_run within other limits l (the tests' short deadline). */
int remote_run_within(const struct host *h, char *const argv[], const struct exec_limits *l, char **out,
		      char **err);

/*
 * Start argv on h through ssh; like exec_spawn (o->netns must be NULL).
 * What it writes into its stdout and stderr files stops at
 * REMOTE_OUTPUT_MAX each.
 */
pid_t remote_spawn(const struct host *h, char *const argv[], const struct spawn_opts *o);

/*
 * A change on h: journal undo_argv as a "remote-argv" record (may be NULL),
 * then run do_argv there (NULL: the change is made another way, journal only). In dry-run print the ssh command instead. 0, or -1
 * with the remote command's (or ssh's) stderr in *err.
 */
int remote_do(const struct host *h, char *const do_argv[], char *const undo_argv[], char **err);

/* The "remote-argv" record that runs undo_argv on h (remote_do journals it). */
json_t *remote_undo_record(const struct host *h, char *const undo_argv[]);

/* Print the ssh command a person could type for argv on h. */
void remote_print(FILE *f, const struct host *h, char *const argv[]);

/* The journal record's undo ("remote-argv"; a row in collector/cmd/undo_kinds.c). */
int remote_undo_argv(json_t *r);

/*
 * A long-lived ssh session to a program on the peer that answers one JSON
 * object per line (the peer agent): requests are written to its stdin,
 * answers read from its stdout, each within a deadline and REMOTE_LINE_MAX.
 * ssh's stderr is kept to explain a loss, in a memfd that cannot grow past
 * REMOTE_OUTPUT_MAX (sealed: ssh's writes past it fail).
 */
struct remote_session {
	pid_t pid;
	int to_fd, from_fd, err_fd; /* err_fd: a memfd holding ssh's stderr */
	char buf[REMOTE_LINE_MAX];
	size_t len;
	bool lost;
	char lost_why[512];
	int ahead; /* requests sent ahead whose answers nobody waits for: skipped when they come */
};

int remote_session_open(struct remote_session *s, const struct host *h, char *const argv[]);
/*
 * Send one request line (text, without the newline) and wait up to
 * timeout_ms for one answer line, parsed. NULL when the session is lost
 * (s->lost set, s->lost_why says why) or the answer is not JSON.
 */
json_t *remote_session_call(struct remote_session *s, const char *line, int timeout_ms);
/*
 * The call in two halves, for work done here while the peer answers: send
 * (0, or -1 with the session lost), then receive the answer as above.
 */
int remote_session_send(struct remote_session *s, const char *line);
json_t *remote_session_recv(struct remote_session *s, int timeout_ms);
/*
 * A request whose answer nobody waits for (work the peer can do while this
 * host does its own): sent now, its answer skipped by the next receive.
 */
int remote_session_send_ahead(struct remote_session *s, const char *line);
/* Close stdin (the agent exits and stops what it started), wait, reap. */
void remote_session_close(struct remote_session *s);

#endif
