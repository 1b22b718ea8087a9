// SPDX-License-Identifier: GPL-2.0
/*
 * CPU profiles: folding perf script's call chains, shares, cycles per byte,
 * the diff; hostile folded stacks (counts past 2^53, shapes that took
 * quadratic time) refused or handled in bounded time.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile.h"

/* Three samples as `perf script -F comm,tid,ip,sym,dso` prints them. */
static const char script[] =
	"iperf3  1563 \n"
	"\tffffffff8164fe6a memcpy_orig ([kernel.kallsyms])\n"
	"\tffffffff8206d8ce tcp_sendmsg_locked ([kernel.kallsyms])\n"
	"\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
	"\t           f8350 __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\ta70a639b4810375e [unknown] ([unknown])\n"
	"\n"
	"iperf3  1563 \n"
	"\tffffffff8164fe6a memcpy_orig ([kernel.kallsyms])\n"
	"\tffffffff8206d8ce tcp_sendmsg_locked ([kernel.kallsyms])\n"
	"\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
	"\t           f8350 __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	"swapper     0 \n"
	"\tffffffff81e3f0aa pv_native_safe_halt ([kernel.kallsyms])\n"
	"\tffffffff81e3f100 default_idle ([kernel.kallsyms])\n"
	"\tffffffff81100000 do_idle ([kernel.kallsyms])\n"
	"\n"
	"swapper     0 \n"
	"\tffffffffc0a01234 esp_output ([esp4])\n"
	"\tffffffff81e00000 __do_softirq ([kernel.kallsyms])\n"
	"\tffffffff81100000 do_idle ([kernel.kallsyms])\n"
	"\n"
	":-1    -1 \n"
	"\tffffffff81e00000 __do_softirq ([kernel.kallsyms])\n"
	"\n"
	"Web Content  42 \n"
	"\t          7e23e8 [unknown] (/usr/bin/qemu-system-x86_64)\n";

static void fold_perf_script(void **state)
{
	struct prof_folded f = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(prof_fold_perf_script(script, &f, err, sizeof(err)), 6);
	assert_int_equal(f.n, 5); /* the two iperf3 samples are one stack */
	assert_string_equal(f.v[0].stack, ":-1;__do_softirq_[k]"); /* pid -1: perf could not tell */
	assert_string_equal(f.v[1].stack, "Web_Content;[qemu-system-x86_64]");
	assert_string_equal(f.v[2].stack,
			    "iperf3;__GI___libc_write;entry_SYSCALL_64_after_hwframe_[k];"
			    "tcp_sendmsg_locked_[k];memcpy_orig_[k]");
	assert_int_equal(f.v[2].count, 2);
	assert_string_equal(f.v[3].stack, "swapper;do_idle_[k];__do_softirq_[k];esp_output_[k]");
	assert_string_equal(f.v[4].stack, "swapper;do_idle_[k];default_idle_[k];pv_native_safe_halt_[k]");
	assert_int_equal(prof_folded_total(&f), 6);
	prof_folded_free(&f);
}

