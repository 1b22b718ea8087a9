// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for analyze/compare.c: the decision and the simulation; the
 * flags and better/worse of its writers; analyze/provenance.c, which says
 * whether two sets of runs were measured alike; the runs chart of
 * compare's HTML page (analyze/runs_chart.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "commands.h"
#include "compare.h"
#include "compare_int.h"
#include "log.h"
#include "provenance.h"
#include "runs_chart.h"

static void test_direction(void **state)
{
	double base[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
	double low[] = { 9.0, 9.1, 8.9, 9.05, 8.95 };   /* -10% */
	double high[] = { 11.0, 11.1, 10.9, 11.05, 10.95 }; /* +10% */
	struct verdict v;

	(void)state;
	/* throughput: lower is a regression */
	compare_decide(base, 5, low, 5, true, TEST_MW, 0.05, 5, &v);
	assert_true(fabs(v.change + 10) < 1e-9);
	assert_true(fabs(v.p_mw - 2.0 / 252) < 1e-12);
	assert_true(v.significant && v.worse && v.regression && !v.improvement);
	/* the same drop in cycles per byte is an improvement */
	compare_decide(base, 5, low, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(v.significant && !v.worse && !v.regression && v.improvement);
	/* more cycles per byte: a regression */
	compare_decide(base, 5, high, 5, false, TEST_WELCH, 0.05, 5, &v);
	assert_true(v.regression);
	assert_true(v.p == v.p_welch);
	/* below the threshold: significant, yet no regression */
	compare_decide(base, 5, high, 5, false, TEST_MW, 0.05, 15, &v);
	assert_true(v.significant && v.worse && !v.regression);
}

static void test_not_significant(void **state)
{
	double a[] = { 10, 12, 8 }, b[] = { 7, 6, 5 };
	struct verdict v;

	(void)state;
	/* n = 3 vs 3: Mann-Whitney cannot go below p = 0.1 */
	compare_decide(a, 3, b, 3, true, TEST_MW, 0.05, 5, &v);
	assert_true(fabs(v.p - 0.1) < 1e-12);
	assert_false(v.significant);
	assert_false(v.regression);
	/* n = 1: Welch has no p; never significant */
	compare_decide(a, 1, b, 1, true, TEST_WELCH, 0.05, 5, &v);
	assert_true(isnan(v.p));
	assert_false(v.regression);
}

static void test_zero_base(void **state)
{
	double z[] = { 0, 0, 0, 0, 0 }, one[] = { 1, 1, 1, 1, 1 };
	struct verdict v;

	(void)state;
	/* a counter going from 0 to 1 per packet: +inf %, a regression */
	compare_decide(z, 5, one, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(isinf(v.change) && v.change > 0);
	assert_true(v.regression);
	compare_decide(z, 5, z, 5, false, TEST_MW, 0.05, 5, &v);
	assert_true(v.change == 0 && !v.regression);
}

static void test_simulation(void **state)
{
	struct sim_result a, b;

	(void)state;
	/* reproducible for a seed */
	compare_simulate(5, 0.02, 0, 0, TEST_MW, 0.05, 5, 2000, 7, &a);
	compare_simulate(5, 0.02, 0, 0, TEST_MW, 0.05, 5, 2000, 7, &b);
	assert_true(a.sig_any == b.sig_any && a.gate == b.gate);
	/* A/A: the exact test holds its level (at most 5%, here 4/252 = 3.2%) */
	assert_true(a.sig_any < 0.06);
	assert_true(a.gate < 0.01);
	/* a 10% drop at CV 2% is always found */
	compare_simulate(5, 0.02, 0.10, 0, TEST_MW, 0.05, 5, 2000, 7, &a);
	assert_true(a.gate > 0.95);
}

static void test_flags(void **state)
{
	double base[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
	double low[] = { 9.0, 9.1, 8.9, 9.05, 8.95 };      /* -10% */
	double lit[] = { 9.7, 9.8, 9.6, 9.75, 9.65 };       /* -3% */
	struct pair_row r = { .selected = true };

	(void)state;
	/* throughput down 10%: a regression, worse */
	compare_decide(base, 5, low, 5, true, TEST_MW, 0.05, 5, &r.v);
	assert_int_equal(compare_flag(&r), 'R');
	assert_string_equal(compare_direction(&r), "worse");
	/* cycles per byte down 10%: an improvement, better */
	compare_decide(base, 5, low, 5, false, TEST_MW, 0.05, 5, &r.v);
	assert_int_equal(compare_flag(&r), 'I');
	assert_string_equal(compare_direction(&r), "better");
	/* the same, not a gate metric: significant, yet neither R nor I */
	r.selected = false;
	assert_int_equal(compare_flag(&r), '+');
	compare_decide(base, 5, low, 5, true, TEST_MW, 0.05, 5, &r.v);
	assert_int_equal(compare_flag(&r), '-');
	/* -3%: significant, below the threshold */
	r.selected = true;
	compare_decide(base, 5, lit, 5, true, TEST_MW, 0.05, 5, &r.v);
	assert_int_equal(compare_flag(&r), '-');
	/* not significant: no flag, the direction all the same */
	compare_decide(base, 3, lit, 3, true, TEST_MW, 0.05, 5, &r.v);
	assert_int_equal(compare_flag(&r), ' ');
	assert_string_equal(compare_direction(&r), "worse");
	compare_decide(base, 5, base, 5, true, TEST_MW, 0.05, 5, &r.v);
	assert_string_equal(compare_direction(&r), "same");
	r.v.change = NAN;
	assert_null(compare_direction(&r));
}

/* Two directories as the reader gives them, pooled as pool_load does. */
struct two {
	struct results src[2], all;
};

static void two_load(struct two *t, const char *meta0, const char *runs0, const char *meta1,
		     const char *runs1)
{
	const char *metas[2] = { meta0, meta1 }, *runs[2] = { runs0, runs1 };
	char err[512];

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 2; i++) {
		t->src[i].dir = strdup(i ? "B" : "A");
		assert_int_equal(results_parse_meta("meta.json", metas[i], strlen(metas[i]), &t->src[i].meta,
						    err, sizeof(err)), 0);
		assert_int_equal(results_parse_runs("runs.jsonl", runs[i], strlen(runs[i]), &t->src[i], err,
						    sizeof(err)), 0);
		assert_int_equal(results_merge(&t->all, &t->src[i]), 0);
	}
}

static void two_free(struct two *t)
{
	results_free(&t->src[0]);
	results_free(&t->src[1]);
	results_free(&t->all);
}

#define META(extra)                                                                                \
	"{\"version\":1,\"host\":\"h\",\"cpu_model\":\"c\",\"cpu_count\":2,\"testbed\":\"vm\","   \
	"\"tool_version\":\"v1\",\"iperf3_version\":\"iperf 3.12\",\"params\":{\"duration_s\":10," \
	"\"omit_s\":1},\"vm\":[]" extra "}"
#define RUN(extra)                                                                                 \
	"{\"version\":1,\"kernel\":\"k\",\"scenario\":\"esp-null\",\"repeat\":1,\"status\":\"ok\","  \
	"\"throughput_bps\":1e9" extra "}\n"

#define META_TB(tb, extra)                                                                         \
	"{\"version\":1,\"host\":\"h\",\"cpu_model\":\"c\",\"cpu_count\":2,\"testbed\":\"" tb "\"," \
	"\"tool_version\":\"v1\",\"params\":{\"duration_s\":10}" extra "}"

/*
 * No accelerator recorded: "none" (no emulator) only where meta.json says
 * nothing of guests, whatever the testbed's name; a vm-pair directory is
 * in guests as a vm one is.
 */
static void test_provenance_accel_guests(void **state)
{
	struct two t;
	struct prov_src a = { .src = t.src, .all = &t.all, .s = 0, .kernel = "k" };
	struct prov_src b = { .src = t.src, .all = &t.all, .s = 1, .kernel = "k" };
	char v[64];

	(void)state;
	two_load(&t, META_TB("vm-pair", ",\"vm\":[]"), RUN(""), META_TB("netns", ""), RUN(""));
	assert_null(prov_value(&a, "esp-null", PROV_ACCEL, v, sizeof(v)));
	assert_string_equal(prov_value(&b, "esp-null", PROV_ACCEL, v, sizeof(v)), "none");
	two_free(&t);
}

static void test_provenance_values(void **state)
{
	char meta_a[512], meta_b[512], va[512], vb[512];
	struct two t;
	struct prov_src a = { .src = t.src, .all = &t.all, .s = 0, .kernel = "k" };
	struct prov_src b = { .src = t.src, .all = &t.all, .s = 1, .kernel = "k" };

	(void)state;
	/* the same definition, written differently */
	snprintf(meta_a, sizeof(meta_a), META(",\"kernels\":[{\"release\":\"k\",\"vm\":{\"accel\":\"kvm\"}}],"
					       "\"scenarios\":[{\"name\":\"esp-null\",\"text\":\"%s\"}]"),
		 "; the study's ESP case\\n[scenario]\\ndescription = one\\n\\n[ipsec]\\nproto = esp ; inline\\nmode = transport\\n");
	snprintf(meta_b, sizeof(meta_b), META(",\"scenarios\":[{\"name\":\"esp-null\",\"text\":\"%s\"}]"),
		 "[scenario]\\ndescription=another\\n[ipsec]\\n  proto=esp\\nmode =  transport  \\n");
	two_load(&t, meta_a, RUN(",\"load\":\"iperf3\",\"vm\":{\"accel\":\"tcg\"}"), meta_b,
		 RUN(",\"load\":\"stream\",\"profile\":{\"hz\":99}"));
	assert_int_equal(t.all.runs[0].source, 0);
	assert_int_equal(t.all.runs[1].source, 1);
	/* the scenario by content: comments, spacing and the description do not count */
	assert_string_equal(prov_value(&a, "esp-null", PROV_SCENARIO, va, sizeof(va)),
			    prov_value(&b, "esp-null", PROV_SCENARIO, vb, sizeof(vb)));
	assert_string_equal(va, "[scenario]\n[ipsec]\nproto=esp\nmode=transport\n");
	/* run --probe-overhead's second half is the same scenario */
	assert_non_null(prov_value(&a, "esp-null+noprobes", PROV_SCENARIO, va, sizeof(va)));
	assert_null(prov_value(&a, "clear", PROV_SCENARIO, va, sizeof(va)));
	/* the record's accelerator first, then meta.json's for the kernel */
	assert_string_equal(prov_value(&a, "esp-null", PROV_ACCEL, va, sizeof(va)), "tcg");
	assert_null(prov_value(&b, "esp-null", PROV_ACCEL, vb, sizeof(vb)));
	free(t.all.runs[0].accel);
	t.all.runs[0].accel = NULL;
	assert_string_equal(prov_value(&a, "esp-null", PROV_ACCEL, va, sizeof(va)), "kvm");
	assert_string_equal(prov_value(&a, "esp-null", PROV_LOAD, va, sizeof(va)), "iperf3");
	assert_string_equal(prov_value(&b, "esp-null", PROV_LOAD, vb, sizeof(vb)), "stream");
	assert_string_equal(prov_value(&a, "esp-null", PROV_PROFILE, va, sizeof(va)), "off");
	assert_string_equal(prov_value(&b, "esp-null", PROV_PROFILE, vb, sizeof(vb)), "on (99 Hz)");
	assert_string_equal(prov_value(&a, "esp-null", PROV_DURATION, va, sizeof(va)), "10 s");
	assert_string_equal(prov_value(&a, "esp-null", PROV_OMIT, va, sizeof(va)), "1 s");
	assert_string_equal(prov_value(&a, "esp-null", PROV_CPU_COUNT, va, sizeof(va)), "2");
	two_free(&t);
}

static void test_provenance_check(void **state)
{
	struct notes notes = { 0 };
	struct prov_check pc;
	struct two t;
	struct prov_src a = { .side = "base", .src = t.src, .all = &t.all, .s = 0, .kernel = "k" };
	struct prov_src b = { .side = "new", .src = t.src, .all = &t.all, .s = 1, .kernel = "k" };
	unsigned allow = 0;

	(void)state;
	two_load(&t, META(""), RUN(""),
		 "{\"version\":1,\"host\":\"h2\",\"cpu_model\":\"c\",\"cpu_count\":2,\"testbed\":\"netns\","
		 "\"tool_version\":\"v1\",\"params\":{\"duration_s\":60}}",
		 RUN(""));
	assert_int_equal(prov_parse_allow("compare", "host,omit", &allow), 0);
	prov_check_init(&pc, &notes, allow);
	prov_check_pair(&pc, &a, &b, "esp-null");
	prov_check_pair(&pc, &a, &b, "esp-null"); /* found again: no second note */
	/* host, testbed and duration differ; accel is not recorded for the vm side */
	assert_int_equal(pc.differ, 1u << PROV_HOST | 1u << PROV_TESTBED | 1u << PROV_DURATION);
	assert_int_equal(prov_refused(&pc), 1u << PROV_TESTBED | 1u << PROV_DURATION);
	assert_true(pc.unrecorded & (1u << PROV_OMIT));
	assert_true(pc.unrecorded & (1u << PROV_IPERF3));
	assert_true(pc.unrecorded & (1u << PROV_ACCEL));
	assert_true(pc.unrecorded & (1u << PROV_SCENARIO));
	assert_int_equal(notes.n, 3 + __builtin_popcount(pc.unrecorded));
	assert_string_equal(notes_find(&notes, "mismatch", "duration")->text,
			    "duration differs: 10 s in base A, 60 s in new B.");
	assert_true(notes_find(&notes, "mismatch", "host")->allowed);
	assert_false(notes_find(&notes, "mismatch", "testbed")->allowed);
	assert_non_null(strstr(notes_find(&notes, "not_recorded", "omit")->text, "in new B"));
	notes_free(&notes);
	two_free(&t);
}

static void test_allow_and_help(void **state)
{
	unsigned allow = 0;

	(void)state;
	assert_int_equal(prov_parse_allow("compare", "all", &allow), 0);
	assert_int_equal(allow, (1u << PROV_NFIELDS) - 1);
	allow = 0;
	assert_int_equal(prov_parse_allow("compare", "bogus", &allow), -1);
	assert_int_equal(prov_parse_allow("compare", "hos", &allow), -1);
	/* compare --help names every field --allow-mismatch takes */
	for (int f = 0; f < PROV_NFIELDS; f++)
		assert_non_null(strstr(help_compare, prov_field_name(f)));
}

/* A results directory under dir named name: one ok esp-null run a line, each clock as given ("": none). */
static void write_side(char *path, size_t len, const char *dir, const char *name, const char *const *clocks, int n,
		       double tp)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	char runs[PATH_MAX];

	snprintf(runs, sizeof(runs), "%s/runs.jsonl", path);
	f = fopen(runs, "w");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"esp-null\",\"repeat\":%d,"
			   "\"status\":\"ok\",\"throughput_bps\":%g%s%s%s}\n", i + 1, tp + i * 1e6,
			*clocks[i] ? ",\"clock\":\"" : "", clocks[i], *clocks[i] ? "\"" : "");
	assert_int_equal(fclose(f), 0);
	snprintf(runs, sizeof(runs), "%s/meta.json", path);
	f = fopen(runs, "w");
	assert_non_null(f);
	fprintf(f, "{\"testbed\":\"vm\",\"host\":\"h\",\"kernels\":[\"6.1.0\"]}\n");
	assert_int_equal(fclose(f), 0);
}

/*
 * compare refuses (exit 2) a virtual-clock side against a real one, either
 * way round, and a side that mixes the clocks; virtual against virtual and
 * a record without "clock" (real) against real are compared.
 */
static void test_clock_refusal(void **state)
{
	static const char *const real[] = { "real", "real", "real" }, *const none[] = { "", "", "" },
				 *const virt[] = { "virtual", "virtual", "virtual" },
				 *const mixed[] = { "virtual", "real", "virtual" };
	char dir[] = "/tmp/test_compare.XXXXXX", r[PATH_MAX], n[PATH_MAX], v[PATH_MAX], v2[PATH_MAX], m[PATH_MAX];
	struct compare_opts o = { .threshold = 5, .alpha = 0.05, .format = "json" };
	FILE *saved = stdout;

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_side(r, sizeof(r), dir, "real", real, 3, 1e9);
	write_side(n, sizeof(n), dir, "none", none, 3, 1.1e9);
	write_side(v, sizeof(v), dir, "virt", virt, 3, 1e9);
	write_side(v2, sizeof(v2), dir, "virt2", virt, 3, 1.1e9);
	write_side(m, sizeof(m), dir, "mixed", mixed, 3, 1e9);
	/* the verdicts' documents go nowhere; the refusals' one line is on stderr */
	stdout = fopen("/dev/null", "w");
	assert_non_null(stdout);
	assert_int_equal(compare_run(&o, (char *[]){ r }, 1, (char *[]){ v }, 1), EXIT_USAGE);
	assert_int_equal(compare_run(&o, (char *[]){ v }, 1, (char *[]){ n }, 1), EXIT_USAGE);
	assert_int_equal(compare_run(&o, (char *[]){ m }, 1, (char *[]){ v }, 1), EXIT_USAGE);
	assert_int_equal(compare_run(&o, (char *[]){ v }, 1, (char *[]){ m }, 1), EXIT_USAGE);
	/* two sides, one virtual: mixed too */
	assert_int_equal(compare_run(&o, (char *[]){ v, r }, 2, (char *[]){ v2 }, 1), EXIT_USAGE);
	assert_int_not_equal(compare_run(&o, (char *[]){ v }, 1, (char *[]){ v2 }, 1), EXIT_USAGE);
	assert_int_not_equal(compare_run(&o, (char *[]){ n }, 1, (char *[]){ r }, 1), EXIT_USAGE);
	fclose(stdout);
	stdout = saved;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/*
 * Values so large and close that a tick's step is below the spacing of
 * doubles (1e17 and 1e17 + 16): the axis once added the step forever
 * (hundreds of MB a second). The chart must end, with a few ticks, and
 * stop at a write error. alarm() turns a hang into this test's failure.
 */
static void test_runs_chart_close_values(void **state)
{
	const double b[] = { 1e17, 1e17, 1e17 }, n[] = { 1e17 + 16, 1e17 + 16, 1e17 + 16 };
	struct runs_side sb = { .label = "base", .v = b, .n = 3, .median = b[0], .lo = NAN, .hi = NAN };
	struct runs_side sn = { .label = "new", .v = n, .n = 3, .median = n[0], .lo = NAN, .hi = NAN };
	static char buf[65536];
	char *text = NULL;
	size_t len = 0;
	/* a buffer of its own size: the old loop hung there without eating memory */
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	alarm(10);
	assert_int_equal(runs_chart_svg(f, &sb, &sn, "cycles/byte"), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(strlen(buf) < 16384);
	assert_true(count(buf, "stroke=\"rgb(220,220,220)\"") >= 1);
	assert_true(count(buf, "stroke=\"rgb(220,220,220)\"") <= 21);
	/* a full disk: -1, and soon */
	f = fopen("/dev/full", "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(runs_chart_svg(f, &sb, &sn, "cycles/byte"), -1);
	fclose(f);
	/* ordinary values keep their 1-2-5 ticks: 10 to 15 by 1 */
	{
		const double x[] = { 10, 11, 12 }, y[] = { 13, 14, 15 };
		struct runs_side sx = { .label = "base", .v = x, .n = 3, .median = 11, .lo = NAN, .hi = NAN };
		struct runs_side sy = { .label = "new", .v = y, .n = 3, .median = 14, .lo = NAN, .hi = NAN };

		f = open_memstream(&text, &len);
		assert_int_equal(runs_chart_svg(f, &sx, &sy, "Gbit/s"), 0);
		fclose(f);
		assert_int_equal(count(text, "stroke=\"rgb(220,220,220)\""), 6);
		assert_non_null(strstr(text, ">10</text>"));
		assert_non_null(strstr(text, ">15</text>"));
		free(text);
	}
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_not_significant),
		cmocka_unit_test(test_zero_base),
		cmocka_unit_test(test_simulation),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_provenance_values),
		cmocka_unit_test(test_provenance_accel_guests),
		cmocka_unit_test(test_provenance_check),
		cmocka_unit_test(test_allow_and_help),
		cmocka_unit_test(test_clock_refusal),
		cmocka_unit_test(test_runs_chart_close_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
