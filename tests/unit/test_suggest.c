// SPDX-License-Identifier: GPL-2.0
/*
 * "did you mean" (collector/lib/suggest.c): the edit distance, and which names count
 * as a typo of a word (one edit in a short word, two in a longer one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("run", "run"), 0);
	assert_int_equal(suggest_distance("esp-nul", "esp-null"), 1);
	assert_int_equal(suggest_distance("rnu", "run"), 1); /* a swap is one edit */
	assert_int_equal(suggest_distance("durtaion", "duration"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	char long_word[SUGGEST_MAX_LEN + 2];

	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	assert_int_equal(suggest_distance(long_word, "a"), SUGGEST_FAR);
}

static const char *closest(const char *word, const char *const *names)
{
	struct suggest s;

	suggest_init(&s, word);
	for (; *names; names++)
		suggest_try(&s, *names);
	return suggest_best(&s);
}

static void test_best(void **state)
{
	static const char *const scenarios[] = { "clear", "no-tso", "no-gso", "esp-null", "esp-gcm", "tcp-md5", NULL };
	static const char *const commands[] = { "run", "list", "report", "compare", "doctor", NULL };
	char hint[64];
	struct suggest s;

	(void)state;
	assert_string_equal(closest("esp-nul", scenarios), "esp-null");
	assert_string_equal(closest("no-gos", scenarios), "no-gso");
	assert_string_equal(closest("rnu", commands), "run");
	assert_string_equal(closest("comapre", commands), "compare");
	assert_null(closest("frobnicate", commands)); /* no name is near */
	assert_null(closest("xy", commands));         /* two edits of a short word: a guess */
	assert_null(closest("run", commands));        /* the word itself is no typo */
	suggest_init(&s, "reprot");
	for (const char *const *c = commands; *c; c++)
		suggest_try(&s, *c);
	suggest_hint(&s, hint, sizeof(hint));
	assert_string_equal(hint, "; did you mean 'report'?");
	suggest_init(&s, "zzzzzz");
	suggest_hint(&s, hint, sizeof(hint));
	assert_string_equal(hint, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
