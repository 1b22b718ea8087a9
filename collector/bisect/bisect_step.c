// SPDX-License-Identifier: GPL-2.0
/* One revision of a bisect: build, run, compare (`ipsecperf bisect-step`). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect_cache.h"
#include "bisect_step.h"
#include "clock.h"
#include "exec.h"
#include "files.h"
#include "log.h"
#include "testbed.h"
#include "testbed_ops.h"
#include "progress.h"
#include "signals.h"

#define MAX_ARGV 96

/* The last component of a path: a step's folder as the report names it. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Open dir/name for a child's output; -1 after one line. */
static int open_log(const char *dir, const char *name, char *path, size_t len)
{
	int fd;

	fmt_buf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		pr_warn("bisect: cannot create %s: %s", path, strerror(errno));
	return fd;
}

/* A phase: argv with its output into dir/log; the exit status, *secs its time. */
static int phase(const struct bisect_state *s, char *const argv[], const char *dir, const char *log,
		 int grace_ms, double *secs, bool *stopped, char *logpath, size_t loglen)
{
	int fd = open_log(dir, log, logpath, loglen), st;
	double t0 = mono_s();

	*stopped = false;
	if (fd < 0)
		return -1;
	st = bisect_spawn_wait(s, argv, fd, grace_ms, stopped);
	close(fd);
	*secs = mono_s() - t0;
	return st;
}

static const char *build_dir(const struct bisect_state *s)
{
	return *s->build ? s->build : s->tree;
}

static int build(const struct bisect_state *s, const struct bisect_key *k, const char *dir, const char *what,
		 json_t *step)
{
	char jobs[16], log[PATH_MAX + 16], why[PATH_MAX + 128], took[32];
	char *argv[16] = { (char *)s->self, "kernel", "build", (char *)s->tree };
	int n = 4, st;
	double secs = 0;
	bool stopped;

	if (*s->build) {
		argv[n++] = "-O";
		argv[n++] = (char *)s->build;
	}
	if (s->jobs > 0) {
		fmt_buf(jobs, sizeof(jobs), "%d", s->jobs);
		argv[n++] = "-j";
		argv[n++] = jobs;
	}
	/* the release follows the tree, so that a cached build has the one a new build would */
	argv[n++] = "--localversion";
	argv[n++] = (char *)k->localversion;
	argv[n] = NULL;
	fprintf(stderr, "bisect: %s: building\n", what);
	st = phase(s, argv, dir, "build.log", 30 * 1000, &secs, &stopped, log, sizeof(log));
	json_object_set_new(step, "build_s", json_real(round(secs * 10) / 10));
	if (stopped)
		return BISECT_STOPPED;
	if (st == 0) {
		format_duration(took, sizeof(took), secs);
		fprintf(stderr, "bisect: %s: built in %s\n", what, took);
		return BISECT_GOOD;
	}
	fmt_buf(why, sizeof(why), "the build failed (exit %d): see %s/build.log", st, base_name(dir));
	pr_warn("bisect: %s: %s; its last lines:", what, why);
	log_tail(log, 12, "    ");
	json_object_set_new(step, "why", json_string(why));
	/* 2: `kernel build` refused what we asked: the same for every revision */
	return st == EXIT_USAGE || st < 0 ? BISECT_ERROR : BISECT_SKIP;
}

/* The build just made, kept in the cache; else (when keep is false) run from the build folder. */
static int keep_build(const struct bisect_state *s, const struct bisect_key *k, const char *what, bool keep,
		      json_t *step, char *kdir, size_t klen, char *release, size_t rlen)
{
	char sha[64] = "", why[PATH_MAX + 256], p[PATH_MAX + 64];

	bisect_git_line(s->tree, sha, sizeof(sha), "rev-parse", "HEAD", NULL);
	if (bisect_cache_put(k, build_dir(s), sha, kdir, klen, release, rlen, why, sizeof(why)) == 0)
		return BISECT_GOOD;
	if (keep) {
		pr_warn("bisect: %s: cannot keep its build in %s: %s", what, bisect_cache_dir(), why);
		json_object_set_new(step, "why", json_string(why));
		return BISECT_ERROR;
	}
	pr_warn("bisect: %s: cannot keep its build in %s (%s); it runs from %s", what, bisect_cache_dir(), why,
		build_dir(s));
	fmt_buf(kdir, klen, "%s", build_dir(s));
	fmt_buf(p, sizeof(p), "%s/include/config/kernel.release", kdir);
	return file_read_line(p, release, rlen) == 0 ? BISECT_GOOD : BISECT_SKIP;
}

