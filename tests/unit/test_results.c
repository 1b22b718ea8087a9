// SPDX-License-Identifier: GPL-2.0
/* Unit tests for analyze/results.c (the results reader) and summary_print. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "matrix.h"
#include "results.h"
#include "summary.h"

#define REC(k, s, r, extra)                                                          \
	"{\"version\":1,\"kernel\":\"" k "\",\"scenario\":\"" s "\",\"repeat\":" #r \
	",\"status\":\"ok\",\"throughput_bps\":" extra "}\n"

static const char good_runs[] =
	"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"clear\",\"repeat\":1,\"status\":\"ok\","
	"\"throughput_bps\":9.5e9,\"cycles_per_byte\":1.5,\"cycles_method\":\"estimated\","
	"\"future_key\":{\"x\":[1,2]},"
	"\"counters\":{\"esp_output\":{\"count\":null,\"per_packet\":null,\"symbol\":\"unavailable: no ESP\"},"
	"\"xmit_skbs\":{\"count\":1000,\"per_packet\":0.25,\"symbol\":\"tp\"}}}\n"
	"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"clear\",\"repeat\":2,\"status\":\"ok\","
	"\"throughput_bps\":9.0e9,\"cycles_per_byte\":1.7}\n"
	"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"no-gso\",\"repeat\":1,\"status\":\"failed\","
	"\"reason\":\"iperf3 exited with status 1\"}\n"
	"{\"version\":1,\"kernel\":\"6.12.0\",\"scenario\":\"clear\",\"repeat\":1,\"status\":\"ok\","
	"\"throughput_bps\":8.0e9,\"cycles_per_byte\":null}\n"
	"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"no-gso\",\"repeat\":2,\"status\":\"ok\","
	"\"throughput_bps\":3.0e9}\n";

static int parse(const char *text, struct results *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	return results_parse_runs("runs.jsonl", text, strlen(text), r, err, errlen);
}

static void test_good(void **state)
{
	struct results r;
	struct run_group *g;
	const char **names;
	char err[512];
	double v[8];
	int ng, n;

	(void)state;
	assert_int_equal(parse(good_runs, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nruns, 5);
	assert_string_equal(r.runs[2].reason, "iperf3 exited with status 1");
	assert_int_equal(r.runs[2].status, RUN_FAILED);
	assert_int_equal(r.runs[3].line, 4);
	assert_false(r.runs[3].has_cpb);
	assert_true(r.runs[0].cycles_estimated);
	assert_int_equal(r.runs[0].ncounters, 2);
	assert_false(r.runs[0].counters[0].has_count);
	assert_string_equal(r.runs[0].counters[0].symbol, "unavailable: no ESP");

	assert_int_equal(results_groups(&r, &g, &ng), 0);
	assert_int_equal(ng, 3);
	assert_string_equal(g[0].scenario, "clear");
	assert_string_equal(g[1].scenario, "no-gso");
	assert_string_equal(g[2].kernel, "6.12.0");
	assert_int_equal(g[1].n, 2);
	assert_int_equal(g[1].n_ok, 1);

	n = group_values(&r, &g[0], &(struct metric){ .kind = METRIC_THROUGHPUT }, v);
	assert_int_equal(n, 2);
	assert_true(fabs(v[0] - 9.5) < 1e-12 && fabs(v[1] - 9.0) < 1e-12);
	n = group_values(&r, &g[0], &(struct metric){ .kind = METRIC_COUNTER, .counter = "xmit_skbs" }, v);
	assert_int_equal(n, 1);
	n = group_values(&r, &g[0], &(struct metric){ .kind = METRIC_COUNTER, .counter = "esp_output" }, v);
	assert_int_equal(n, 0);
	assert_int_equal(group_counters(&r, &g[0], &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[1], "xmit_skbs");
	free(names);
	results_groups_free(g, ng);
	results_free(&r);
}

/*
 * A counting repeat ("purpose": "count"): numbered as the throughput
 * repeats, its throughput and cycles in no figure, its counters the
 * per-packet figures where it has them.
 */
