/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting programs: always from an argv, never through a shell. A program
 * can be started inside a named network namespace (/run/netns/NAME), which
 * the child enters with setns() before exec, like `ip netns exec`.
 */
#ifndef IPSECPERF_EXEC_H
#define IPSECPERF_EXEC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct spawn_opts {
	const char *netns; /* NULL: the caller's namespace */
	int cpu;           /* pin to this CPU, or -1 */
	int stdout_fd;     /* -1: /dev/null */
	int stderr_fd;     /* -1: /dev/null */
	/* fds the program gets as 3, 4, ... (qemu's tap devices); none when npass is 0 */
	const int *pass_fds;
	int npass;
	/*
	 * The most the program may write into a file (RLIMIT_FSIZE; SIGXFSZ
	 * ignored, so a write past it fails with EFBIG), its stdout and stderr
	 * files too; 0: no limit.
	 */
	size_t file_max;
};

/*
 * fork() for every child ipsecperf starts. In the child: its own process
 * group, so a terminal's Ctrl-C reaches only ipsecperf, which stops its
 * children in order; PR_SET_PDEATHSIG, so no child outlives a killed run;
 * SIGINT, SIGTERM and SIGHUP back to default; then into netns (if given)
 * and onto cpu (if >= 0). A namespace it cannot enter ends the child with
 * status 126, the reason in err (if given) or on stderr. Returns as fork().
 * SIGPIPE stays ignored: a child that execs must set it back itself.
 */
pid_t exec_fork(const char *netns, int cpu, char *err, size_t errlen);

/* Start argv; returns the child's pid or -1 with errno set. */
pid_t exec_spawn(char *const argv[], const struct spawn_opts *o);

/*
 * Run argv to completion. Its stdout (and stderr) are returned in *out and
 * *err when those are not NULL (caller frees). Returns the exit status,
 * 128+signal when killed, or -1 when it could not be started.
 */
int exec_run(const char *netns, char *const argv[], char **out, char **err);

/* What a program run by exec_run_limited may print and how long it may take. */
struct exec_limits {
	size_t max_out;  /* bytes kept of stdout, and of stderr; 0: all */
	int deadline_ms; /* -1: none */
};

struct exec_result {
	char *out, *err;         /* malloc'd and NUL-terminated; they may hold NULs */
	size_t out_len, err_len;
	bool too_long;           /* a stream passed max_out */
	bool timed_out;          /* the deadline passed */
};

/*
 * exec_run within limits (NULL: none): a program that prints more than
 * max_out on either stream, or outlives the deadline, is killed with its
 * process group at once, and *r says which. The caller frees r->out and
 * r->err (NULL only when it returns -1).
 */
int exec_run_limited(const char *netns, char *const argv[], const struct exec_limits *l,
		     struct exec_result *r);

/*
 * A change's exit status st as 0 or -1. errout (what the program wrote to
 * stderr, allocated) is taken: on a failure it goes trimmed to *err when
 * err is not NULL, else it is freed.
 */
int exec_status(int st, char *errout, char **err);

/* Wait for pid; the same return convention as exec_run. */
int exec_wait(pid_t pid);

/* Send SIGTERM, wait up to grace_ms, then SIGKILL; reaps the child. */
void exec_stop(pid_t pid, int grace_ms);

/* exec_stop for the child's whole process group (a make and its jobs). */
void exec_stop_group(pid_t pid, int grace_ms);

/*
 * How exec_wait_stoppable stops a child: stopping(arg) is asked every 50
 * ms; when it first says yes, ask(arg, pid) asks the child to stop (NULL:
 * SIGTERM), which then has grace_ms to end; after that late is warned and
 * the child (with group, its process group) gets SIGKILL.
 */
struct exec_stopper {
	bool (*stopping)(const void *arg);
	void (*ask)(const void *arg, pid_t pid);
	const void *arg;
	int grace_ms;
	bool group;
	const char *late;
};

/*
 * Wait for pid, stopping it as s says when a stop is asked; the same
 * return convention as exec_wait. *stopped tells whether one was asked.
 */
int exec_wait_stoppable(pid_t pid, const struct exec_stopper *s, bool *stopped);

/* Print argv as a command a person could type (shell-quoted). */
void exec_print(FILE *f, const char *netns, char *const argv[]);

/* Is prog found in PATH (or, with a '/', executable as given)? */
int exec_have(const char *prog);

/* Where PATH finds prog (as execvp would), into out; 0, or -1 when nowhere. */
int exec_find(const char *prog, char *out, size_t len);

/*
 * Run argv (no shell) with the working directory dir (NULL: ours), its
 * output and errors appended to *out when out is given, else inherited.
 * Returns the exit status, 128+signal, or -1 when it could not start.
 */
int exec_in_dir(const char *dir, char *const argv[], char **out);

/*
 * The same in the folder open as dfd (fchdir in the child): a folder kept
 * open is the one checked, whatever its path names meanwhile.
 */
int exec_in_dirfd(int dfd, char *const argv[], char **out);

#endif
