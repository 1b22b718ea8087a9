/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journal of host changes. Every change is written (and fsync'd) to
 * journal-<pid>-<starttime>.jsonl as the record of how to undo it, before
 * it is made; at the end the records are undone in reverse order. A journal
 * left by a process that died (SIGKILL) is undone by `ipsecperf cleanup`.
 * The live run holds an flock on its journal, so cleanup leaves it alone.
 * The name holds the process's start time and is made with O_EXCL: a later
 * run that gets a killed run's pid never takes over its journal.
 *
 * Records of changes on this host go to journal_dir(), those of changes on
 * another host ("remote-argv") to journal_peer_dir(), which outlives a
 * reboot of this host (journal_dir.h). One sequence numbers both.
 *
 * Undo records are JSON objects with a "kind"; "argv" runs a command (in
 * "netns" if given), "process" kills a child that may outlive us; the
 * modules that make the other kinds register how each is undone
 * (journal_register_kinds; collector/cmd/undo_kinds.c lists them all).
 *
 * A façade of journal.c (the journal) and journal_kinds.c (how each kind
 * is undone).
 */
#ifndef IPSECPERF_JOURNAL_H
#define IPSECPERF_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "journal_dir.h"

/*
 * Are the journal folders usable (root's, 0700; made when missing)? The
 * peer folder too with peer set. 0, or -1 after one line saying why: a run
 * checks this before it changes anything.
 */
int journal_check(bool peer);

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

/* The sequence number of the record journaled last (0 in dry-run). */
int journal_last(void);

/*
 * The change journaled as record seq was not made (its add failed): its
 * undo must never run, as what it would undo is not this run's. 0 or -1.
 */
int journal_cancel(int seq);

/*
 * Replace record seq (journaled earlier) with undo, keeping its place in
 * the undo order: for an undo that is known only after the changes that
 * must be undone before it (the modules a scenario's SAs loaded). Until
 * the amendment is on disk the record stays as it was. Steals undo; 0 or -1.
 */
int journal_amend(int seq, json_t *undo);

/*
 * Before a change to what the whole host shares (kernel modules, offloads
 * of a device outside our namespaces): take the host-wide lock
 * (hostwide.h). It is given back when the journal has undone every change
 * made since. what names the change as journal_target() names a record's
 * ("dev:NAME", "modules"): while a dead run's journal holds a change to
 * the same (or to something it cannot name), this run would take that
 * run's setting for the host's own and put it back at its end, so the
 * change is refused until `ipsecperf cleanup` has undone it. 0, or -1
 * with why (that refusal, --no-wait, or a stop while waiting).
 */
int journal_hostwide(const char *what, char *why, size_t len);

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

/*
 * `ipsecperf cleanup`: undo journals of dead processes, in both folders.
 * Returns what could not be undone (failed undos, lines that cannot be read,
 * journals refused), or -1 after one line when a folder is refused (nothing
 * is then done).
 */
int journal_cleanup_stale(bool dry_run, int *found);

/*
 * Undo one record (journal_kinds.c). 0 undone; -1 failed (kept, for
 * `ipsecperf cleanup` to try again); JOURNAL_LEFT when it cannot be undone
 * safely and was reported as left: counted as a failure, never retried.
 */
#define JOURNAL_LEFT 1
int journal_undo_one(json_t *undo);

/*
 * How records of one kind are undone: undo returns as journal_undo_one.
 * Register every kind before anything is undone (main does, first of all):
 * a record of a kind not registered is not undone and is kept.
 */
struct journal_kind {
	const char *kind;
	int (*undo)(json_t *r);
	/* what its undo sets back that every run shares (journal_target), or NULL for none */
	const char *(*target)(json_t *r, char *buf, size_t len);
};
void journal_register_kinds(const struct journal_kind *kinds, size_t n);

/*
 * What undoing r sets back that other runs share, into buf: "dev:NAME" (a
 * device outside any run's namespaces, here or on the peer), "modules",
 * or "*" (something of the whole host it cannot name); NULL when it is
 * what only the run that made it has (its namespaces, folders, processes;
 * SAs and policies, which the EEXIST guard finds). Returns buf or NULL.
 */
const char *journal_target(json_t *r, char *buf, size_t len);

/* The same for a command's argv (a JSON array): an "argv" or "remote-argv" undo. */
const char *journal_argv_target(json_t *argv, char *buf, size_t len);

/* The exit status of `ipsecperf peer-agent --undo` for JOURNAL_LEFT. */
#define JOURNAL_LEFT_EXIT 3

#endif