static void test_counting(void **state)
{
	static const char runs[] =
		REC("k", "esp-null", 1, "1e9, \"cycles_per_byte\": 10, \"counters\": {\"kmalloc_esp_output\": "
			"{\"count\": null, \"symbol\": \"unavailable: not in the default probe set\"}, "
			"\"xmit_segs\": {\"count\": 9, \"per_packet\": 1.0, \"symbol\": \"k\"}}")
		REC("k", "esp-null", 2, "3e9, \"cycles_per_byte\": 30")
		REC("k", "esp-null", 1, "2e8, \"cycles_per_byte\": 99, \"purpose\": \"count\", \"counters\": "
				"{\"kmalloc_esp_output\": {\"count\": 5, \"per_packet\": 0.97, \"per_packet_load\": 1.0, \"symbol\": \"tp\"}}");
	struct results r;
	struct run_group *g;
	char err[512];
	double v[8];
	int ng;

	(void)state;
	assert_int_equal(parse(runs, &r, err, sizeof(err)), 0);
	assert_true(r.runs[2].counting && !r.runs[0].counting);
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	assert_int_equal(ng, 1);
	assert_int_equal(g[0].n, 3);
	assert_int_equal(g[0].n_ok, 2);
	assert_int_equal(g[0].n_count, 1);
	assert_int_equal(group_not_ok(&g[0]), 0);
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_THROUGHPUT }, v), 2);
	assert_true(fabs(v[0] - 1.0) < 1e-12 && fabs(v[1] - 3.0) < 1e-12);
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_CPB }, v), 2);
	assert_true(fabs(v[1] - 30) < 1e-12);
	/* the counting repeat's counter; one it lacks comes from the throughput repeats */
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_COUNTER, .counter = "kmalloc_esp_output" }, v), 1);
	assert_true(v[0] == 1.0); /* over its whole load */
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_COUNTER, .counter = "xmit_segs" }, v), 1);
	results_groups_free(g, ng);
	results_free(&r);
}

/* each bad input and the start of the message it must give */
static const struct {
	const char *text, *why;
} bad[] = {
	/* a torn line is left out only at the end: before another it is an error */
	{ REC("k", "clear", 1, "1e9") "{\"version\":1,\"kernel\":\"k\",\"sce\n" REC("k", "clear", 2, "1e9"),
	  "runs.jsonl:2: not a JSON object" },
	/* strings are data: no control character, tab, DEL, C1 control or NUL */
	{ REC("6.1\\nsystem(\\\"touch /tmp/x\\\")", "clear", 1, "1e9"),
	  "runs.jsonl:1: \"kernel\" holds a control character (0x0a at byte 3)" },
	{ REC("k", "cl\\u001b[2Jear", 1, "1e9"), "runs.jsonl:1: \"scenario\" holds a control character (0x1b at byte 2)" },
	{ REC("k", "s", 1, "1,\"reason\":\"a\\tb\""), "runs.jsonl:1: \"reason\" holds a control character (0x09" },
	{ REC("k", "s", 1, "1,\"start\":\"x\\u007f\""), "runs.jsonl:1: \"start\" holds a control character (0x7f" },
	{ REC("k", "s", 1, "1,\"start\":\"x\\u009b1m\""), "runs.jsonl:1: \"start\" holds a control character (U+009B" },
	{ REC("k", "s", 1, "1,\"counters\":{\"x\":{\"symbol\":\"a\\rb\"}}"),
	  "runs.jsonl:1: counters.x: \"symbol\" holds a control character (0x0d" },
	{ REC("k", "s", 1, "1,\"counters\":{\"a\\nb\":{}}"), "runs.jsonl:1: a counter's name holds a control character" },
	{ REC("k\\u0000x", "s", 1, "1"), "runs.jsonl:1: not a JSON object" },
	{ REC("k", "clear", 1, "1e9") "{\"version\":2,\"kernel\":\"k\"}\n",
	  "runs.jsonl:2: unknown record version 2" },
	{ "{\"kernel\":\"k\"}\n", "runs.jsonl:1: \"version\" is missing" },
	{ "{\"version\":\"1\"}\n", "runs.jsonl:1: \"version\" must be an integer" },
	{ REC("k", "clear", 1, "\"fast\""), "runs.jsonl:1: \"throughput_bps\" must be a number" },
	{ REC("k", "clear", 1, "-5"), "runs.jsonl:1: \"throughput_bps\" must be a finite number" },
	{ REC("k", "clear", 1, "1e9") "\n" REC("k", "clear", 2, "1e9"), "runs.jsonl:2: empty line" },
	{ REC("k", "clear", 1, "1e9") REC("k", "clear", 1, "2e9"),
	  "runs.jsonl:2: kernel k, scenario clear, repeat 1 already recorded on line 1" },
	{ REC("k", "clear", 1, "1e9, \"purpose\": \"count\"") REC("k", "clear", 1, "2e9, \"purpose\": \"count\""),
	  "runs.jsonl:2: kernel k, scenario clear, counting repeat 1 already recorded on line 1" },
	{ REC("k", "clear", 1, "1e9, \"purpose\": \"warmup\""), "runs.jsonl:1: unknown purpose 'warmup'" },
	{ REC("k", "clear", 1, "1e9, \"purpose\": 1"), "runs.jsonl:1: \"purpose\" must be a string" },
	{ "[1,2]\n", "runs.jsonl:1: a record must be a JSON object" },
	{ "\"x\"\n", "runs.jsonl:1: not a JSON object" },
	{ "{\"version\":1,\"kernel\":\"k\",\"scenario\":\"s\",\"repeat\":1,\"status\":\"ok\"}\n",
	  "runs.jsonl:1: \"throughput_bps\" is missing" },
	{ "{\"version\":1,\"kernel\":\"k\",\"scenario\":\"s\",\"repeat\":1,\"status\":\"meh\"}\n",
	  "runs.jsonl:1: unknown status 'meh'" },
	{ "{\"version\":1,\"kernel\":\"k\",\"scenario\":\"\",\"repeat\":1,\"status\":\"ok\"}\n",
	  "runs.jsonl:1: \"scenario\" is empty" },
	{ "{\"version\":1,\"kernel\":\"k\",\"scenario\":\"s\",\"repeat\":1.5,\"status\":\"ok\"}\n",
	  "runs.jsonl:1: \"repeat\" must be an integer" },
	{ "{\"version\":1,\"version\":1}\n", "runs.jsonl:1: not a JSON object: duplicate object key" },
	{ REC("k", "s", 1, "1,\"counters\":{\"esp_output\":{\"per_packet\":\"x\"}}"),
	  "runs.jsonl:1: counters.esp_output: \"per_packet\" must be a number" },
	{ REC("k", "s", 1, "1,\"counters\":[1]"), "runs.jsonl:1: \"counters\" must be an object" },
	{ REC("k", "s", 1, "1,\"cycles_method\":\"guess\""), "runs.jsonl:1: unknown cycles_method" },
	/* the request/response and packet-rate loads' keys */
	{ REC("k", "s", 1, "1,\"unit\":\"furlong\""), "runs.jsonl:1: unknown unit 'furlong'" },
	{ REC("k", "s", 1, "1,\"unit\":\"transaction\",\"latency_ns\":[1]"), "runs.jsonl:1: \"latency_ns\" must be an object" },
	{ REC("k", "s", 1, "1,\"unit\":\"transaction\",\"latency_ns\":{\"p50\":1}"),
	  "runs.jsonl:1: latency_ns: \"p90\" is missing" },
	{ REC("k", "s", 1, "1,\"latency_cdf\":[[0.5,10],[0.4,20]]"), "runs.jsonl:1: \"latency_cdf\"[1] must be [quantile, ns]" },
	{ REC("k", "s", 1, "1,\"latency_cdf\":[[2,10]]"), "runs.jsonl:1: \"latency_cdf\"[0] must be [quantile, ns]" },
	{ REC("k", "s", 1, "1,\"transactions_per_s\":-1"), "runs.jsonl:1: \"transactions_per_s\" must be a finite number" },
	{ REC("k", "s", 1, "1,\"unit\":\"datagram\",\"cycles_per_datagram\":\"x\""),
	  "runs.jsonl:1: \"cycles_per_datagram\" must be a number" },
	{ REC("k", "s", 1, "1,\"unit\":\"transaction\",\"counters\":{\"x\":{\"per_transaction\":\"y\"}}"),
	  "runs.jsonl:1: counters.x: \"per_transaction\" must be a number" },
};

