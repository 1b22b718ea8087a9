/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journal of host changes. Every change is written (and fsync'd) to
 * /run/ipsecperf/journal-<pid>.jsonl as the record of how to undo it, before
 * it is made; at the end the records are undone in reverse order. A journal
 * left by a process that died (SIGKILL) is undone by `ipsecperf cleanup`.
 * The live run holds an flock on its journal, so cleanup leaves it alone.
 *
 * Undo records are JSON objects with a "kind"; "argv" runs a command (in
 * "netns" if given), "process" kills a child that may outlive us; other kinds
 * are listed in journal_kinds.c.
 */
#ifndef IPSECPERF_JOURNAL_H
#define IPSECPERF_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

/* Where journals live; $IPSECPERF_JOURNAL_DIR overrides /run/ipsecperf. */
const char *journal_dir(void);

/* Open this process's journal. In dry-run nothing is written anywhere. */
int journal_open(bool dry_run);
bool journal_dry_run(void);

/*
 * Make a host change: journal undo_argv (may be NULL for a change that needs
 * none), then run do_argv. In dry-run print do_argv instead. Returns 0 on
 * success; on failure *err (if given) holds the command's stderr.
 */
int host_do(const char *netns, char *const do_argv[], char *const undo_argv[], char **err);

/* Journal an undo record of any kind (steals the reference). */
int journal_add(json_t *undo);

/* Journal a child process so that cleanup can kill it if we die first. */
int journal_add_process(pid_t pid);

/*
 * A mark, and undo back to it: what one scenario changed is undone before
 * the next scenario starts, so scenarios never inherit each other's state.
 */
int journal_mark(void);
int journal_undo_to(int mark);

/* Undo everything this process journaled, newest first; failures counted. */
int journal_undo_all(void);

/* `ipsecperf cleanup`: undo journals of dead processes. Returns failures. */
int journal_cleanup_stale(bool dry_run, int *found);

/* The kernel's start time of pid (from /proc/PID/stat), or -1. */
long long proc_starttime(pid_t pid);

/* Undo one record (journal_kinds.c). Returns 0 or -1. */
int journal_undo_one(json_t *undo);

#endif
