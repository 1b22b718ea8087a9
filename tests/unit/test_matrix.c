// SPDX-License-Identifier: GPL-2.0
/*
 * The one matrix loop (collector/run/matrix.c's run_matrix) on a fake
 * testbed: operations of its own that make nothing and whose load says
 * made-up bytes and seconds. What the loop owns is checked from the
 * records it writes to runs.jsonl: a scenario the testbed cannot apply is
 * skipped with its reason, a failed apply or load is failed and counted, an
 * interrupt stops the matrix after the record of the run it stopped, and an
 * ok record has the loop's fields with the fake's values. No probes are
 * loaded (no_probes, as --no-probes) and nothing needs root.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "files.h"
#include "log.h"
#include "ipsec.h"
#include "matrix.h"
#include "results_writer.h"
#include "signals.h"

#define FAKE_BYTES 1250000000ull /* in 2 s: 5 Gbit/s */
#define FAKE_SECONDS 2.0

/* The fake testbed's state: what it was asked, and which load raises SIGINT. */
struct fake {
	int setups, teardowns, applies, loads, windows;
	int interrupt_at; /* the load (1, 2, ...) that raises SIGINT; 0: none */
	int moves;        /* the counters still move at this many load-end checks */
	int run_ends;
};

static struct fake fake;

static void *fake_setup(const struct run_config *cfg, struct results_writer *res)
{
	(void)cfg;
	json_object_set_new(res->meta, "fake", json_true());
	fake.setups++;
	return &fake;
}

static void fake_teardown(void *tb)
{
	((struct fake *)tb)->teardowns++;
}

/* The two ends (of no device: the scenarios here change nothing on them) and the SAs. */
static const struct endpoint fake_end[2] = { { .addr = "198.18.0.1", .cpu = -1 }, { .addr = "198.18.0.2", .cpu = -1 } };
static struct ipsec_sas fake_sas;

static void fake_ends(void *tb, const struct endpoint **tx, const struct endpoint **rx, struct ipsec_sas **sas)
{
	(void)tb;
	*tx = &fake_end[0];
	*rx = &fake_end[1];
	*sas = &fake_sas;
}

/* By the scenario's name: "cannot" cannot be applied here, "applyfail" fails; the rest apply. */
static int fake_apply(void *tb, const struct scenario *sc, char *why, size_t len)
{
	((struct fake *)tb)->applies++;
	if (!strcmp(sc->name, "cannot")) {
		snprintf(why, len, "the fake testbed has no such thing");
		return 1;
	}
	if (!strcmp(sc->name, "applyfail")) {
		snprintf(why, len, "the fake testbed broke applying it");
		return -1;
	}
	return 0;
}

static void fake_probes(void *tb, struct probes *pr, const struct run_config *cfg)
{
	(void)tb, (void)pr, (void)cfg;
}

static void fake_probes_detach(void *tb, struct probes *pr)
{
	(void)tb, (void)pr;
}

static void fake_record_head(void *tb, json_t *rec)
{
	(void)tb;
	json_object_set_new(rec, "fake_head", json_true());
}

static void fake_run_begin(void *tb, json_t *rec)
{
	(void)tb, (void)rec;
}

/* Made-up bytes and seconds, the window opened and closed as a load does; "loadfail" fails. */
static int fake_load(void *tb, const struct scenario *sc, const struct load_params *lp, struct load_result *lr)
{
	struct fake *f = tb;

	memset(lr, 0, sizeof(*lr));
	f->loads++;
	if (lp->window)
		lp->window(lp->arg, 1);
	if (lp->tick)
		lp->tick(lp->arg);
	if (lp->window)
		lp->window(lp->arg, 0);
	if (f->interrupt_at && f->loads == f->interrupt_at)
		raise(SIGINT);
	if (!strcmp(sc->name, "loadfail")) {
		snprintf(lr->error, sizeof(lr->error), "the fake load broke");
		return -1;
	}
	lr->duration_s = FAKE_SECONDS;
	lr->bytes = FAKE_BYTES;
	lr->throughput_bps = FAKE_BYTES * 8 / FAKE_SECONDS;
	lr->sender_bps = lr->throughput_bps + 1000;
	lr->retransmits = 7;
	return 0;
}

static void fake_window(void *tb, int open)
{
	(void)open;
	((struct fake *)tb)->windows++;
}

static void fake_tick(void *tb)
{
	(void)tb;
}

static void fake_record_cpu(void *tb, json_t *rec, const struct load_result *lr, const struct cpu_acct *cpu)
{
	(void)tb, (void)lr, (void)cpu;
	json_object_set_new(rec, "fake_cpu", json_integer(42));
}

static int fake_run_end(void *tb, json_t *rec, char *why, size_t len)
{
	(void)rec, (void)why, (void)len;
	((struct fake *)tb)->run_ends++;
	return 0;
}