/* Where the work ran: the spread's summary, the per-CPU lists read, summed and their share; bad lists refused. */
static void test_cpu_spread(void **state)
{
	static const char runs[] =
		REC("k", "esp-null", 1, "1e9, \"cpu_busy_s\": {\"sender\": 1, \"per_cpu\": [0.25, 0.75]}, \"counters\": "
			"{\"esp_output\": {\"count\": 10, \"per_cpu\": [0, 10, 0], \"symbol\": \"k\"}}, "
			"\"counters_receiver\": {\"esp_input\": {\"count\": 8, \"per_cpu\": [6, 2], \"symbol\": \"k\"}}")
		REC("k", "esp-null", 2, "1e9, \"counters\": {\"esp_output\": {\"count\": 30, \"per_cpu\": [30, 0, 0], \"symbol\": \"k\"}}");
	static const char *const bad_runs[] = {
		REC("k", "s", 1, "1e9, \"counters\": {\"esp_output\": {\"count\": 1, \"per_cpu\": [1, -1], \"symbol\": \"k\"}}"),
		REC("k", "s", 1, "1e9, \"counters\": {\"esp_output\": {\"count\": 1, \"per_cpu\": {\"0\": 1}, \"symbol\": \"k\"}}"),
		REC("k", "s", 1, "1e9, \"cpu_busy_s\": {\"per_cpu\": [\"x\"]}"),
	};
	const double none[] = { 0, 0 }, even[] = { 5, 5, 0 }, one[] = { 0, 0, 7 };
	struct cpu_spread cs;
	struct results r;
	struct run_group *g;
	const char **names;
	char err[512];
	double v[8], *sum;
	int ng, n, ncpu;

	(void)state;
	cpu_spread_of(none, 2, &cs);
	assert_true(cs.top == -1 && cs.used == 0 && cs.total == 0 && cs.top_share == 0);
	cpu_spread_of(even, 3, &cs); /* the lowest of equals */
	assert_true(cs.top == 0 && cs.used == 2 && cs.total == 10 && cs.top_share == 0.5);
	cpu_spread_of(one, 3, &cs);
	assert_true(cs.top == 2 && cs.used == 1 && cs.top_share == 1.0);

	assert_int_equal(parse(runs, &r, err, sizeof(err)), 0);
	assert_int_equal(r.runs[0].nspreads, 3);
	assert_non_null(run_spread_find(&r.runs[0], "esp_input@receiver"));
	assert_non_null(run_spread_find(&r.runs[0], "busy_s"));
	assert_null(run_spread_find(&r.runs[1], "busy_s"));
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	assert_int_equal(group_spreads(&r, &g[0], &names, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "esp_output");
	free(names);
	/* summed CPU by CPU over the runs: 10 on cpu1, 30 on cpu0 */
	assert_int_equal(group_spread_sum(&r, &g[0], "esp_output", &sum, &ncpu), 2);
	assert_int_equal(ncpu, 3);
	assert_true(sum[0] == 30 && sum[1] == 10 && sum[2] == 0);
	free(sum);
	assert_int_equal(group_spread_sum(&r, &g[0], "nothing", &sum, &ncpu), 0);
	assert_null(sum);
	/* compare's metric: the busiest CPU's share of each run, in percent */
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_CPU_SHARE, .counter = "esp_output" }, v), 2);
	assert_true(v[0] == 100 && v[1] == 100);
	assert_int_equal(group_values(&r, &g[0], &(struct metric){ .kind = METRIC_CPU_SHARE, .counter = "esp_input@receiver" }, v), 1);
	assert_true(v[0] == 75);
	results_groups_free(g, ng);
	results_free(&r);
	for (size_t i = 0; i < sizeof(bad_runs) / sizeof(bad_runs[0]); i++) {
		assert_int_equal(parse(bad_runs[i], &r, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "per_cpu"));
		results_free(&r);
	}
}