int bisect_kernel(const struct bisect_state *s, const char *dir, const char *what, bool keep, json_t *step,
		  char *kdir, size_t klen, char *release, size_t rlen)
{
	char tree[64], config[PATH_MAX + 16], why[PATH_MAX + 256];
	struct bisect_key k;
	int v;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		pr_warn("bisect: cannot create %s: %s", dir, strerror(errno));
		return BISECT_ERROR;
	}
	fmt_buf(config, sizeof(config), "%s/.config", build_dir(s));
	if (bisect_git_line(s->tree, tree, sizeof(tree), "rev-parse", "HEAD^{tree}", NULL) ||
	    bisect_key_make(tree, config, &k) < 0)
		return BISECT_ERROR;
	json_object_set_new(step, "tree", json_string(tree));
	v = s->no_cache ? 1 : bisect_cache_get(&k, kdir, klen, release, rlen, why, sizeof(why));
	if (v == 2)
		pr_warn("bisect: %s: a cached build was not taken: %s; building it again", what, why);
	if (v == 0) {
		fprintf(stderr, "bisect: %s: cached build of %.12s (%s)\n", what, tree, release);
		json_object_set_new(step, "cached", json_true());
	} else {
		v = build(s, &k, dir, what, step);
		if (v == BISECT_GOOD)
			v = keep_build(s, &k, what, keep, step, kdir, klen, release, rlen);
		if (v != BISECT_GOOD)
			return v;
		json_object_set_new(step, "cached", json_false());
	}
	json_object_set_new(step, "kernel", json_string(kdir));
	json_object_set_new(step, "release", json_string(release));
	return BISECT_GOOD;
}

int bisect_run_pair(const struct bisect_state *s, const char *kdir, const char *dir, const char *what,
		    json_t *step)
{
	char *argv[MAX_ARGV] = { (char *)s->self, "run", "--testbed", (char *)testbed_vm.name, "--kernel", (char *)s->good_kernel,
				 "--kernel", (char *)kdir, "--interleave", "-o" };
	char results[PATH_MAX + 16], repeat[16], log[PATH_MAX + 16], why[PATH_MAX + 128], took[32];
	size_t i, n = 10;
	double secs = 0;
	bool stopped;
	int st;

	fmt_buf(results, sizeof(results), "%s/results", dir);
	fmt_buf(repeat, sizeof(repeat), "%d", s->repeat);
	argv[n++] = results;
	argv[n++] = "--repeat";
	argv[n++] = repeat;
	/* not among run_opts: the netns dry run that checks those has no --clock */
	argv[n++] = "--clock";
	argv[n++] = (char *)s->clock;
	/* a metric of throughput or cycles needs no counting repeats: a step's time is the bisect's */
	if (!strcmp(s->metric, "throughput") || !strcmp(s->metric, "cycles_per_byte") || !strcmp(s->metric, "cpb") ||
	    !strcmp(s->metric, "instructions_per_byte")) {
		argv[n++] = "--count-repeats";
		argv[n++] = "0";
	}
	for (i = 0; i < json_array_size(s->run_opts) && n < MAX_ARGV - 40; i++)
		argv[n++] = (char *)json_string_value(json_array_get(s->run_opts, i));
	argv[n++] = "--";
	for (i = 0; i < json_array_size(s->scenarios) && n < MAX_ARGV - 1; i++)
		argv[n++] = (char *)json_string_value(json_array_get(s->scenarios, i));
	argv[n] = NULL;
	fprintf(stderr, "bisect: %s: running %zu scenario(s) x %d in the VM, in turn with the good revision\n",
		what, json_array_size(s->scenarios), s->repeat);
	st = phase(s, argv, dir, "run.log", 90 * 1000, &secs, &stopped, log, sizeof(log));
	json_object_set_new(step, "run_s", json_real(round(secs * 10) / 10));
	json_object_set_new(step, "results", json_string(results));
	if (stopped)
		return BISECT_STOPPED;
	if (st == 0) {
		format_duration(took, sizeof(took), secs);
		fprintf(stderr, "bisect: %s: ran in %s\n", what, took);
		return BISECT_GOOD;
	}
	fmt_buf(why, sizeof(why), "the runs failed (exit %d): see %s/run.log", st, base_name(dir));
	pr_warn("bisect: %s: %s; its last lines:", what, why);
	log_tail(log, 12, "    ");
	json_object_set_new(step, "why", json_string(why));
	return st == EXIT_USAGE || st < 0 ? BISECT_ERROR : BISECT_SKIP;
}

