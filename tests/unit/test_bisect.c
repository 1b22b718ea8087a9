// SPDX-License-Identifier: GPL-2.0
/*
 * `ipsecperf bisect` without kernels: its report (80 columns, a row per
 * step and scenario with figures, p and verdict, the first bad commit, or
 * the revisions it may be when only skipped ones are left),
 * and the journal record that resets a bisect: `git bisect reset` of the
 * bisect it started (back to the branch), never of another one, the
 * scratch folder removed, and a record naming some other folder refused;
 * a scratch folder that is not ours by then (after a reboot, /tmp's name
 * taken by another user) is left as it is; git in the tree runs none of
 * the tree's own programs (hooks, core.fsmonitor), from its argv or from
 * the environment the bisect gives its children.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bisect_report.h"
#include "bisect_util.h"
#include "exec.h"
#include "files.h"

static json_t *figure(const char *scenario, double good, double this, double change, double p)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:b}", "scenario", scenario, "metric", "throughput",
			 "unit", "Gbit/s", "good", good, "this", this, "change_pct", change, "p", p, "regression",
			 change < -5);
}

static json_t *step(int k, const char *shortsha, const char *subject, const char *verdict, json_t *figs)
{
	json_t *s = json_pack("{s:i, s:s, s:s, s:s, s:f, s:f}", "step", k, "short", shortsha, "subject", subject,
			      "verdict", verdict, "build_s", 95.0, "run_s", 71.5);

	json_object_set_new(s, "figures", figs ? figs : json_array());
	return s;
}

static void report_rows(void **state)
{
	json_t *steps = json_array(), *scen = json_pack("[s, s]", "esp-null", "clear");
	struct bisect_summary b = {
		.metric = "throughput", .threshold = 5, .alpha = 0.05, .repeat = 5, .scenarios = scen,
		.good_short = "0123456789ab", .good_subject = "linux-source-6.12", .bad_short = "ba9876543210",
		.bad_subject = "esp4: a harmless comment (4)", .first_bad = "aaaabbbbcccc",
		.first_bad_subject = "esp4: busy-wait 100 us in every esp_output", .total_s = 1234,
	};
	char *text = NULL, *save = NULL;
	size_t len = 0;
	int rows = 0, long_lines = 0, first_bad = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	json_array_append_new(steps, step(0, "0123456789ab", "linux-source-6.12", "good", NULL));
	json_array_append_new(steps, step(1, "aaaabbbbcccc", "esp4: busy-wait 100 us in every esp_output and a very long subject", "bad",
					  json_pack("[o, o]", figure("esp-null", 0.0612, 0.0431, -29.6, 0.0079),
						    figure("clear", 1.2, 1.19, -0.8, 0.69))));
	json_array_append_new(steps, step(2, "ddddeeeeffff", "esp4: a harmless comment (1)", "good",
					  json_pack("[o, o]", figure("esp-null", 0.0612, 0.0609, -0.5, 0.84),
						    figure("clear", 1.2, 1.21, 0.8, 0.55))));
	json_array_append_new(steps, step(3, "999988887777", "does not build", "skip", NULL));
	json_object_set_new(json_array_get(steps, 3), "why", json_string("the build failed (exit 1): build.log"));
	assert_int_equal(bisect_report(f, &b, steps), 0);
	fclose(f);
	if (getenv("SHOW"))
		fputs(text, stderr);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long_lines += strlen(line) > 80;
		/* a figures row: step, commit, scenario, good, this, change, p, verdict */
		if (strstr(line, "aaaabbbbcccc esp-null") && strstr(line, "-29.6%") && strstr(line, "0.0079") &&
		    strstr(line, "  bad"))
			rows++;
		if (strstr(line, "ddddeeeeffff esp-null") && strstr(line, "0.8400  good"))
			rows++;
		if (strstr(line, "999988887777") && strstr(line, "skip"))
			rows++;
		if (strstr(line, "the build failed (exit 1)"))
			rows++;
		if (!strcmp(line, "first bad commit: aaaabbbbcccc esp4: busy-wait 100 us in every esp_output"))
			first_bad++;
	}
	assert_int_equal(long_lines, 0);
	assert_int_equal(rows, 4);
	assert_int_equal(first_bad, 1);
	free(text);
	json_decref(steps);
	json_decref(scen);
}