static void test_bad_inputs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct results r;
		char err[512] = "";

		if (parse(bad[i].text, &r, err, sizeof(err)) != -1 ||
		    strncmp(err, bad[i].why, strlen(bad[i].why))) {
			print_error("case %zu: got '%s', want '%s...'\n", i, err, bad[i].why);
			fail();
		}
		results_free(&r);
	}
}

/* A request/response group and a packet-rate one: their unit, metrics and values. */
static void test_units(void **state)
{
	static const char text[] =
		REC("k", "tcp-rr", 1, "16000,\"unit\":\"transaction\",\"transactions\":5000,\"transactions_per_s\":1000,"
		    "\"latency_ns\":{\"p50\":900,\"p90\":1000,\"p99\":2000,\"p99.9\":4000,\"max\":9000},"
		    "\"latency_cdf\":[[0,500],[0.5,900],[1,9000]],\"cycles_per_transaction\":30000,"
		    "\"counters\":{\"xmit_skbs\":{\"per_packet\":1,\"per_transaction\":2}}")
		"{\"version\":1,\"kernel\":\"k\",\"scenario\":\"tcp-rr\",\"repeat\":2,\"status\":\"skipped\",\"unit\":\"transaction\"}\n"
		REC("k", "udp-rate", 1, "1e6,\"unit\":\"datagram\",\"datagrams_per_s\":2000,\"loss\":0.0005,\"cycles_per_datagram\":7000");
	struct run_group *g;
	struct metric ms[RESULTS_GROUP_METRICS], m;
	struct results r;
	char err[256], name[64];
	double v[4];
	int ng, n;

	(void)state;
	assert_int_equal(parse(text, &r, err, sizeof(err)), 0);
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	assert_int_equal(ng, 2);
	assert_int_equal(group_unit(&r, &g[0]), UNIT_TRANSACTION);
	assert_int_equal(group_unit(&r, &g[1]), UNIT_DATAGRAM);
	assert_int_equal(r.runs[0].ncdf, 3);
	/* tps, five percentiles, cycles per transaction; no throughput */
	n = group_metrics(&r, &g[0], ms);
	assert_int_equal(n, 7);
	assert_string_equal(metric_name(&ms[0], name, sizeof(name)), "transactions_per_s");
	assert_string_equal(metric_name(&ms[4], name, sizeof(name)), "latency_p99.9");
	assert_string_equal(metric_name(&ms[6], name, sizeof(name)), "cycles_per_transaction");
	assert_true(metric_higher_is_better(&ms[0]) && !metric_higher_is_better(&ms[1]) && !metric_higher_is_better(&ms[6]));
	assert_int_equal(group_values(&r, &g[0], &ms[4], v), 1);
	assert_true(v[0] == 4); /* microseconds */
	m = (struct metric){ .kind = METRIC_COUNTER, .counter = "xmit_skbs", .unit = UNIT_TRANSACTION };
	assert_int_equal(group_values(&r, &g[0], &m, v), 1);
	assert_true(v[0] == 2); /* per transaction, not per packet */
	n = group_metrics(&r, &g[1], ms);
	assert_int_equal(n, 4);
	assert_string_equal(metric_name(&ms[0], name, sizeof(name)), "datagrams_per_s");
	assert_int_equal(group_values(&r, &g[1], &ms[2], v), 1);
	assert_true(fabs(v[0] - 0.05) < 1e-12); /* loss in percent */
	results_groups_free(g, ng);
	results_free(&r);
}

