/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of a results directory (DESIGN.md, "Results directory"): meta.json
 * and runs.jsonl, parsed with jansson. A malformed record is rejected with
 * "FILE:LINE: why"; nothing is guessed. Unknown keys are ignored.
 */
#ifndef IPSECPERF_RESULTS_H
#define IPSECPERF_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#define RESULTS_RECORD_VERSION 1
#define RESULTS_MAX_FILE (256L << 20) /* larger files are refused, not truncated */

enum run_status { RUN_OK, RUN_FAILED, RUN_SKIPPED };

struct run_counter {
	char *name;
	bool has_count, has_per_packet;
	double count, per_packet;
	char *symbol;               /* NULL if absent */
};

struct run_record {
	int line;                   /* line number in runs.jsonl, from 1 */
	char *kernel, *scenario;
	int repeat;
	enum run_status status;
	char *reason;               /* NULL if absent */
	char *start;                /* NULL if absent */
	bool has_duration, has_bytes, has_throughput, has_cpb, has_retransmits;
	double duration_s, bytes, throughput_bps, cycles_per_byte, retransmits;
	bool cycles_estimated;      /* cycles_method == "estimated" */
	struct run_counter *counters;
	int ncounters;
	/* what compare checks for comparability (analyze/provenance.c) */
	char *load;                 /* "iperf3" or "stream"; NULL if absent */
	char *accel;                /* the guest's accelerator ("tcg", "kvm"): "accel" or vm.accel */
	bool profiled;              /* the record has a "profile" (run --profile) */
	double profile_hz;          /* its samples per second, 0 if not recorded */
	int source;                 /* the results_merge() that brought it, from 0 */
};

/* A guest kernel's accelerator, from meta.json's kernels[].vm or vm[]. */
struct meta_accel {
	char *release, *accel;
};

/* A scenario as run: its name and its file's text, from meta.json's scenarios[]. */
struct meta_scenario {
	char *name, *text;
};

/* Provenance from meta.json; any field may be NULL (or 0) if absent. */
struct results_meta {
	char *tool_version, *command, *host, *cpu_model, *testbed, *iperf3_version, *created;
	int cpu_count;
	double duration_s;          /* per run, as asked on the command line */
	int repeat;
	char **kernels;             /* as listed in meta.json */
	int nkernels;
	bool has_omit;
	double omit_s;              /* iperf3's warm-up, params.omit_s */
	char *accel;                /* a top-level "accel", where a writer records one */
	struct meta_accel *accels;
	int naccels;
	struct meta_scenario *scenarios;
	int nscenarios;
};

struct results {
	char *dir;
	char *runs_path;            /* DIR/runs.jsonl, for messages */
	struct results_meta meta;
	struct run_record *runs;
	int nruns;
	int runs_cap;               /* allocated records */
	int nmerged;                /* results_merge() calls into this one */
};

/* A (kernel, scenario) pair, in order of first appearance in runs.jsonl. */
struct run_group {
	const char *kernel, *scenario;
	int *idx;                   /* indexes into results.runs, in file order */
	int n;                      /* all runs */
	int n_ok;                   /* runs with status ok */
};

/*
 * Load DIR/meta.json and DIR/runs.jsonl. On error returns -1 with one line
 * in err: "PATH: why" or "PATH:LINE: why". r is then empty (free is a no-op).
 */
int results_load(const char *dir, struct results *r, char *err, size_t errlen);
void results_free(struct results *r);

/*
 * The parsers on their own, for tests and fuzzing: name is the file name used
 * in messages. runs are appended to r.
 */
int results_parse_runs(const char *name, const char *buf, size_t len, struct results *r,
		       char *err, size_t errlen);
int results_parse_meta(const char *name, const char *buf, size_t len, struct results_meta *m,
		       char *err, size_t errlen);
void results_meta_free(struct results_meta *m);

/*
 * Move src's runs to the end of dst (src keeps its meta); they get source
 * dst->nmerged, which then counts one more. Returns 0 or -1.
 */
int results_merge(struct results *dst, struct results *src);

/* Group runs by (kernel, scenario); caller frees with results_groups_free. */
int results_groups(const struct results *r, struct run_group **groups, int *ngroups);
void results_groups_free(struct run_group *groups, int ngroups);

/* Distinct kernels of the runs, in order of first appearance (pointers into r). */
int results_kernels(const struct results *r, const char ***kernels, int *n);

/* Metrics: throughput, cycles per byte, or one counter's per-packet value. */
enum metric_kind { METRIC_THROUGHPUT, METRIC_CPB, METRIC_COUNTER };
struct metric {
	enum metric_kind kind;
	const char *counter;        /* for METRIC_COUNTER */
};

/* Higher is better only for throughput. */
bool metric_higher_is_better(const struct metric *m);
/* Short name: "throughput", "cycles_per_byte", "counter.esp_output" (static or m->counter). */
const char *metric_name(const struct metric *m, char *buf, size_t len);

/*
 * The metric's values over the group's ok runs that have it, in file order;
 * scaled to the report's unit (throughput in Gbit/s). Returns how many; out
 * must hold g->n values.
 */
int group_values(const struct results *r, const struct run_group *g, const struct metric *m,
		 double *out);

/* Counter names seen in the group's ok runs, first appearance order (pointers into r). */
int group_counters(const struct results *r, const struct run_group *g, const char ***names,
		   int *n);

const char *run_status_name(enum run_status s);

#endif
