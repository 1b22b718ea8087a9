// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for analyze/html.c's XML escaping and analyze/flamegraph.c's
 * tree and SVG, hostile trees included (many siblings, totals that
 * overflow).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph.h"
#include "html.h"

static char *esc(const char *s, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	xml_esc(f, s, max);
	fclose(f);
	return buf;
}

static void test_xml_esc(void **state)
{
	char *s;

	(void)state;
	s = esc("<a href='x'>\"&\"</a>", 100);
	assert_string_equal(s, "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
	free(s);
	/* a stray byte, an overlong '/', a surrogate, U+FFFE: each one U+FFFD; UTF-8 kept */
	s = esc("a\xff" "b\xc0\xaf" "c\xed\xa0\x80" "d\xef\xbf\xbe" "e\xc3\xa9", 100);
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			       "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "e\xc3\xa9");
	free(s);
	/* cut by characters, never inside one */
	assert_int_equal(xml_chars("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"), 5);
	s = esc("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4);
	assert_string_equal(s, "\xc3\xa9...");
	free(s);
	s = esc("abcd", 4);
	assert_string_equal(s, "abcd");
	free(s);
}

static void add(struct prof_folded *f, const char *stack, uint64_t n)
{
	assert_int_equal(prof_folded_add(f, stack, n), 0);
}

/* Two sides, an idle stack, a function of one side only: values, widths and marks in the SVG. */
static void test_tree_svg(void **state)
{
	struct prof_folded a = { 0 }, b = { 0 };
	struct fg_tree *t = fg_tree_new();
	struct fg_labels l = { .id = "t", .title = "x<y", .unit = "cycles/byte", .side = { "base", "new" }, .diff = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(&a, "iperf3;write_[k];memmove_[k]", 3);
	add(&a, "iperf3;write_[k]", 1);
	add(&a, "swapper;default_idle_[k]", 50);
	add(&b, "iperf3;write_[k];memcpy_[k]", 2);
	prof_folded_finish(&a);
	prof_folded_finish(&b);
	assert_non_null(t);
	assert_int_equal(fg_tree_add(t, 1, &a, 2.0), 0);
	assert_int_equal(fg_tree_add(t, 0, &b, 1.0), 0);
	assert_true(fabs(fg_total(t, 1) - 8.0) < 1e-12); /* idle left out */
	assert_true(fabs(fg_total(t, 0) - 2.0) < 1e-12);
	f = open_memstream(&buf, &len);
	assert_int_equal(fg_svg(f, t, &l, true), 0);
	fclose(f);
	assert_non_null(strstr(buf, ">x&lt;y</text>"));
	assert_null(strstr(buf, "default_idle"));
	/* memmove only in new, memcpy only in base; write on both */
	assert_non_null(strstr(buf, "data-v=\"6\" data-sv=\"6\" data-b=\"0\" data-sb=\"0\" data-only=\"new\" data-n=\"memmove\""));
	assert_non_null(strstr(buf, "data-v=\"0\" data-sv=\"0\" data-b=\"2\" data-sb=\"2\" data-only=\"base\" data-n=\"memcpy\""));
	assert_non_null(strstr(buf, "data-v=\"8\" data-sv=\"2\" data-b=\"2\" data-sb=\"0\" data-n=\"write\""));
	/* widths: the root 1180 px for 10 units; memmove 6 of them */
	assert_non_null(strstr(buf, "width=\"1180.000\""));
	assert_non_null(strstr(buf, "width=\"708.000\""));
	free(buf);
	fg_tree_free(t);
	prof_folded_free(&a);
	prof_folded_free(&b);
}

/*
 * 300,000 siblings under one frame: child_of() scanned them all for each
 * new one (80,000 took 15 s), now one lookup each. alarm() turns a hang
 * into this test's failure.
 */
static void test_wide_tree_bounded(void **state)
{
	struct prof_folded f = { 0 };
	struct fg_tree *t = fg_tree_new();
	struct fg_labels l = { .id = "w", .title = "wide", .unit = "% of busy samples", .side = { NULL, "new" } };
	char line[64];
	FILE *out = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(t);
	assert_non_null(out);
	for (int i = 0; i < 300000; i++) {
		snprintf(line, sizeof(line), "iperf3;entry_[k];leaf%d_[k]", i);
		add(&f, line, 1);
	}
	prof_folded_finish(&f);
	alarm(60);
	assert_int_equal(fg_tree_add(t, 1, &f, 1.0 / 300000), 0);
	assert_int_equal(fg_svg(out, t, &l, true), 0);
	alarm(0);
	fclose(out);
	fg_tree_free(t);
	prof_folded_free(&f);
}

/*
 * Totals past what a double holds (a hostile record's cycles per byte
 * times its samples) once reached (int)NaN in frame(): undefined
 * behaviour. Now the frames are left out, the page is still whole, and
 * nothing is NaN.
 */
static void test_overflowing_totals(void **state)
{
	struct prof_folded a = { 0 }, b = { 0 };
	struct fg_tree *t = fg_tree_new();
	struct fg_labels l = { .id = "o", .title = "o", .unit = "cycles/byte", .side = { "base", "new" }, .diff = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(&a, "iperf3;write_[k]", PROF_MAX_COUNT);
	add(&a, "iperf3;read_[k]", PROF_MAX_COUNT);
	add(&b, "iperf3;write_[k]", 1);
	prof_folded_finish(&a);
	prof_folded_finish(&b);
	assert_int_equal(fg_tree_add(t, 1, &a, 1e300), 0);
	assert_int_equal(fg_tree_add(t, 0, &b, 1.0), 0);
	assert_true(isinf(fg_total(t, 1)));
	f = open_memstream(&buf, &len);
	assert_int_equal(fg_svg(f, t, &l, true), 0);
	fclose(f);
	assert_non_null(strstr(buf, "</svg>"));
	assert_null(strstr(buf, "nan"));
	assert_null(strstr(buf, "class=\"f\""));
	free(buf);
	fg_tree_free(t);
	prof_folded_free(&a);
	prof_folded_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_esc),
		cmocka_unit_test(test_tree_svg),
		cmocka_unit_test(test_wide_tree_bounded),
		cmocka_unit_test(test_overflowing_totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
