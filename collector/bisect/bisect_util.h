/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ipsecperf bisect` and its steps share. The bisect drives `git
 * bisect run`, which runs `ipsecperf bisect-step STATE` once per revision;
 * the step reads the bisect's options from STATE (a JSON file in the
 * bisect's scratch folder), builds, runs, compares and appends one line to
 * OUT/steps.jsonl. Here: that state, git in the tree, children that are
 * stopped when the bisect is, and the journal record that undoes a bisect
 * (`git bisect reset`, scratch removed), so `ipsecperf cleanup` resets a
 * bisect whose ipsecperf was killed.
 */
#ifndef IPSECPERF_BISECT_UTIL_H
#define IPSECPERF_BISECT_UTIL_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "safefile.h"

struct bisect_state {
	char tree[PATH_MAX];         /* the git work tree, absolute */
	char build[PATH_MAX];        /* the build folder (-O), absolute, or "": the tree */
	char out[PATH_MAX];          /* the output folder, absolute */
	char scratch[PATH_MAX];      /* the program's copy, this state, the stop flag */
	char self[PATH_MAX];         /* scratch/ipsecperf, the program every step runs */
	char good[41], bad[41];      /* the revisions, as full hashes */
	char good_tree[41];          /* the good revision's tree, a full hash */
	char good_kernel[PATH_MAX];  /* its build, kept in the cache (bisect_cache.h): every step runs it too */
	char good_release[128];      /* its release */
	char metric[128];
	char clock[16];              /* run's --clock for the steps' runs: auto, real or virtual */
	double threshold, alpha;
	int repeat, jobs;            /* jobs 0: `kernel build`'s default */
	bool no_cache;               /* build every revision, even one in the cache */
	json_t *run_opts;            /* options passed on to run, strings */
	json_t *scenarios;           /* strings */
	pid_t driver;                /* the bisect: a step stops when it is gone */
	long long driver_start;
};

int bisect_state_save(const struct bisect_state *s, const char *path);
/* 0, or -1 after one line. */
int bisect_state_load(struct bisect_state *s, const char *path);
void bisect_state_free(struct bisect_state *s);

/*
 * How every git of a bisect starts: without its automatic gc, which git
 * detaches and would leave packing the tree after the bisect, and without
 * the tree's hooks and fsmonitor (safefile.h). git passes -c on to the
 * gits its children run (GIT_CONFIG_PARAMETERS), so this covers `git
 * bisect run`'s steps too.
 */
#define BISECT_GIT_ARGV "git", "-c", "gc.auto=0", SAFE_GIT_ARGV
#define BISECT_GIT_ARGC (3 + SAFE_GIT_ARGC)

/*
 * The same for the gits the bisect's other children run (make's
 * scripts/setlocalversion, ...): gc.auto=0 and safe_git_env() added to
 * this process's environment, after what it holds. 0 or -1.
 */
int bisect_git_env(void);

/*
 * git -c gc.auto=0 -C tree ARGS... (NULL-terminated): its exit status, or -1 when it
 * could not start. *out and *err (if given) get what it printed.
 */
int bisect_git(const char *tree, char **out, char **err, ...) __attribute__((sentinel));

/* The same, its output's first line (trimmed) into buf; "" when none. */
int bisect_git_line(const char *tree, char *buf, size_t len, ...) __attribute__((sentinel));

/* The short hash (12 digits) and subject of rev, for reports. 0 or -1. */
int bisect_describe(const char *tree, const char *rev, char *shortsha, size_t slen, char *subject, size_t sublen);

/* Is a stop asked for: a signal, the bisect's stop flag, or the bisect gone? */
bool bisect_stopping(const struct bisect_state *s);

/* Ask the steps to stop: the flag bisect_stopping() sees. */
void bisect_request_stop(const struct bisect_state *s);

/*
 * Run argv, its stdout and stderr into fd (-1: /dev/null), and wait; when a
 * stop is asked, SIGTERM it and give it grace_ms to end (then SIGKILL).
 * The exit status (128+signal when killed), -1 when it could not start;
 * *stopped tells whether a stop ended it.
 */
int bisect_spawn_wait(const struct bisect_state *s, char *const argv[], int fd, int grace_ms, bool *stopped);

/* Append one step's record to OUT/steps.jsonl (steals it); 0 or -1. */
int bisect_steps_append(const char *out, json_t *step);
/* The steps so far, an array (empty when there are none), or NULL after one line. */
json_t *bisect_steps_read(const char *out);

/*
 * The journal record that undoes a bisect in tree, started from original
 * (the branch or hash BISECT_START holds), with its scratch folder; and
 * its undo (registered in collector/cmd/undo_kinds.c): `git bisect reset` when that
 * bisect is still in progress, and the scratch folder removed.
 */
json_t *bisect_undo_record(const char *tree, const char *original, const char *scratch);
int bisect_undo(json_t *r);

#endif