/* The rows of the deciding metric from compare's JSON document. */
static json_t *figures(json_t *doc)
{
	json_t *rows = json_object_get(doc, "rows"), *out = json_array(), *r;
	size_t i;

	json_array_foreach(rows, i, r) {
		if (!json_is_true(json_object_get(r, "selected")))
			continue;
		json_array_append_new(out, json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
						     "scenario", json_object_get(r, "scenario"),
						     "metric", json_object_get(r, "metric"),
						     "unit", json_object_get(r, "unit"),
						     "good", json_object_get(json_object_get(r, "base"), "median"),
						     "this", json_object_get(json_object_get(r, "new"), "median"),
						     "change_pct", json_object_get(r, "change_pct"),
						     "p", json_object_get(r, "p_mw"),
						     "regression", json_object_get(r, "regression"),
						     "undecided", json_object_get(r, "undecided")));
	}
	return out;
}

static int compare_text(const struct bisect_state *s, const char *dir, char *const argv[])
{
	char path[PATH_MAX + 16];
	int fd = open_log(dir, "compare.txt", path, sizeof(path));
	struct spawn_opts o = { .cpu = -1, .stdout_fd = fd, .stderr_fd = fd };
	pid_t pid;

	(void)s;
	if (fd < 0)
		return -1;
	pid = exec_spawn(argv, &o);
	close(fd);
	return pid < 0 ? -1 : exec_wait(pid);
}

int bisect_judge(const struct bisect_state *s, const char *dir, const char *release, json_t *step)
{
	char thr[32], alpha[32], results[PATH_MAX + 16], path[PATH_MAX + 16];
	char *argv[] = { (char *)s->self, "compare", "--metric", (char *)s->metric, "--threshold", thr, "--alpha",
			 alpha, "--base-kernel", (char *)s->good_release, "--new-kernel", (char *)release, "-f", "json",
			 results, results, NULL };
	char *out = NULL, *err = NULL;
	json_t *doc, *fig;
	int st, ret;

	fmt_buf(thr, sizeof(thr), "%g", s->threshold);
	fmt_buf(alpha, sizeof(alpha), "%g", s->alpha);
	fmt_buf(results, sizeof(results), "%s/results", dir);
	st = exec_run(NULL, argv, &out, &err);
	fmt_buf(path, sizeof(path), "%s/compare.json", dir);
	if (out && file_write(path, out, strlen(out)) < 0)
		pr_warn("bisect: cannot write %s", path);
	argv[13] = "text";
	compare_text(s, dir, argv);
	doc = out ? json_loads(out, 0, NULL) : NULL;
	fig = doc ? figures(doc) : json_array();
	json_object_set_new(step, "figures", fig);
	if ((st != 0 && st != 1) || !doc || !json_array_size(fig)) {
		char why[512];

		msg_trim(err);
		fmt_buf(why, sizeof(why), "compare %s: %s", st == 0 || st == 1 ? "named no figure of the metric"
			: "failed", err && *err ? err : "no message");
		pr_warn("bisect: %s", why);
		json_object_set_new(step, "why", json_string(why));
		ret = BISECT_ERROR;
	} else if (st == 1) {
		ret = BISECT_BAD;
	} else if (json_integer_value(json_object_get(doc, "undecided")) > 0) {
		json_t *r;
		size_t i;

		json_array_foreach(fig, i, r)
			if (json_string_value(json_object_get(r, "undecided")))
				json_object_set(step, "why", json_object_get(r, "undecided"));
		ret = BISECT_SKIP;
	} else {
		ret = BISECT_GOOD;
	}
	json_decref(doc);
	free(out);
	free(err);
	return ret;
}

/* ---- `ipsecperf bisect-step` ---- */

/* About how many steps this bisect takes in all, counting this one (k): k + git's estimate of the rest. */
static int steps_estimate(const struct bisect_state *s, int k)
{
	char *refs = NULL, *vars = NULL, *save = NULL, *p;
	char *argv[64] = { BISECT_GIT_ARGV, "-C", (char *)s->tree, "rev-list", "--bisect-vars", "refs/bisect/bad",
			   "--not" };
	int n = BISECT_GIT_ARGC + 6, rest = -1;

	if (bisect_git(s->tree, &refs, NULL, "for-each-ref", "--format=%(refname)", "refs/bisect/", NULL) != 0) {
		free(refs);
		return -1;
	}
	for (char *line = strtok_r(refs, "\n", &save); line && n < 62; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "refs/bisect/good-", 17))
			argv[n++] = line;
	argv[n] = NULL;
	if (exec_run(NULL, argv, &vars, NULL) == 0 && (p = strstr(vars, "bisect_steps=")))
		rest = atoi(p + 13);
	free(refs);
	free(vars);
	return rest < 0 ? -1 : k + rest;
}