static void test_meta(void **state)
{
	static const char meta[] =
		"{\"tool_version\":\"v0.1\",\"argv\":[\"ipsecperf\",\"run\",\"--tag\",\"it's\",\"clear\"],"
		"\"host\":{\"hostname\":\"box\",\"cpu_model\":\"Xeon\",\"cpu_count\":2},"
		"\"testbed\":\"netns\",\"kernels\":[{\"release\":\"6.1.0\"},\"6.12.0\"],"
		"\"config\":{\"duration_s\":10,\"repeat\":5}}";
	struct results_meta m;
	char err[256];

	(void)state;
	assert_int_equal(results_parse_meta("meta.json", meta, strlen(meta), &m, err, sizeof(err)), 0);
	assert_string_equal(m.command, "ipsecperf run --tag 'it'\\''s' clear");
	assert_string_equal(m.host, "box");
	assert_string_equal(m.cpu_model, "Xeon");
	assert_int_equal(m.cpu_count, 2);
	assert_int_equal(m.nkernels, 2);
	assert_string_equal(m.kernels[0], "6.1.0");
	assert_int_equal(m.repeat, 5);
	assert_true(m.duration_s == 10);
	results_meta_free(&m);
	assert_int_equal(results_parse_meta("meta.json", "{\n\"a\":", 6, &m, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "meta.json:2: not valid JSON", 27));
}

/* A run killed while it wrote: the last line is left out, the others stand. */
static void test_torn(void **state)
{
	struct results r;
	char err[512] = "";

	(void)state;
	assert_int_equal(parse(REC("k", "clear", 1, "1e9") REC("k", "clear", 2, "1e9") "{\"version\":1,\"ker",
			       &r, err, sizeof(err)), 0);
	assert_int_equal(r.nruns, 2);
	assert_int_equal(r.torn_line, 3);
	results_free(&r);
	/* a whole record without its newline is a record */
	assert_int_equal(parse(REC("k", "clear", 1, "1e9") "{\"version\":1,\"kernel\":\"k\",\"scenario\":\"s\","
			       "\"repeat\":1,\"status\":\"skipped\"}", &r, err, sizeof(err)), 0);
	assert_int_equal(r.nruns, 2);
	assert_int_equal(r.torn_line, 0);
	results_free(&r);
	/* ... and one that is whole JSON but not a record is an error, as anywhere */
	assert_int_equal(parse(REC("k", "clear", 1, "1e9") "{\"version\":1}", &r, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "runs.jsonl:2: \"kernel\" is missing", 33));
	results_free(&r);
}

/* What ipsecperf writes passes its reader: a tool's multi-line stderr in a reason is scrubbed. */
static void test_scrub(void **state)
{
	json_t *rec = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:{s:{s:s}}}", "version", 1, "kernel", "k",
				"scenario", "s", "repeat", 1, "status", "failed", "reason",
				"perf script exited 1:\n\tline two\r\n\xc2\x9b""1m\x7f", "counters", "x",
				"symbol", "a\x1b");
	struct results r;
	char err[512] = "", *line;

	(void)state;
	assert_non_null(rec);
	results_scrub(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "reason")),
			    "perf script exited 1:  line two   1m ");
	line = json_dumps(rec, JSON_COMPACT);
	assert_int_equal(parse(line, &r, err, sizeof(err)), 0);
	assert_string_equal(r.runs[0].counters[0].symbol, "a ");
	results_free(&r);
	free(line);
	json_decref(rec);
}