static bool fake_load_moved(void *tb)
{
	struct fake *f = tb;

	return f->moves > 0 && f->moves--;
}

static void fake_counters(void *tb, struct probes *pr, json_t *rec, const char *off_why)
{
	(void)tb;
	assert_null(pr); /* no_probes: none loaded */
	json_object_set_new(rec, "fake_counters", json_string(off_why));
}

static const struct testbed_ops fake_ops = {
	.setup = fake_setup, .teardown = fake_teardown, .ends = fake_ends, .possible = fake_apply,
	.probes_attach = fake_probes, .probes_detach = fake_probes_detach, .record_head = fake_record_head,
	.run_begin = fake_run_begin, .load = fake_load, .window = fake_window, .tick = fake_tick,
	.record_cpu = fake_record_cpu, .run_end = fake_run_end, .counters = fake_counters,
	.load_moved = fake_load_moved,
};

/* A temporary results directory, the scenarios (by name, loaded with iperf3) and a config. */
struct bench {
	char dir[64];
	struct scenario sc[4];
	struct run_config cfg;
	struct results_writer res;
};

static void bench_open(struct bench *b, const char *const *names, int n, int repeat)
{
	memset(b, 0, sizeof(*b));
	memset(&fake, 0, sizeof(fake));
	snprintf(b->dir, sizeof(b->dir), "/tmp/test_matrix.XXXXXX");
	assert_non_null(mkdtemp(b->dir));
	assert_true(n <= 4);
	for (int i = 0; i < n; i++) {
		snprintf(b->sc[i].name, sizeof(b->sc[i].name), "%s", names[i]);
		snprintf(b->sc[i].load, sizeof(b->sc[i].load), "iperf3");
	}
	b->cfg = (struct run_config){ .duration_s = 2, .omit_s = 0, .repeat = repeat, .repeat_from = 1, .flows = 1,
				      .count_repeats = 1, .testbed = "fake", .addr_tx = "198.18.0.1",
				      .addr_rx = "198.18.0.2", .prefix_len = 24, .cpu_tx = -1, .cpu_rx = -1,
				      .port = 5201, .outdir = b->dir, .quiet = true, .no_probes = true,
				      .scenarios = b->sc, .nscenarios = n };
	assert_int_equal(writer_open(&b->res, &b->cfg, "fake"), 0);
}

/* runs.jsonl's records, as an array; the directory removed. */
static json_t *bench_close(struct bench *b)
{
	char path[128];
	json_t *recs = json_array();
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	writer_close(&b->res);
	snprintf(path, sizeof(path), "%s/runs.jsonl", b->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		json_error_t e;
		json_t *r = json_loads(line, 0, &e);

		assert_non_null(r);
		json_array_append_new(recs, r);
	}
	free(line);
	fclose(f);
	assert_int_equal(rm_rf(b->dir), 0);
	return recs;
}

