/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of a results directory (docs/results-format.md): meta.json
 * and runs.jsonl, parsed with jansson. A malformed record is rejected with
 * "FILE:LINE: why"; nothing is guessed. Unknown keys are ignored.
 *
 * A results directory may come from someone else: its strings are data.
 * Every string the reader keeps is refused if it holds a control character
 * (below 0x20, tab included, 0x7f, U+0080-U+009F) or a NUL, with the file,
 * line and field; so no name can end a quoted string in a gnuplot script,
 * a line of a report or a path, nor steer a terminal. Files are read
 * without following symbolic links, and only regular ones.
 *
 * This header is the façade of the files analyze/results*.c, one job each:
 * results.c (a directory: found, checked, loaded, merged), results_input.c
 * (strings are data, reading a file), results_runs.c (runs.jsonl),
 * results_meta.c (meta.json) and results_group.c (groups and metrics).
 */
#ifndef IPSECPERF_RESULTS_H
#define IPSECPERF_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define RESULTS_RECORD_VERSION 1
#define RESULTS_MAX_FILE (256L << 20) /* larger files are refused, not truncated */
/*
 * Distinct names one runs.jsonl may hold; more is refused with the line.
 * A run has a few kernels, a dozen scenarios and counters; the limits keep
 * a crafted file from making the reports' tables and charts (one chart per
 * counter, one bar per kernel) take hours.
 */
#define RESULTS_MAX_KERNELS 128
#define RESULTS_MAX_SCENARIOS 128
#define RESULTS_MAX_GROUPS 2048
#define RESULTS_MAX_COUNTERS 64
#define RESULTS_MAX_RUNS 1000000 /* records of one file: about 0.5 GB in memory */

enum run_status { RUN_OK, RUN_FAILED, RUN_SKIPPED };

/*
 * A counter's reason ("symbol": "unavailable: ...") when it cannot apply
 * to the scenario at all: the ESP counters of a scenario without SAs. The
 * reports leave such rows out.
 */
#define RESULTS_NO_SAS_WHY "not attached: the scenario has no SAs"

struct run_counter {
	char *name;
	bool has_count, has_per_packet, has_per_packet_load;
	double count, per_packet, per_packet_load;
	bool has_per_unit;          /* per the load's unit: "per_transaction", "per_datagram" */
	double per_unit;
	char *symbol;               /* NULL if absent */
};

/*
 * What a load counts its cycles and counters per (the record's "unit"):
 * bytes (a stream: throughput and cycles per byte), transactions (the
 * request/response loads) or datagrams (the packet-rate load).
 */
enum run_unit { UNIT_BYTE, UNIT_TRANSACTION, UNIT_DATAGRAM };
#define RESULTS_NLAT 5      /* latency_ns's p50, p90, p99, p99.9 and max */
#define RESULTS_MAX_CDF 64  /* latency_cdf's points, at most */
#define RESULTS_MAX_STEPS 64 /* rate_search.steps[], at most */
#define RESULTS_MAX_PAIRS 64 /* sa_pair[], at most */
#define RESULTS_MAX_XFRM 128 /* xfrm_stat's counters an end, at most */

/*
 * Where a run's work ran: one figure per CPU, from CPU 0. name is the
 * counter's ("esp_output": counters.esp_output.per_cpu), the receiving
 * host's with "@receiver" (counters_receiver), or "busy_s" and
 * "busy_s@receiver" (cpu_busy_s.per_cpu, per_cpu_receiver).
 */