/* The distinct names of one file are limited, with the line of the first too many. */
static void test_limits(void **state)
{
	char *text = NULL, want[128];
	size_t len = 0;
	struct results r;
	char err[512] = "";
	FILE *f = open_memstream(&text, &len);

	(void)state;
	for (int k = 0; k <= RESULTS_MAX_KERNELS; k++)
		fprintf(f, "{\"version\":1,\"kernel\":\"k%d\",\"scenario\":\"s\",\"repeat\":1,\"status\":\"skipped\"}\n", k);
	fclose(f);
	assert_int_equal(parse(text, &r, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "runs.jsonl:%d: more than %d kernels", RESULTS_MAX_KERNELS + 1,
		 RESULTS_MAX_KERNELS);
	assert_true(!strncmp(err, want, strlen(want)));
	results_free(&r);
	free(text);
}

/*
 * 60,000 records (one kernel, 3 scenarios, 20,000 repeats each) load in
 * one pass: the duplicate check was quadratic and took 3.6 s (5 s of CPU
 * time, 7-16 s wall on this loaded 2-CPU VM), against 1.2-2.6 s of CPU
 * now, with ASan. CPU time, so that other work on the host does not
 * count; the bound only catches a return of the quadratic check
 * (docs/reports.md has the figures).
 */
static void test_many_records(void **state)
{
	static const char *const scen[] = { "clear", "no-gso", "esp-null" };
	char *text = NULL, err[512] = "";
	size_t len = 0;
	struct results r;
	struct run_group *g;
	struct timespec t0, t1;
	FILE *f = open_memstream(&text, &len);
	int ng;

	(void)state;
	for (int i = 0; i < 60000; i++)
		fprintf(f, "{\"version\":1,\"kernel\":\"6.1.0-28-cloud-amd64\",\"scenario\":\"%s\",\"repeat\":%d,"
			   "\"status\":\"ok\",\"throughput_bps\":%d,\"cycles_per_byte\":1.5,"
			   "\"counters\":{\"xmit_skbs\":{\"count\":500,\"per_packet\":0.5,\"symbol\":\"tp\"}}}\n",
			scen[i % 3], i / 3 + 1, 1000000 + i);
	fclose(f);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	assert_int_equal(parse(text, &r, err, sizeof(err)), 0);
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	assert_int_equal(r.nruns, 60000);
	assert_int_equal(ng, 3);
	assert_int_equal(g[2].n, 20000);
	print_message("60000 records parsed and grouped in %.3f s of CPU time\n",
		      (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	assert_true((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 5);
	results_groups_free(g, ng);
	results_free(&r);
	free(text);
}

static void test_meta_hostile(void **state)
{
	static const char meta[] =
		"{\n"
		"  \"version\": 1,\n"
		"  \"kernels\": [\n"
		"    {\"release\": \"6.1.0\"},\n"
		"    {\"release\": \"6.1\\n`touch /tmp/x`\"}\n"
		"  ]\n"
		"}\n";
	static const char cmd[] = "{\"command\": [\"ipsecperf\", \"run\", \"--tag\", \"a\\u001b]0;x\\u0007\"]}";
	struct results_meta m;
	char err[512];

	(void)state;
	assert_int_equal(results_parse_meta("meta.json", meta, strlen(meta), &m, err, sizeof(err)), -1);
	assert_string_equal(err, "meta.json:5: \"kernels[1].release\" holds a control character (0x0a at byte 3); "
				 "ipsecperf never writes one, so it is refused");
	assert_null(m.kernels);
	assert_int_equal(results_parse_meta("meta.json", cmd, strlen(cmd), &m, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "meta.json:1: \"command[3]\" holds a control character (0x1b at byte 1)", 68));
}

static char tmpdir[] = "/tmp/ipsecperf-test-results-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_load_and_summary(void **state)
{
	struct results r;
	char err[512], line[256], path[300];
	FILE *out;
	int lines = 0, in;

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	/* a missing directory, then a missing meta.json */
	snprintf(path, sizeof(path), "%s/nope", tmpdir);
	assert_int_equal(results_load(path, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nope: No such file or directory"));
	assert_int_equal(results_load(tmpdir, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "meta.json: No such file"));

	write_file("meta.json", "{\"command\":\"ipsecperf run clear\",\"testbed\":\"netns\"}");
	write_file("runs.jsonl", good_runs);
	assert_int_equal(results_load(tmpdir, &r, err, sizeof(err)), 0);
	assert_string_equal(r.meta.testbed, "netns");
	results_free(&r);

	out = tmpfile();
	assert_int_equal(summary_print(out, tmpdir), 0);
	rewind(out);
	while (fgets(line, sizeof(line), out)) {
		size_t n = strlen(line);

		lines++;
		assert_true(n <= REPORT_COLUMNS + 1); /* + the newline */
		for (size_t i = 0; i < n; i++)
			assert_true((unsigned char)line[i] < 128);
	}
	assert_true(lines > 8);
	fclose(out);

	write_file("runs.jsonl", "");
	assert_int_equal(results_load(tmpdir, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "runs.jsonl: no runs recorded"));

	/* runs.jsonl a symbolic link, a FIFO: refused, without following or waiting */
	snprintf(path, sizeof(path), "%s/runs.jsonl", tmpdir);
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(results_load(tmpdir, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "runs.jsonl is a symbolic link"));
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(in >= 0 && inotify_add_watch(in, tmpdir, IN_OPEN) >= 0);
	assert_int_equal(results_load(tmpdir, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "runs.jsonl: not a regular file"));
	/* ... and a device node (/dev/null's numbers; root only): never opened, not even to look */
	snprintf(path, sizeof(path), "%s/dev", tmpdir);
	if (mknod(path, S_IFCHR | 0644, makedev(1, 3)) == 0) {
		assert_null(results_read(tmpdir, "dev", &(size_t){ 0 }, err, sizeof(err)));
		assert_non_null(strstr(err, "dev: not a regular file"));
		unlink(path);
	}
	{
		char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t n = read(in, ev, sizeof(ev));

		/* meta.json was opened (it is a file); runs.jsonl and dev were not */
		for (char *p = ev; n > 0 && p < ev + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			assert_string_equal(((struct inotify_event *)p)->name, "meta.json");
	}
	close(in);
	snprintf(path, sizeof(path), "%s/runs.jsonl", tmpdir);
	unlink(path);
	/* a cap of the caller's own, checked before reading */
	assert_null(results_read_max(tmpdir, "meta.json", 10, &(size_t){ 0 }, err, sizeof(err)));
	assert_non_null(strstr(err, "meta.json: larger than 0 MiB"));
	/* a relative path that climbs out is not a path results_read takes */
	assert_null(results_read(tmpdir, "../etc/passwd", &(size_t){ 0 }, err, sizeof(err)));
	assert_non_null(strstr(err, "'..' is not a plain file name"));
	assert_null(results_read(tmpdir, "/etc/passwd", &(size_t){ 0 }, err, sizeof(err)));
	/* a control character in the directory's name: refused, and not printed */
	assert_int_equal(results_load("/tmp/x\n`touch /tmp/y`", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "/tmp/x\\x0a`touch /tmp/y`: the directory's name holds a control character "
				 "(0x0a at byte 6); a name is data: rename the directory");
	snprintf(path, sizeof(path), "%s/meta.json", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/runs.jsonl", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

/*
 * The clock's keys (collector/run/record.c record_clock, as the vm host
 * rewrites a guest's record), read back: on the virtual clock no cycles
 * (the guest's busy time x its TSC is fiction there), instructions per
 * byte from the busy virtual time, and the reports' cost metric is
 * instructions_per_byte; on the real clock cycles stay and no
 * instructions are made up.
 */
static json_t *guest_record(void)
{
	/* one vCPU busy 1.2 s by /proc/stat's ticks in a 1.0 s window, 1e8 bytes */
	return json_pack("{s:i, s:s, s:s, s:i, s:s, s:f, s:f, s:{s:f}, s:f, s:I, s:s, s:f, s:f, s:f}", "version", 1,
			 "kernel", "6.1.0", "scenario", "esp-null", "repeat", 1, "status", "ok", "bytes", 1e8,
			 "throughput_bps", 8e8, "cpu_busy_s", "total", 1.2, "cpu_window_s", 1.0, "cycles",
			 (json_int_t)2400000000LL, "cycles_method", "estimated", "cycles_per_byte", 24.0,
			 "cycles_per_byte_sender", 12.0, "cycles_per_byte_receiver", 12.0);
}

static void clock_read_back(json_t *rec, struct results *r)
{
	char *text = json_dumps(rec, JSON_COMPACT), err[512];
	size_t len = strlen(text);

	text = realloc(text, len + 2);
	assert_non_null(text);
	memcpy(text + len, "\n", 2);
	assert_int_equal(parse(text, r, err, sizeof(err)), 0);
	free(text);
}

static void test_clock_keys(void **state)
{
	static const char *const cycle_keys[] = { "cycles", "cycles_method", "cycles_per_byte",
						  "cycles_per_byte_sender", "cycles_per_byte_receiver" };
	json_t *rec = guest_record();
	struct metric ms[RESULTS_GROUP_METRICS];
	struct run_group *g;
	struct results r;
	double v[4];
	int ng, nm;

	(void)state;
	record_clock(rec, true, RUN_ICOUNT_SHIFT);
	assert_string_equal(json_string_value(json_object_get(rec, "clock")), "virtual");
	for (size_t i = 0; i < sizeof(cycle_keys) / sizeof(cycle_keys[0]); i++)
		assert_null(json_object_get(rec, cycle_keys[i]));
	/* capped at the window: 1.0 s = 1e9 instructions over 1e8 bytes */
	assert_true(fabs(json_number_value(json_object_get(rec, "instructions_per_byte")) - 10) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(rec, "instructions")), 1000000000);
	assert_string_equal(json_string_value(json_object_get(rec, "instructions_method")), "icount");
	clock_read_back(rec, &r);
	json_decref(rec);
	assert_true(r.runs[0].virtual_clock && r.runs[0].has_ipb && !r.runs[0].has_cpb);
	assert_string_equal(results_clock(&r), "virtual");
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	nm = group_metrics(&r, &g[0], ms);
	assert_int_equal(nm, 2);
	assert_int_equal(ms[1].kind, METRIC_IPB);
	assert_string_equal(metric_name(&ms[1], NULL, 0), "instructions_per_byte");
	assert_int_equal(group_values(&r, &g[0], &ms[1], v), 1);
	assert_true(fabs(v[0] - 10) < 1e-9);
	results_groups_free(g, ng);
	results_free(&r);

	/* a virtual record with nothing to count: instructions unavailable, cycles still not written */
	rec = guest_record();
	json_object_set_new(rec, "bytes", json_integer(0));
	record_clock(rec, true, RUN_ICOUNT_SHIFT);
	assert_true(json_is_null(json_object_get(rec, "instructions_per_byte")));
	assert_non_null(strstr(json_string_value(json_object_get(rec, "instructions_method")), "unavailable: "));
	assert_null(json_object_get(rec, "cycles_per_byte"));
	json_decref(rec);

	/* the real clock: cycles as the guest counted them, no instructions made up */
	rec = guest_record();
	record_clock(rec, false, RUN_ICOUNT_SHIFT);
	assert_string_equal(json_string_value(json_object_get(rec, "clock")), "real");
	assert_null(json_object_get(rec, "instructions_per_byte"));
	assert_true(json_number_value(json_object_get(rec, "cycles_per_byte")) == 24.0);
	clock_read_back(rec, &r);
	json_decref(rec);
	assert_false(r.runs[0].virtual_clock || r.runs[0].has_ipb);
	assert_string_equal(results_clock(&r), "real");
	assert_int_equal(results_groups(&r, &g, &ng), 0);
	nm = group_metrics(&r, &g[0], ms);
	assert_int_equal(nm, 2);
	assert_int_equal(ms[1].kind, METRIC_CPB);
	results_groups_free(g, ng);
	results_free(&r);

	/* an unknown clock is refused, with its line */
	char err[512];

	assert_int_equal(parse("{\"version\":1,\"kernel\":\"k\",\"scenario\":\"clear\",\"repeat\":1,"
			       "\"status\":\"ok\",\"throughput_bps\":1e9,\"clock\":\"wall\"}\n", &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown clock 'wall'"));
	results_free(&r);
}

static void test_text_helpers(void **state)
{
	static const char *const heads[] = { "scenario", "n", "median" };
	static const bool left[] = { true, false, false };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct tab t;
	int w[TAB_MAXCOLS], r;

	(void)state;
	assert_int_equal(fmt_decimals(9.201), 3);
	assert_int_equal(fmt_decimals(0.01685), 5);
	assert_int_equal(fmt_decimals(1262.7), 0);
	assert_int_equal(fmt_decimals_sig(0.01685, 3), 4);

	tab_init(&t, 3, heads, left);
	r = tab_row(&t);
	tab_set(&t, r, 0, "esp-null-tunnel");
	tab_set(&t, r, 1, "%d", 10);
	tab_set(&t, r, 2, "%.5f", 0.01685);
	assert_int_equal(tab_widths(&t, w), 15 + 1 + 2 + 1 + 7);
	f = open_memstream(&buf, &len);
	tab_print(f, &t, NULL);
	fclose(f);
	/* two blanks between columns, figures right-aligned, no trailing blank */
	assert_string_equal(buf, "scenario          n   median\n"
				 "---------------  --  -------\n"
				 "esp-null-tunnel  10  0.01685\n");
	free(buf);
	tab_free(&t);

	f = open_memstream(&buf, &len);
	fputs_wrapped(f, "warning: a line that is much longer than seventy-two columns wraps at a blank and indents", 0, 4);
	fclose(f);
	assert_string_equal(buf, "warning: a line that is much longer than seventy-two columns wraps at a\n"
				 "    blank and indents\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_clock_keys),
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_cpu_spread),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_torn),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_many_records),
		cmocka_unit_test(test_meta_hostile),
		cmocka_unit_test(test_load_and_summary),
		cmocka_unit_test(test_text_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