/*
 * Only skipped revisions left: no first bad commit, why, and a line per
 * revision git says it may be, with its verdict; the good revision's build
 * taken from the cache says "cached" and has no figures of its own.
 */
static void report_only_skipped(void **state)
{
	json_t *steps = json_array(), *scen = json_pack("[s]", "esp-null");
	json_t *sus = json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "short", "f59694df6ccf", "subject",
				"esp4: does not build", "verdict", "skip", "short", "942edade5303", "subject",
				"esp4: busy-wait 100 us in every esp_output, and a subject longer than a row",
				"verdict", "bad (--bad)");
	struct bisect_summary b = {
		.metric = "throughput", .threshold = 5, .alpha = 0.05, .repeat = 4, .scenarios = scen,
		.good_short = "0123456789ab", .good_subject = "linux-source-6.12", .bad_short = "942edade5303",
		.bad_subject = "esp4: busy-wait", .suspects = sus, .total_s = 60,
		.outcome = "only skipped revisions are left (git bisect run exited 2)",
	};
	char *text = NULL, *save = NULL;
	size_t len = 0;
	int long_lines = 0, found = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	json_array_append_new(steps, step(0, "0123456789ab", "linux-source-6.12", "good", NULL));
	json_object_set_new(json_array_get(steps, 0), "cached", json_true());
	json_object_del(json_array_get(steps, 0), "run_s");
	json_array_append_new(steps, step(1, "f59694df6ccf", "esp4: does not build", "skip", NULL));
	assert_int_equal(bisect_report(f, &b, steps), 0);
	fclose(f);
	if (getenv("SHOW"))
		fputs(text, stderr);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long_lines += strlen(line) > 80;
		found += !strcmp(line, "   0 0123456789ab -                   -        -       -       -  good (--good)");
		found += strstr(line, "linux-source-6.12") && strstr(line, "build cached  run     -") != NULL;
		found += !strcmp(line, "no first bad commit: only skipped revisions are left (git bisect run exited 2)");
		found += !strcmp(line, "it is one of these 2:");
		found += !strncmp(line, "  f59694df6ccf esp4: does not build ", 36) && !strcmp(line + strlen(line) - 5, " skip");
		found += !strncmp(line, "  942edade5303 esp4: busy-wait", 30) && strstr(line, " bad (--bad)") != NULL;
	}
	assert_int_equal(long_lines, 0);
	assert_int_equal(found, 6);
	free(text);
	json_decref(steps);
	json_decref(scen);
	json_decref(sus);
}

static int sh(const char *cmd)
{
	return system(cmd);
}

static void undo_resets_its_own_bisect(void **state)
{
	char top[] = "/tmp/ipsecperf-unit-bisect-XXXXXX", repo[PATH_MAX], scratch[PATH_MAX], cmd[3 * PATH_MAX];
	char head[64] = "";
	json_t *r;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(repo, sizeof(repo), "%s/repo", top);
	snprintf(cmd, sizeof(cmd),
		 "set -e; git init -q -b work %s; cd %s; for i in 1 2 3; do echo $i > f; git add f;"
		 " git -c user.name=t -c user.email=t@t commit -q -m c$i; done;"
		 " git bisect start HEAD HEAD~2 > /dev/null", repo, repo);
	assert_int_equal(sh(cmd), 0);
	snprintf(scratch, sizeof(scratch), "%s/ipsecperf-bisect.abc", top);
	assert_int_equal(mkdir_p(scratch, 0700), 0);

	/* another bisect (started from elsewhere): left alone, scratch removed */
	r = bisect_undo_record(repo, "other-branch", scratch);
	assert_int_equal(bisect_undo(r), 0);
	json_decref(r);
	assert_false(is_dir(scratch));
	snprintf(cmd, sizeof(cmd), "%s/.git/BISECT_START", repo);
	assert_true(is_file(cmd));

	/* ours: reset, back on the branch */
	assert_int_equal(mkdir_p(scratch, 0700), 0);
	r = bisect_undo_record(repo, "work", scratch);
	assert_int_equal(bisect_undo(r), 0);
	json_decref(r);
	assert_false(is_file(cmd));
	assert_false(is_dir(scratch));
	assert_int_equal(bisect_git_line(repo, head, sizeof(head), "symbolic-ref", "--short", "HEAD", NULL), 0);
	assert_string_equal(head, "work");

	/* a record naming a folder that is not a bisect's scratch: refused, kept */
	r = bisect_undo_record(repo, "work", top);
	assert_int_equal(bisect_undo(r), -1);
	json_decref(r);
	assert_true(is_dir(top));
	assert_int_equal(rm_rf(top), 0);
}