#define RESULTS_MAX_CPUS 1024
#define RESULTS_MAX_SPREADS 64
struct run_spread {
	char *name;
	double *v;
	int n;
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
	/* peer, vm-pair: each end's own (cycles_per_byte_sender, _receiver) */
	bool has_cpb_sender, has_cpb_receiver;
	double cpb_sender, cpb_receiver;
	bool cycles_estimated;      /* cycles_method == "estimated" */
	bool virtual_clock;         /* "clock": "virtual" (the vm testbed's instruction counting); absent: real */
	bool has_ipb;               /* instructions_per_byte: a number */
	double instructions_per_byte;
	struct run_counter *counters;
	int ncounters;
	struct run_spread *spreads; /* per CPU (results_spread.c), nspreads of them, or NULL */
	int nspreads;
	/* what compare checks for comparability (analyze/provenance.c) */
	char *load;                 /* "iperf3" or "stream"; NULL if absent */
	char *enc_title, *enc_cipher; /* "encryption": what encrypts it ("ESP", "WireGuard") and its cipher; NULL in clear */
	char *accel;                /* the guest's accelerator ("tcg", "kvm"): "accel" or vm.accel */
	bool profiled;              /* the record has a "profile" (run --profile) */
	double profile_hz;          /* its samples per second, 0 if not recorded */
	int source;                 /* the results_merge() that brought it, from 0 */
	bool counting;              /* "purpose": "count": its counters only, never its throughput or cycles */
	int flows;                  /* TCP flows at once ("flows", run --flows): 1 if absent */
	/* the request/response and packet-rate loads' own (docs/results-format.md) */
	enum run_unit unit;
	bool has_tps, has_lat, has_cpu_unit, has_pps, has_loss;
	double tps;                 /* transactions_per_s */
	double transactions;        /* in the window: what the latency percentiles rest on */
	double lat_ns[RESULTS_NLAT];
	double (*cdf)[2];           /* latency_cdf: [quantile, ns], ncdf of them, or NULL */
	int ncdf;
	double cpu_per_unit;        /* cycles (or instructions) per transaction or datagram */
	double pps;                 /* datagrams_per_s received, at the rate found */
	double loss;                /* the window's loss, a fraction */
	int datagram_bytes, rate_steps;
	struct rate_step_rec {      /* rate_search.steps[], rate_steps of them, or NULL */
		double offered_pps, sent_pps, loss;
		bool pass;
	} *steps;
	/* "sa_pair" (run --sas): each SA pair's flows and its data SA, npairs of them, or NULL */
	int npairs;
	struct sa_pair_rec {
		int pair;
		char spi[16];
		char ports[64];             /* "5201 5203" */
		bool has_bps, has_packets;
		double throughput_bps, packets;
	} *pairs;
	/* "xfrm_stat": the kernel's IPsec counters that moved over the load, at either end */
	int nxfrm;
	struct xfrm_stat_rec {
		char name[40];
		bool receiver;
		double count;
	} *xfrm;
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
	char *probe_set;            /* params.probe_set: run --probe-set, or "none" (--no-probes) */
	char *clock;                /* "real" or "virtual" (run --clock); NULL: not recorded (real) */
	char **kernels;             /* as listed in meta.json */
	int nkernels;
	bool has_omit;
	double omit_s;              /* iperf3's warm-up, params.omit_s */
	double until_ci_pct;        /* run --until-ci's target (params.until_ci), 0 if none */
	int max_repeat;             /* and its --max-repeat */
	char *accel;                /* a top-level "accel", where a writer records one */
	struct meta_accel *accels;
	int naccels;
	bool in_guests;             /* meta.json says its runs were in guests ("vm", or kernels[].vm) */
	struct meta_scenario *scenarios;
	int nscenarios;
	/*
	 * The whole of meta.json, for what only one writer shows (the set-up:
	 * analyze/setup_block.c): input as the rest, read with its types
	 * checked and each string through results_bad_char before it is used.
	 */
	json_t *json;
};

struct results {
	char *dir;
	char *runs_path;            /* DIR/runs.jsonl, for messages */
	struct results_meta meta;
	struct run_record *runs;
	int nruns;
	int runs_cap;               /* allocated records */
	int nmerged;                /* results_merge() calls into this one */
	int torn_line;              /* an incomplete last line left out (0: none) */
};

/* A (kernel, scenario) pair, in order of first appearance in runs.jsonl. */
struct run_group {
	const char *kernel, *scenario;
	int *idx;                   /* indexes into results.runs, in file order */
	int n;                      /* all runs, the counting repeats too */
	int n_ok;                   /* throughput runs with status ok */
	int n_count;                /* counting runs ("purpose": "count"), any status */
	int n_count_ok;             /* of which ok */
};