static const char *str(json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

/* (a) apply says 1: every repeat is a skipped record with its reason, and nothing loads. */
static void cannot_apply_is_skipped(void **state)
{
	struct bench b;
	json_t *overhead, *recs;

	(void)state;
	bench_open(&b, (const char *const[]){ "cannot" }, 1, 2);
	assert_int_equal(run_matrix(&fake_ops, &b.cfg, &b.res, &overhead), 0);
	assert_null(overhead);
	recs = bench_close(&b);
	assert_int_equal(json_array_size(recs), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *r = json_array_get(recs, i);

		assert_string_equal(str(r, "status"), "skipped");
		assert_string_equal(str(r, "reason"), "the fake testbed has no such thing");
		assert_string_equal(str(r, "scenario"), "cannot");
		assert_string_equal(str(r, "testbed"), "fake");
		assert_int_equal(json_integer_value(json_object_get(r, "repeat")), (json_int_t)i + 1);
		assert_null(json_object_get(r, "bytes"));
	}
	assert_int_equal(fake.loads, 0);
	assert_int_equal(fake.setups, 1);
	assert_int_equal(fake.teardowns, 1);
	json_decref(recs);
}

/* (b) apply or load says -1: failed records with the reason, and run_matrix counts them. */
static void failures_are_counted(void **state)
{
	struct bench b;
	json_t *overhead, *recs;

	(void)state;
	bench_open(&b, (const char *const[]){ "applyfail", "loadfail", "clear" }, 3, 2);
	assert_int_equal(run_matrix(&fake_ops, &b.cfg, &b.res, &overhead), 4);
	recs = bench_close(&b);
	assert_int_equal(json_array_size(recs), 6);
	for (size_t i = 0; i < 6; i++) {
		json_t *r = json_array_get(recs, i);
		const char *want = i < 2 ? "the fake testbed broke applying it" : i < 4 ? "the fake load broke" : NULL;

		assert_string_equal(str(r, "scenario"), i < 2 ? "applyfail" : i < 4 ? "loadfail" : "clear");
		assert_string_equal(str(r, "status"), want ? "failed" : "ok");
		if (want)
			assert_string_equal(str(r, "reason"), want);
		else
			assert_null(json_object_get(r, "reason"));
	}
	/* the failed apply loads nothing; the failed load was tried each repeat */
	assert_int_equal(fake.applies, 3);
	assert_int_equal(fake.loads, 4);
	json_decref(recs);
}

/*
 * (c) SIGINT during the second run: that run's record is written, then the
 * matrix stops (no third repeat, no second scenario). In a child, since the
 * stop flag (collector/host/signals.c) stays set for the process.
 */
static void interrupt_stops(void **state)
{
	struct bench b;
	json_t *recs;
	int status;
	pid_t pid;

	(void)state;
	bench_open(&b, (const char *const[]){ "clear", "other" }, 2, 3);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		json_t *overhead;
		int failed;

		signals_install();
		fake.interrupt_at = 2;
		failed = run_matrix(&fake_ops, &b.cfg, &b.res, &overhead);
		writer_close(&b.res);
		/* what the parent cannot see: the loads and teardowns, and that it stopped for the signal */
		_exit(failed == 0 && stop_requested() && stop_signal() == SIGINT && fake.teardowns == 1 ? fake.loads : 100);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	recs = bench_close(&b);
	assert_int_equal(json_array_size(recs), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *r = json_array_get(recs, i);

		assert_string_equal(str(r, "scenario"), "clear");
		assert_int_equal(json_integer_value(json_object_get(r, "repeat")), (json_int_t)i + 1);
		assert_string_equal(str(r, "status"), "ok");
	}
	json_decref(recs);
}

/* (d) an ok record: the loop's fields, with the fake's values and its own testbed fields. */
static void ok_record_fields(void **state)
{
	struct bench b;
	json_t *overhead, *recs, *r;

	(void)state;
	bench_open(&b, (const char *const[]){ "clear" }, 1, 1);
	b.cfg.repeat_from = 3;
	assert_int_equal(run_matrix(&fake_ops, &b.cfg, &b.res, &overhead), 0);
	recs = bench_close(&b);
	assert_int_equal(json_array_size(recs), 1);
	r = json_array_get(recs, 0);
	assert_int_equal(json_integer_value(json_object_get(r, "version")), 1);
	assert_string_equal(str(r, "scenario"), "clear");
	assert_int_equal(json_integer_value(json_object_get(r, "repeat")), 3);
	assert_string_equal(str(r, "testbed"), "fake");
	assert_string_equal(str(r, "status"), "ok");
	assert_null(json_object_get(r, "reason"));
	assert_non_null(str(r, "kernel"));
	assert_non_null(str(r, "start"));
	assert_string_equal(str(r, "load"), "iperf3");
	assert_int_equal(json_integer_value(json_object_get(r, "bytes")), (json_int_t)FAKE_BYTES);
	assert_true(json_real_value(json_object_get(r, "duration_s")) == FAKE_SECONDS);
	assert_true(json_real_value(json_object_get(r, "throughput_bps")) == FAKE_BYTES * 8 / FAKE_SECONDS);
	assert_true(json_real_value(json_object_get(r, "sender_bps")) == FAKE_BYTES * 8 / FAKE_SECONDS + 1000);
	assert_int_equal(json_integer_value(json_object_get(r, "retransmits")), 7);
	/* the testbed's own fields, through its operations */
	assert_true(json_is_true(json_object_get(r, "fake_head")));
	assert_int_equal(json_integer_value(json_object_get(r, "fake_cpu")), 42);
	assert_string_equal(str(r, "fake_counters"), "probes not loaded (--no-probes)");
	/* the measured window, opened and closed once, through the testbed's edges */
	assert_int_equal(fake.windows, 2);
	json_decref(recs);
}

/*
 * The load's end read again while the counters move: six times in a row
 * (a closing connection's retransmissions on a loaded host) are waited
 * out; counters that never settle are given up on after LOAD_END_READS.
 */
static void load_end_read_until_quiet(void **state)
{
	struct bench b;
	json_t *overhead;
	static const int moves_reads[][2] = { { 0, 1 }, { 6, 7 }, { 2 * LOAD_END_READS, 1 + LOAD_END_READS } };

	(void)state;
	for (size_t i = 0; i < sizeof(moves_reads) / sizeof(moves_reads[0]); i++) {
		bench_open(&b, (const char *const[]){ "clear" }, 1, 1);
		fake.moves = moves_reads[i][0];
		assert_int_equal(run_matrix(&fake_ops, &b.cfg, &b.res, &overhead), 0);
		json_decref(bench_close(&b));
		assert_int_equal(fake.run_ends, moves_reads[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cannot_apply_is_skipped),
		cmocka_unit_test(failures_are_counted),
		cmocka_unit_test(interrupt_stops),
		cmocka_unit_test(ok_record_fields),
		cmocka_unit_test(load_end_read_until_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