/* After a reboot emptied /tmp, another user's folder under the scratch's name: left, with what is in it. */
static void undo_leaves_a_scratch_not_ours(void **state)
{
	char top[] = "/tmp/ipsecperf-unit-bisect-XXXXXX", scratch[PATH_MAX], file[PATH_MAX + 8], other[PATH_MAX];
	json_t *r;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(top));
	snprintf(scratch, sizeof(scratch), "%s/ipsecperf-bisect.abc", top);
	snprintf(file, sizeof(file), "%s/theirs", scratch);
	assert_int_equal(mkdir(scratch, 0700), 0);
	assert_int_equal(file_write(file, "x", 1), 0);
	assert_int_equal(chown(scratch, 65534, 65534), 0);
	r = bisect_undo_record("/nonexistent", "work", scratch);
	assert_int_equal(bisect_undo(r), 0);
	assert_true(is_file(file));
	/* a symlink in its place: neither it nor what it names is touched */
	snprintf(other, sizeof(other), "%s/elsewhere", top);
	assert_int_equal(rename(scratch, other), 0);
	assert_int_equal(symlink(other, scratch), 0);
	assert_int_equal(bisect_undo(r), 0);
	snprintf(file, sizeof(file), "%s/theirs", other);
	assert_true(is_file(file));
	json_decref(r);
	assert_int_equal(rm_rf(top), 0);
}

/* A hook and an fsmonitor program in the tree's git: neither runs, from bisect_git or a child's plain git. */
static void git_runs_no_tree_code(void **state)
{
	char top[] = "/tmp/ipsecperf-unit-bisect-XXXXXX", repo[128], cmd[2048], ran[128];

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(repo, sizeof(repo), "%s/repo", top);
	snprintf(ran, sizeof(ran), "%s/ran", top);
	snprintf(cmd, sizeof(cmd),
		 "set -e; git init -q -b work %s; cd %s; for i in 1 2; do echo $i > f; git add f;"
		 " git -c user.name=t -c user.email=t@t commit -q -m c$i; done;"
		 " printf '#!/bin/sh\\necho $0 >> %s\\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout;"
		 " printf '#!/bin/sh\\necho $0 >> %s\\nexit 1\\n' > %s/fsmon; chmod +x %s/fsmon;"
		 " git config core.fsmonitor %s/fsmon",
		 repo, repo, ran, ran, top, top, top);
	assert_int_equal(sh(cmd), 0);
	assert_int_equal(bisect_git(repo, NULL, NULL, "checkout", "-q", "HEAD~1", NULL), 0);
	assert_int_equal(bisect_git(repo, NULL, NULL, "status", "--porcelain", NULL), 0);
	assert_int_equal(bisect_git_env(), 0);
	assert_int_equal(exec_run(NULL, (char *[]){ "git", "-C", repo, "checkout", "-q", "work", NULL }, NULL, NULL), 0);
	assert_int_equal(exec_run(NULL, (char *[]){ "git", "-C", repo, "status", NULL }, NULL, NULL), 0);
	assert_false(is_file(ran));
	assert_int_equal(rm_rf(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_rows),
		cmocka_unit_test(report_only_skipped),
		cmocka_unit_test(undo_resets_its_own_bisect),
		cmocka_unit_test(undo_leaves_a_scratch_not_ours),
		cmocka_unit_test(git_runs_no_tree_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