static void fold_rejects_garbage(void **state)
{
	struct prof_folded f = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(prof_fold_perf_script("\tffff foo (bar)\n", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1:"));
	prof_folded_free(&f);
	assert_int_equal(prof_fold_perf_script("x 1\n\tnot an address\n", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2:"));
	prof_folded_free(&f);
}

/* A frame line longer than the reader's line (C++ templates) is a frame, named by its head. */
static void fold_long_frame(void **state)
{
	struct prof_folded f = { 0 };
	char err[256], script[4096];
	int n = snprintf(script, sizeof(script), "iperf3 1\n\t30130ee std::_Rb_tree<");

	(void)state;
	while (n < 3000)
		n += snprintf(script + n, sizeof(script) - n, "std::pair<unsigned int const, int>, ");
	snprintf(script + n, sizeof(script) - n, "x> (/usr/bin/prog)\n\tffffffff81000000 do_syscall_64 ([kernel.kallsyms])\n");
	assert_int_equal(prof_fold_perf_script(script, &f, err, sizeof(err)), 1);
	assert_int_equal(f.n, 1);
	assert_non_null(strstr(f.v[0].stack, "iperf3;do_syscall_64_[k];std::_Rb_tree<std::pair<"));
	prof_folded_free(&f);
}

static void folded_roundtrip(void **state)
{
	struct prof_folded f = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(prof_folded_parse("t", "a;b 3\na;c 2\n\na;b 1\n", &f, err, sizeof(err)), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.v[0].count, 4);
	prof_folded_free(&f);
	assert_int_equal(prof_folded_parse("t", "a;b 3\na;b x\n", &f, err, sizeof(err)), -1);
	assert_string_equal(err, "t:2: not \"STACK COUNT\"");
	prof_folded_free(&f);
	assert_int_equal(prof_folded_parse("t", "nocount\n", &f, err, sizeof(err)), -1);
	prof_folded_free(&f);
}

static void idle(void **state)
{
	(void)state;
	assert_true(prof_stack_is_idle("swapper;do_idle_[k];default_idle_[k];pv_native_safe_halt_[k]"));
	assert_true(prof_stack_is_idle("swapper;cpu_startup_entry_[k];do_idle_[k];poll_idle_[k]"));
	assert_false(prof_stack_is_idle("swapper;do_idle_[k];__do_softirq_[k];net_rx_action_[k]"));
	assert_false(prof_stack_is_idle("iperf3;default_idle_[k]"));
	assert_false(prof_stack_is_idle("swapper"));
}

static void reduce_shares_cpb(void **state)
{
	struct prof_folded f = { 0 };
	struct prof_summary s;
	char err[256];
	double sum = 0;

	(void)state;
	/* 10 samples: 2 idle, 8 busy; f recursive in one stack */
	assert_int_equal(prof_folded_parse("t",
					   "swapper;do_idle_[k];default_idle_[k] 2\n"
					   "iperf3;main;f;f;memcpy_[k] 4\n"
					   "iperf3;main;g 3\n"
					   "ksoftirqd/0;esp_output_[k];memcpy_[k] 1\n",
					   &f, err, sizeof(err)), 0);
	assert_int_equal(prof_reduce(&f, 20.0, &s), 0);
	assert_int_equal(s.samples, 10);
	assert_int_equal(s.idle, 2);
	assert_string_equal(s.f[0].name, "memcpy_[k]");
	assert_int_equal(s.f[0].self, 5);
	assert_true(fabs(s.f[0].share - 5.0 / 8) < 1e-12);
	assert_true(fabs(s.f[0].cpb - 20.0 * 5 / 8) < 1e-12);
	assert_string_equal(s.f[1].name, "g");
	for (size_t i = 0; i < s.n; i++) {
		sum += s.f[i].share;
		if (!strcmp(s.f[i].name, "f")) {
			assert_int_equal(s.f[i].self, 0);
			assert_int_equal(s.f[i].total, 4); /* once per stack, not twice */
		}
		if (!strcmp(s.f[i].name, "main"))
			assert_true(fabs(s.f[i].total_share - 7.0 / 8) < 1e-12);
	}
	assert_true(fabs(sum - 1.0) < 1e-12); /* self shares add up to all busy samples */
	prof_summary_free(&s);

	assert_int_equal(prof_reduce(&f, NAN, &s), 0);
	assert_true(isnan(s.f[0].cpb));
	prof_summary_free(&s);
	prof_folded_free(&f);
}

static void commands(void **state)
{
	struct prof_folded f = { 0 };
	struct prof_func *c;
	size_t n;
	char err[256];

	(void)state;
	assert_int_equal(prof_folded_parse("t", "swapper;do_idle_[k];default_idle_[k] 6\n"
					   "iperf3;a 3\niperf3;b 1\ncc1;x 4\ncc1;y 0\niperf3;c 4\n", &f, err, sizeof(err)), 0);
	assert_int_equal(prof_commands(&f, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].name, "iperf3");
	assert_true(fabs(c[0].share - 8.0 / 12) < 1e-12);
	prof_funcs_free(c, n);
	prof_folded_free(&f);
}

static void summary_of(const char *text, double cpb, struct prof_summary *s)
{
	struct prof_folded f = { 0 };
	char err[256];

	assert_int_equal(prof_folded_parse("t", text, &f, err, sizeof(err)), 0);
	assert_int_equal(prof_reduce(&f, cpb, s), 0);
	prof_folded_free(&f);
}

static void merge_runs(void **state)
{
	struct prof_summary r[2], m;

	(void)state;
	summary_of("x;a 1\nx;b 3\n", 8.0, &r[0]);  /* a 2.0, b 6.0 */
	summary_of("x;a 3\nx;c 1\n", 12.0, &r[1]); /* a 9.0, c 3.0 */
	assert_int_equal(prof_merge(r, 2, &m), 0);
	assert_int_equal(m.samples, 8);
	assert_true(fabs(m.cpb - 10.0) < 1e-12);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.f[0].name, "a"); /* 4 samples */
	assert_true(fabs(m.f[0].share - 0.5) < 1e-12);
	assert_true(fabs(m.f[0].cpb - 5.5) < 1e-12);  /* (2 + 9) / 2 */
	for (size_t i = 0; i < m.n; i++)
		if (!strcmp(m.f[i].name, "c"))
			assert_true(fabs(m.f[i].cpb - 1.5) < 1e-12); /* (0 + 3) / 2 */
	prof_summary_free(&m);
	prof_summary_free(&r[0]);
	prof_summary_free(&r[1]);
}

static void diff_sorted_by_gain(void **state)
{
	struct prof_summary base, esp;
	struct prof_diff_row *rows;
	size_t n;

	(void)state;
	/* clear: 10 cycles/byte, copy 50%, tcp 50% */
	summary_of("iperf3;copy_[k] 5\niperf3;tcp_[k] 5\n", 10.0, &base);
	/* esp-null: 30 cycles/byte, copy 20%, tcp 20%, esp 40%, memmove 20% */
	summary_of("iperf3;copy_[k] 2\niperf3;tcp_[k] 2\niperf3;esp_output_[k] 4\niperf3;memmove_[k] 2\n",
		   30.0, &esp);
	assert_int_equal(prof_diff(&base, &esp, &rows, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].name, "esp_output_[k]");
	assert_true(fabs(rows[0].gain - 12.0) < 1e-12);
	assert_true(rows[0].base_cpb == 0);
	assert_string_equal(rows[1].name, "memmove_[k]");
	assert_true(fabs(rows[1].gain - 6.0) < 1e-12);
	/* copy and tcp: 6 - 5 = +1 each, equal gain and share: by name */
	assert_string_equal(rows[2].name, "copy_[k]");
	assert_string_equal(rows[3].name, "tcp_[k]");
	assert_true(fabs(rows[3].gain - 1.0) < 1e-12);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1].gain >= rows[i].gain);
	free(rows);
	/* a function gone from the second: a negative gain, last */
	assert_int_equal(prof_diff(&esp, &base, &rows, &n), 0);
	assert_string_equal(rows[n - 1].name, "esp_output_[k]");
	assert_true(fabs(rows[n - 1].gain + 12.0) < 1e-12);
	free(rows);
	prof_summary_free(&base);
	prof_summary_free(&esp);
}

static void display_and_json(void **state)
{
	struct prof_summary s;
	char buf[64];
	bool k;
	json_t *j, *top;

	(void)state;
	assert_string_equal(prof_func_display("esp_output_[k]", &k, buf, sizeof(buf)), "esp_output");
	assert_true(k);
	assert_string_equal(prof_func_display("main", &k, buf, sizeof(buf)), "main");
	assert_false(k);
	summary_of("x;a_[k] 3\nx;b 1\nx;c 1\n", 5.0, &s);
	j = prof_summary_json(&s, 2);
	top = json_object_get(j, "top");
	assert_int_equal(json_array_size(top), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(top, 0), "function")), "a");
	assert_true(json_is_true(json_object_get(json_array_get(top, 0), "kernel")));
	assert_true(fabs(json_real_value(json_object_get(json_array_get(top, 0), "cycles_per_byte")) - 3.0) < 1e-12);
	assert_int_equal(json_integer_value(json_object_get(j, "busy_samples")), 5);
	json_decref(j);
	prof_summary_free(&s);
}