/* The group's throughput runs that were not ok (the counting repeats are not among them). */
static inline int group_not_ok(const struct run_group *g)
{
	return g->n - g->n_count - g->n_ok;
}

/*
 * Load DIR/meta.json and DIR/runs.jsonl. On error returns -1 with one line
 * in err: "PATH: why" or "PATH:LINE: why". r is then empty (free is a no-op).
 */
int results_load(const char *dir, struct results *r, char *err, size_t errlen);
void results_free(struct results *r);

/*
 * The parsers on their own, for tests, fuzzing and the VM testbed's guest
 * records: name is the file name used in messages. runs are appended to r.
 * A last line without a newline that is not JSON (a run killed while it
 * wrote it) is left out, and its number is put in r->torn_line for the
 * caller to warn about; any other malformed line is an error.
 */
int results_parse_runs(const char *name, const char *buf, size_t len, struct results *r,
		       char *err, size_t errlen);
int results_parse_meta(const char *name, const char *buf, size_t len, struct results_meta *m,
		       char *err, size_t errlen);
void results_meta_free(struct results_meta *m);

/*
 * The first control character, NUL or C1 control (as a byte pointer) of
 * s[0..len), or NULL: what a string read from results must not hold.
 */
const char *results_bad_char(const char *s, size_t len);

/*
 * 0 if s[0..len) is data; else -1 with "FILE:LINE: FIELD holds a control
 * character (0x0a at byte 3); ..." in err (line 0: left out). The value
 * itself is never put in the message.
 */
int results_check_field(const char *file, int line, const char *field, const char *s, size_t len,
			char *err, size_t errlen);

/*
 * Replace each control character in the strings of v (a record about to
 * be written) by a space: a tool's stderr in a "reason" may span lines,
 * and what ipsecperf writes must pass its own reader.
 */
void results_scrub(json_t *v);

/* The warning about a torn last line that results_parse_runs left out (none if none). */
void results_warn_torn(const char *path, const struct results *r);

/* s for a message, control characters and backslashes as \xHH; in buf. */
const char *results_printable(const char *s, char *buf, size_t len);

/* May s be a file name on its own? [A-Za-z0-9._+-], not "." or "..". */
bool results_name_ok(const char *s);

/*
 * The newest results directory in parent (one holding a regular meta.json,
 * by its time), as parent/NAME in out: 0, or -1 when there is none.
 */
int results_newest(const char *parent, char *out, size_t len);

/*
 * A command given no DIR (report, compare): the newest under results/,
 * said on stderr ("report: results/X, the newest under results/"); -1
 * after one line when there is none.
 */
int results_default_dir(const char *cmd, char *out, size_t len);

/*
 * A command's check of a DIR operand before it loads it: 0 when dir holds
 * a meta.json; else -1 after one line that says dir is not a results
 * directory and names the newest one under results/ (run's default).
 */
int results_dir_expected(const char *cmd, const char *dir);
/* The same for each of n operands (a "--" between them passed over): 0, or -1 after the first line. */
int results_dirs_expected(const char *cmd, int n, char *const *dirs);

/* -1 with the reason in err if the path dir holds a control character. */
int results_check_dir(const char *dir, char *err, size_t errlen);

/*
 * DIR/REL, whole and NUL-terminated (*len its length): each component of
 * REL a plain name (results_name_ok), none a symbolic link, the file
 * regular (anything else, a FIFO or a device node, is refused without
 * being opened) and at most RESULTS_MAX_FILE; NULL with "DIR/REL: why" in
 * err. results_read_max() takes a smaller cap of its own, checked before
 * a byte is read.
 */
char *results_read(const char *dir, const char *rel, size_t *len, char *err, size_t errlen);
char *results_read_max(const char *dir, const char *rel, long max, size_t *len, char *err, size_t errlen);

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

/*
 * The clock r's runs were measured on (run --clock): "real", "virtual" or
 * "mixed", by the runs that went ok (else every run, else meta.json; a
 * record without "clock" is real).
 */
