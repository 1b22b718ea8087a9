/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU profiles of runs (`ipsecperf run --profile`, `ipsecperf report
 * --profile`): sampled call chains folded into stacks, reduced to the
 * functions that cost the most, each with its share of the busy samples and
 * its cycles per byte (that share times the run's cycles per byte), and the
 * difference of two scenarios sorted by the gain in cycles per byte.
 *
 * A folded stack is FlameGraph's stackcollapse format, root first:
 *   "iperf3;entry_SYSCALL_64_[k];...;copy_user_generic_[k] 42"
 * The first frame is the command name; kernel frames end in "_[k]" (the
 * annotation of stackcollapse-perf.pl --kernel, which flamegraph.pl colours);
 * a user frame without a symbol is "[dso basename]".
 *
 * A façade of profile.c (folding and reducing) and profile_report.c
 * (`report --profile`).
 */
#ifndef IPSECPERF_PROFILE_H
#define IPSECPERF_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROF_KERNEL_SUFFIX "_[k]"

struct prof_stack {
	char *stack;
	uint64_t count;
};

/* Folded stacks, sorted by stack, each stack once. */
struct prof_folded {
	struct prof_stack *v;
	size_t n, cap;
};

void prof_folded_free(struct prof_folded *f);
/* Add count samples of stack (kept unsorted until prof_folded_finish). */
int prof_folded_add(struct prof_folded *f, const char *stack, uint64_t count);
/* Sort and merge equal stacks. */
void prof_folded_finish(struct prof_folded *f);
uint64_t prof_folded_total(const struct prof_folded *f);
/* a + b, or UINT64_MAX past it: sample counts saturate, never wrap. */
uint64_t prof_count_add(uint64_t a, uint64_t b);

/*
 * Fold the text of `perf script -F comm,tid,ip,sym,dso` (a header line per
 * sample, then its call chain leaf first, one "\tADDR SYM (DSO)" a line).
 * Returns the number of samples, or -1 with a reason in err.
 */
long prof_fold_perf_script(const char *text, struct prof_folded *out, char *err, size_t errlen);

/*
 * Read "stack count" lines; -1 with "name:LINE: why" in err on a malformed
 * line, a control character, a count above PROF_MAX_COUNT (2^53, what a
 * double holds exactly), or more than PROF_MAX_STACKS lines (a profile
 * has a few thousand; the limit bounds the memory a file costs). Sums of
 * counts saturate at UINT64_MAX, never wrap. Everything done with what is
 * read (reducing, merging, the commands, a flame graph) takes time about
 * linear in its size: names are looked up in hash tables (strmap.h).
 */
#define PROF_MAX_STACKS 4000000
#define PROF_MAX_COUNT (1ULL << 53)
int prof_folded_parse(const char *name, const char *text, struct prof_folded *out, char *err,
		      size_t errlen);
int prof_folded_write(FILE *f, const struct prof_folded *folded);

/* Is this stack an idle CPU (the idle task in its idle loop)? Those are not busy time. */
bool prof_stack_is_idle(const char *stack);

/* One function: self samples (it was the leaf) and total (anywhere on the stack). */
struct prof_func {
	char *name;          /* frame as folded: kernel ones end in "_[k]" */
	uint64_t self, total;
	double share;        /* self / busy samples */
	double total_share;  /* total / busy samples */
	double cpb;          /* share x the run's cycles per byte; NAN when unknown */
};

struct prof_summary {
	uint64_t samples, idle; /* busy = samples - idle */
	double cpb;             /* the run's cycles per byte; NAN when unknown */
	struct prof_func *f;    /* by self descending, then name */
	size_t n;
	int nruns;              /* summaries merged into this one */
};

/* Reduce folded stacks; cpb is the run's cycles per byte (NAN if unknown). */
int prof_reduce(const struct prof_folded *folded, double cpb, struct prof_summary *out);
void prof_summary_free(struct prof_summary *s);

/*
 * Merge the summaries of several runs of one scenario: samples are pooled
 * (shares of the pooled busy samples), cycles per byte are the mean over
 * the runs (a run without the function counts 0), so that they add up to
 * the mean of the runs' cycles per byte.
 */
int prof_merge(const struct prof_summary *runs, int n, struct prof_summary *out);

/*
 * Busy samples per command (a stack's first frame), most first, with their
 * share of the busy samples: on a shared host, what else was running.
 */
int prof_commands(const struct prof_folded *folded, struct prof_func **out, size_t *n);
void prof_funcs_free(struct prof_func *f, size_t n);

/* Display name: without "_[k]"; *kernel says whether it had it. */
const char *prof_func_display(const char *name, bool *kernel, char *buf, size_t len);

/* The top functions as JSON for a runs.jsonl record. */
json_t *prof_summary_json(const struct prof_summary *s, size_t top);

struct prof_diff_row {
	const char *name;             /* points into one of the summaries */
	double base_cpb, cpb, gain;   /* gain = cpb - base_cpb */
	double base_share, share;
};

/*
 * The difference of s against base, one row per function in either,
 * sorted by gain descending (then name). Caller frees *rows.
 */
int prof_diff(const struct prof_summary *base, const struct prof_summary *s,
	      struct prof_diff_row **rows, size_t *n);

/* What `ipsecperf report --profile` was asked for (collector/cmd/cmd_report.c parses it). */
struct report_profile_opts {
	const char *base;        /* --base SCENARIO, or NULL for the first */
	const char *base_kernel; /* --base-kernel K, or NULL */
	const char *folded;      /* --folded DIR, or NULL for the first DIR */
	int top;                 /* rows per table */
	bool json;               /* -f json */
	bool svg;                /* -f svg: one flame graph instead of the tables */
	const char *scenario;    /* -f svg: the scenario drawn (NULL: the first, or the first not --base) */
	const char *kernel;      /* -f svg: the kernel drawn (NULL: the first, or the first not --base-kernel) */
	const char *output;      /* -f svg: the file, or NULL for standard output */
};

/* `ipsecperf report --profile` on DIRs (analyze/profile_report.c); an exit status. */
int report_profile_run(const struct report_profile_opts *o, char *const dirs[], int ndirs);

#endif