/* A counter of names: "PREFIXn" for n = 0, 1, ... into buf. */
static char *names(const char *prefix, const char *sep, int n, const char *head)
{
	size_t cap = strlen(head) + (size_t)n * (strlen(prefix) + strlen(sep) + 12) + 1, o;
	char *buf = malloc(cap);

	assert_non_null(buf);
	o = snprintf(buf, cap, "%s", head);
	for (int i = 0; i < n; i++)
		o += snprintf(buf + o, cap - o, "%s%s%d", i || *head ? sep : "", prefix, i);
	return buf;
}

/*
 * The shapes that took quadratic time: one stack of 300,000 distinct
 * frames (prof_reduce compared each frame with every one before it:
 * 28 s for 160,000), 300,000 commands (prof_commands: each against every
 * one before, 21 s for 80,000), 30,000 runs of one function each
 * (prof_merge: each run against every run before). Each is linear now,
 * well under a second; alarm() turns the old behaviour into this test's
 * failure instead of hours.
 */
static void hostile_shapes_bounded(void **state)
{
	struct prof_folded f = { 0 };
	struct prof_summary s, *runs = calloc(30000, sizeof(*runs)), m;
	struct prof_func *cmds;
	size_t n;
	char *deep = names("f", ";", 300000, "iperf3"), line[64];

	(void)state;
	assert_non_null(runs);
	alarm(60);
	assert_int_equal(prof_folded_add(&f, deep, 1), 0);
	prof_folded_finish(&f);
	assert_int_equal(prof_reduce(&f, 1.5, &s), 0);
	assert_int_equal(s.n, 300000);
	assert_int_equal(s.f[0].self, 1); /* the leaf */
	prof_summary_free(&s);
	prof_folded_free(&f);
	for (int i = 0; i < 300000; i++) {
		snprintf(line, sizeof(line), "cmd%d;work_[k]", i);
		assert_int_equal(prof_folded_add(&f, line, 1), 0);
	}
	prof_folded_finish(&f);
	assert_int_equal(prof_commands(&f, &cmds, &n), 0);
	assert_int_equal(n, 300000);
	prof_funcs_free(cmds, n);
	for (int i = 0; i < 30000; i++) {
		runs[i] = (struct prof_summary){ .samples = 1, .cpb = 1, .nruns = 1, .n = 1,
						 .f = calloc(1, sizeof(struct prof_func)) };
		snprintf(line, sizeof(line), "fn%d", i);
		runs[i].f[0] = (struct prof_func){ .name = strdup(line), .self = 1, .total = 1, .share = 1, .cpb = 1 };
	}
	assert_int_equal(prof_merge(runs, 30000, &m), 0);
	assert_int_equal(m.n, 30000);
	assert_true(fabs(m.f[0].cpb - 1.0 / 30000) < 1e-12);
	alarm(0);
	prof_summary_free(&m);
	for (int i = 0; i < 30000; i++)
		prof_summary_free(&runs[i]);
	free(runs);
	prof_folded_free(&f);
	free(deep);
}