static const char *verdict_name(int v)
{
	return v == BISECT_GOOD ? "good" : v == BISECT_BAD ? "bad" : v == BISECT_SKIP ? "skip" : "error";
}

/* The step's last line: its verdict and the first figure. */
static void print_verdict(const char *what, int v, json_t *step)
{
	json_t *f = json_array_get(json_object_get(step, "figures"), 0);
	const char *why = json_string_value(json_object_get(step, "why"));

	if (f && json_is_number(json_object_get(f, "p")))
		fprintf(stderr, "bisect: %s: %s: %s %s %.4g -> %.4g %s (%+.1f%%), p %.4f\n", what, verdict_name(v),
			json_string_value(json_object_get(f, "scenario")),
			json_string_value(json_object_get(f, "metric")),
			json_number_value(json_object_get(f, "good")), json_number_value(json_object_get(f, "this")),
			json_string_value(json_object_get(f, "unit")),
			json_number_value(json_object_get(f, "change_pct")), json_number_value(json_object_get(f, "p")));
	else
		fprintf(stderr, "bisect: %s: %s%s%s\n", what, verdict_name(v), why ? ": " : "", why ? why : "");
}

/* Build it (or take its build from the cache), run it in turn with the good revision, judge. */
static int measure_step(const struct bisect_state *s, const char *dir, const char *what, json_t *step)
{
	char tree[64] = "", kdir[PATH_MAX], release[128];
	int v;

	if (bisect_git_line(s->tree, tree, sizeof(tree), "rev-parse", "HEAD^{tree}", NULL) == 0 &&
	    !strcmp(tree, s->good_tree)) {
		json_object_set_new(step, "tree", json_string(tree));
		json_object_set_new(step, "why", json_string("the good revision's source tree: its kernel"));
		return BISECT_GOOD;
	}
	bisect_cache_touch(s->good_kernel); /* in use: among the last entries kept */
	v = bisect_kernel(s, dir, what, false, step, kdir, sizeof(kdir), release, sizeof(release));
	if (v == BISECT_GOOD)
		v = bisect_run_pair(s, kdir, dir, what, step);
	if (v == BISECT_GOOD)
		v = bisect_judge(s, dir, release, step);
	return v;
}

int bisect_step_run(const struct bisect_state *s)
{
	char shortsha[64], subject[256], sha[64], dir[PATH_MAX + 64], what[400];
	json_t *steps = bisect_steps_read(s->out), *step;
	int k, total, v;

	if (!steps)
		return BISECT_ERROR;
	k = (int)json_array_size(steps); /* the good revision's record is the first */
	json_decref(steps);
	if (bisect_git_line(s->tree, sha, sizeof(sha), "rev-parse", "HEAD", NULL) ||
	    bisect_describe(s->tree, "HEAD", shortsha, sizeof(shortsha), subject, sizeof(subject))) {
		pr_warn("bisect-step: %s: cannot tell which revision is checked out", s->tree);
		return BISECT_ERROR;
	}
	total = steps_estimate(s, k);
	if (total > 0)
		fmt_buf(what, sizeof(what), "step %d of ~%d, %s %.50s", k, total, shortsha, subject);
	else
		fmt_buf(what, sizeof(what), "step %d, %s %.50s", k, shortsha, subject);
	fmt_buf(dir, sizeof(dir), "%s/step%d-%s", s->out, k, shortsha);
	step = json_pack("{s:i, s:s, s:s, s:s, s:s}", "step", k, "sha", sha, "short", shortsha, "subject", subject,
			 "dir", dir);
	v = measure_step(s, dir, what, step);
	if (v == BISECT_STOPPED) {
		json_decref(step);
		return 128 + (stop_signal() ? stop_signal() : SIGTERM);
	}
	json_object_set_new(step, "verdict", json_string(verdict_name(v)));
	print_verdict(what, v, step);
	if (bisect_steps_append(s->out, step) < 0)
		return BISECT_ERROR;
	return v;
}

int bisect_step_main(const char *state_path)
{
	struct bisect_state s;
	int ret;

	signals_install();
	if (bisect_state_load(&s, state_path) < 0)
		return BISECT_ERROR;
	ret = bisect_step_run(&s);
	bisect_state_free(&s);
	return ret;
}
