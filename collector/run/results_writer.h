/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results directory (docs/results-format.md): meta.json, runs.jsonl
 * with one record appended (and fsync'd) as each run ends, and raw/ for
 * what the tools print.
 */
#ifndef IPSECPERF_RESULTS_WRITER_H
#define IPSECPERF_RESULTS_WRITER_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

#include "run.h"

struct results_writer {
	char dir[PATH_MAX];
	int runs_fd;
	json_t *meta;
};

/* Pick the default directory name: results/<UTC>-<testbed>-<tag>. */
void writer_default_dir(char *buf, size_t len, const char *testbed, const char *tag);

/*
 * Whether the results directory (-o DIR or the default) can be made: one
 * line and -1 when not (it is not empty, a symlink, or -o's parent is
 * missing). Changes nothing, so that --dry-run checks it too.
 */
int writer_check(const struct run_config *cfg, const char *testbed);

/*
 * Create the directory (or take it, when empty) as writer_check() allows,
 * and write meta.json; runs.jsonl is made with O_EXCL|O_NOFOLLOW.
 */
int writer_open(struct results_writer *res, const struct run_config *cfg, const char *testbed);

/* Append one record as a line of runs.jsonl and fsync it. */
int writer_append(struct results_writer *res, json_t *record);

/* Append a run's record and drop the reference; 1 if the run failed, else 0. */
int writer_append_run(struct results_writer *res, json_t *rec);

/* Rewrite meta.json (after something was added to res->meta). */
int writer_write_meta(struct results_writer *res);

void writer_close(struct results_writer *res);

/*
 * The set-up of the kernel this run measures on, meta.json's
 * kernels[0].setup (this host, or the sending end), or with receiver its
 * setup_receiver (the peer, the receiving guest), made when missing; NULL
 * without a meta.json (--dry-run).
 */
json_t *writer_setup(struct results_writer *res, bool receiver);

/*
 * The conditions of setup that make figures vary (setup_conditions):
 * each warned about once and kept in meta.json's conditions.warnings.
 */
void writer_conditions(struct results_writer *res, const json_t *setup, int cpu_a, int cpu_b,
		       const char *where);

/*
 * The crypto drivers serving alg (setup_crypto) on this end (here) and
 * the other (far, or NULL), into each end's setup.crypto.ALG; steals both.
 */
void writer_crypto(struct results_writer *res, const char *alg, json_t *here, json_t *far);

/* This kernel: {"release", "version", "config_sha256"}. */
json_t *kernel_info(void);

/* An ISO 8601 UTC timestamp of now. */
void iso8601_now(char *buf, size_t len);

/* Write a JSON value to path atomically (tmp + rename). */
int json_write_file(const char *path, json_t *v);

#endif