const char *results_clock(const struct results *r);
/* Was one of g's runs measured on the virtual clock? (Its cost is then instructions, not cycles.) */
bool group_virtual(const struct results *r, const struct run_group *g);

/*
 * Metrics: throughput, cycles per byte (and each end's), instructions per
 * byte (the virtual clock's cost, in place of cycles; or the PMU's, beside
 * them), or one counter's per-packet value
 * (per transaction or datagram for those loads); the request/response
 * loads' transactions per second, latency percentiles and cycles per
 * transaction; the packet-rate load's datagrams per second, loss and
 * cycles per datagram.
 */
enum metric_kind { METRIC_THROUGHPUT, METRIC_CPB, METRIC_COUNTER, METRIC_CPB_SENDER, METRIC_CPB_RECEIVER,
		   METRIC_CPU_SHARE, METRIC_TPS, METRIC_LAT, METRIC_CPU_UNIT, METRIC_PPS, METRIC_LOSS, METRIC_IPB };
struct metric {
	enum metric_kind kind;
	const char *counter;        /* for METRIC_COUNTER; METRIC_CPU_SHARE: the spread's name (struct run_spread) */
	int q;                      /* METRIC_LAT: which of latency_ns (latency_names[q]) */
	enum run_unit unit;         /* METRIC_CPU_UNIT, METRIC_COUNTER: per what */
};

/* latency_ns's keys, in order, and their quantiles (max: 1). */
extern const char *const latency_names[RESULTS_NLAT];
extern const double latency_quantiles[RESULTS_NLAT];

/* Higher is better for throughput, transactions and datagrams per second. */
bool metric_higher_is_better(const struct metric *m);
/*
 * Short name: "throughput", "cycles_per_byte", "transactions_per_s",
 * "latency_p99", "cycles_per_transaction", "datagrams_per_s", "loss", or
 * the counter's (static or m->counter).
 */
const char *metric_name(const struct metric *m, char *buf, size_t len);

/* What the group's runs count per (their "unit"; bytes when none says). */
enum run_unit group_unit(const struct results *r, const struct run_group *g);
/* The group's metrics but its counters, in the reports' order; how many (at most RESULTS_GROUP_METRICS). */
#define RESULTS_GROUP_METRICS 8
int group_metrics(const struct results *r, const struct run_group *g, struct metric *out);

/*
 * The metric's values over the group's ok runs that have it, in file order;
 * scaled to the report's unit (throughput in Gbit/s). Returns how many; out
 * must hold g->n values. Throughput and cycles come from the throughput
 * runs only; a counter from the counting runs where any of them has it,
 * else from the throughput runs.
 */
int group_values(const struct results *r, const struct run_group *g, const struct metric *m,
		 double *out);

/* Counter names seen in the group's ok runs, first appearance order (pointers into r). */
int group_counters(const struct results *r, const struct run_group *g, const char ***names,
		   int *n);

const char *run_status_name(enum run_status s);

/*
 * Spreads over CPUs (results_spread.c): what a report says of where the
 * work ran. Unit-tested.
 */
struct cpu_spread {
	double total;     /* the sum over the CPUs */
	int ncpu;         /* CPUs in the list */
	int top;          /* the CPU with the most (the lowest of equals), -1 when total is 0 */
	double top_share; /* its share of total, 0-1 (0 when total is 0) */
	int used;         /* CPUs with a non-zero figure: 1 is "all on one CPU" */
};
void cpu_spread_of(const double *v, int n, struct cpu_spread *s);
/* The record's spread of that name, or NULL. */
const struct run_spread *run_spread_find(const struct run_record *rec, const char *name);
/* Spread names in the group's ok runs, first appearance order (pointers into r); like group_counters. */
int group_spreads(const struct results *r, const struct run_group *g, const char ***names, int *n);
/*
 * The group's per-CPU figures of name, summed CPU by CPU over its ok runs
 * (the counting runs where any of them has it, else the others), into
 * *sum (malloc'd, *ncpu long); how many runs; 0 and NULL when none has it.
 */
int group_spread_sum(const struct results *r, const struct run_group *g, const char *name, double **sum, int *ncpu);

#endif