/* Counts past 2^53 a line are refused; sums of what is taken saturate, never wrap to "0 samples". */
static void counts_bounded(void **state)
{
	struct prof_folded f = { 0 };
	struct prof_summary s;
	char err[256];

	(void)state;
	assert_int_equal(prof_folded_parse("p", "a;b 9007199254740993\n", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "p:1: a count above 2^53"));
	prof_folded_free(&f);
	assert_int_equal(prof_folded_parse("p", "a;b 18446744073709551615\n", &f, err, sizeof(err)), -1);
	prof_folded_free(&f);
	assert_int_equal(prof_folded_parse("p", "a;b 9007199254740992\n", &f, err, sizeof(err)), 0);
	prof_folded_free(&f);
	/* 2^53 a line, 4096 lines of one stack: 2^65, past what 64 bits hold */
	for (int i = 0; i < 4096; i++)
		assert_int_equal(prof_folded_add(&f, i % 2 ? "a;b" : "a;c", PROF_MAX_COUNT), 0);
	assert_int_equal(prof_folded_total(&f), UINT64_MAX);
	prof_folded_finish(&f);
	assert_int_equal(f.v[0].count, UINT64_MAX);
	assert_int_equal(prof_reduce(&f, 1.0, &s), 0);
	assert_int_equal(s.samples, UINT64_MAX);
	assert_true(s.f[0].share > 0 && s.f[0].share <= 1);
	prof_summary_free(&s);
	prof_folded_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fold_perf_script),
		cmocka_unit_test(fold_rejects_garbage),
		cmocka_unit_test(fold_long_frame),
		cmocka_unit_test(folded_roundtrip),
		cmocka_unit_test(idle),
		cmocka_unit_test(reduce_shares_cpb),
		cmocka_unit_test(commands),
		cmocka_unit_test(merge_runs),
		cmocka_unit_test(diff_sorted_by_gain),
		cmocka_unit_test(display_and_json),
		cmocka_unit_test(hostile_shapes_bounded),
		cmocka_unit_test(counts_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
