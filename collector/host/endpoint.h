/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One end of a testbed, where a load's sender or receiver lives: in a
 * network namespace of this host, or on the peer reached with ssh. The
 * same calls either way: run a program, make a journaled change, start a
 * background process, read a file, print a command (dry-run). The loads
 * and the set-up are written once over them.
 */
#ifndef IPSECPERF_ENDPOINT_H
#define IPSECPERF_ENDPOINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct host;

struct endpoint {
	const char *netns;       /* here: the namespace (NULL: this host's own) */
	const struct host *host; /* NULL: this host; else the peer, through ssh */
	const char *dev;         /* its end of the link */
	const char *addr;        /* its address, without prefix length */
	int cpu;                 /* the CPU its load is pinned to, or -1 */
	/*
	 * A remote end can be lost (ssh's exit status 255): lose() marks it,
	 * with why; lost() says why once it is, else NULL. NULL here.
	 */
	void (*lose)(void *arg, const char *why);
	const char *(*lost)(void *arg);
	/*
	 * The peer's agent (`ipsecperf peer-agent`), NULL where there is none:
	 * one request line (it may hold a key: the caller wipes it), the
	 * answer; NULL, and the end lost, when the session died.
	 */
	json_t *(*agent)(void *arg, const char *line);
	const char *prog;        /* the peer's ipsecperf (its undo records run it), NULL here */
	void *arg;
};

/* Is e another host (shared with whoever else uses it, reached with ssh)? */
static inline bool ep_remote(const struct endpoint *e)
{
	return e->host != NULL;
}

/* Why e is lost, or NULL while it is reachable. */
const char *ep_lost(const struct endpoint *e);

/* Run argv at e to completion; as exec_run (255 from ssh: unreachable, e lost). */
int ep_run(const struct endpoint *e, char *const argv[], char **out, char **err);

/* A journaled change at e, its undo journaled first; as host_do. */
int ep_change(const struct endpoint *e, char *const do_argv[], char *const undo_argv[], char **err);

/*
 * Start argv at e in the background (journaled as the run's process: it
 * is stopped at the end), its output to out_fd and err_fd (-1: none). A
 * local one is pinned to cpu (-1: not); a remote one pins itself. -1 on
 * error with errno.
 */
pid_t ep_spawn(const struct endpoint *e, char *const argv[], int cpu, int out_fd, int err_fd);

/*
 * The text of the file at path at e (malloc'd), or NULL. On the peer, its
 * agent reads only the files the testbed reads (peer_files.h).
 */
char *ep_read(const struct endpoint *e, const char *path);

/* argv as a person would type it to run it at e (dry-run). */
void ep_print(FILE *f, const struct endpoint *e, char *const argv[]);

#endif
