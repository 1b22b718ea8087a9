// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf bisect`: checks, the good revision, `git bisect run`, the report. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_report.h"
#include "bisect_step.h"
#include "bisect_util.h"
#include "clock.h"
#include "exec.h"
#include "files.h"
#include "journal.h"
#include "journal_dir.h"
#include "kbuild.h"
#include "log.h"
#include "testbed.h"
#include "testbed_ops.h"
#include "options.h"
#include "scenario.h"
#include "signals.h"
#include "stats.h"

/* What the bisect knows besides the state its steps read. */
struct bisect_run {
	struct bisect_state s;
	char original[256];              /* the branch (or hash) HEAD was at */
	char good_short[64], good_subject[256], bad_short[64], bad_subject[256];
	char first_bad[64], first_bad_subject[256], outcome[512];
	int candidates;                  /* revisions after good, up to bad */
	json_t *suspects;                /* only skipped ones left: those git names, with their verdicts */
	double t0;
};

/* ---- checks: bad usage changes nothing ---- */

static int check_rev(struct bisect_run *b, const char *opt, const char *rev, char *sha, size_t len)
{
	char spec[512];

	if (!*rev || rev[0] == '-' || has_control_char(rev) || strlen(rev) > 256) {
		pr_warn("bisect: --%s '%s': not a revision", opt, rev);
		return -1;
	}
	fmt_buf(spec, sizeof(spec), "%s^{commit}", rev);
	if (bisect_git_line(b->s.tree, sha, len, "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL) ||
	    strlen(sha) != 40) {
		pr_warn("bisect: --%s %s: no such commit in %s", opt, rev, b->s.tree);
		return -1;
	}
	return 0;
}

static int check_tree(struct bisect_run *b, const char *given)
{
	char top[PATH_MAX], rel[PATH_MAX], path[2 * PATH_MAX];
	char *out = NULL, *err = NULL;
	int st;

	if (!realpath(given, b->s.tree) || !is_dir(b->s.tree)) {
		pr_warn("bisect: %s: %s", given, is_file(given) ? "not a folder" : strerror(errno));
		return -1;
	}
	/* before its git runs: git and make run what the tree holds */
	if (kbuild_tree_ours(b->s.tree, path, sizeof(path)) < 0) {
		pr_warn("bisect: %s", path);
		return -1;
	}
	if (bisect_git_line(b->s.tree, top, sizeof(top), "rev-parse", "--show-toplevel", NULL) || strcmp(top, b->s.tree)) {
		pr_warn("bisect: %s is not the top of a git work tree; give the kernel tree's top folder", given);
		return -1;
	}
	if (bisect_git_line(b->s.tree, rel, sizeof(rel), "rev-parse", "--git-path", "BISECT_START", NULL) == 0 && *rel) {
		fmt_buf(path, sizeof(path), rel[0] == '/' ? "%.0s%s" : "%s/%s", b->s.tree, rel);
		if (access(path, F_OK) == 0) {
			pr_warn("bisect: %s is bisecting already; end that with `git -C %s bisect reset` first", given, given);
			return -1;
		}
	}
	st = bisect_git(b->s.tree, &out, &err, "status", "--porcelain", "--untracked-files=no", NULL);
	if (st != 0 || (out && *out)) {
		msg_trim(err);
		if (st != 0)
			pr_warn("bisect: git status in %s failed: %s", given, err && *err ? err : "no message");
		else
			pr_warn("bisect: %s has uncommitted changes to tracked files (git status): commit or stash them first", given);
		free(out);
		free(err);
		return -1;
	}
	free(out);
	free(err);
	/* what `git bisect start` writes to BISECT_START, and `git bisect reset` goes back to */
	if (bisect_git_line(b->s.tree, b->original, sizeof(b->original), "symbolic-ref", "--short", "-q", "HEAD", NULL) &&
	    bisect_git_line(b->s.tree, b->original, sizeof(b->original), "rev-parse", "HEAD", NULL)) {
		pr_warn("bisect: %s: HEAD names no commit", given);
		return -1;
	}
	return 0;
}

static int check_revs(struct bisect_run *b, const struct bisect_opts *o)
{
	char range[128], n[32];
	int st;

	if (check_rev(b, "good", o->good, b->s.good, sizeof(b->s.good)) < 0 ||
	    check_rev(b, "bad", o->bad, b->s.bad, sizeof(b->s.bad)) < 0)
		return -1;
	st = bisect_git(b->s.tree, NULL, NULL, "merge-base", "--is-ancestor", b->s.good, b->s.bad, NULL);
	if (!strcmp(b->s.good, b->s.bad) || st != 0) {
		pr_warn("bisect: --good %s is not an ancestor of --bad %s%s", o->good, o->bad,
			st == 0 ? " (they are the same commit)" : "");
		return -1;
	}
	fmt_buf(range, sizeof(range), "%s..%s", b->s.good, b->s.bad);
	if (bisect_git_line(b->s.tree, n, sizeof(n), "rev-list", "--count", range, NULL) ||
	    bisect_describe(b->s.tree, b->s.good, b->good_short, sizeof(b->good_short), b->good_subject,
			    sizeof(b->good_subject)) ||
	    bisect_describe(b->s.tree, b->s.bad, b->bad_short, sizeof(b->bad_short), b->bad_subject,
			    sizeof(b->bad_subject))) {
		pr_warn("bisect: cannot read the history from %s to %s", o->good, o->bad);
		return -1;
	}
	b->candidates = atoi(n);
	return 0;
}

static int check_build(struct bisect_run *b, const struct bisect_opts *o)
{
	char config[2 * PATH_MAX];

	if (o->build && (!realpath(o->build, b->s.build) || !is_dir(b->s.build))) {
		pr_warn("bisect: -O %s: %s", o->build, errno ? strerror(errno) : "not a folder");
		return -1;
	}
	fmt_buf(config, sizeof(config), "%s/.config", o->build ? b->s.build : b->s.tree);
	/* without -O, TREE/build as `run --kernel TREE` finds it (kernel config -O TREE/build TREE) */
	if (!o->build && !is_file(config)) {
		fmt_buf(config, sizeof(config), "%s/build/.config", b->s.tree);
		if (is_file(config))
			fmt_buf(b->s.build, sizeof(b->s.build), "%s/build", b->s.tree);
	}
	if (!is_file(config)) {
		if (o->build)
			pr_warn("bisect: %s has no .config; configure and build it once first: ipsecperf kernel config -O %s %s",
				b->s.build, b->s.build, b->s.tree);
		else
			pr_warn("bisect: neither %s nor %s/build has a .config; configure and build it once first: ipsecperf kernel config -O %s/build %s",
				b->s.tree, b->s.tree, b->s.tree, b->s.tree);
		return -1;
	}
	if (*b->s.build && kbuild_tree_ours(b->s.build, config, sizeof(config)) < 0) {
		pr_warn("bisect: %s", config);
		return -1;
	}
	return 0;
}

static int check_usage(struct bisect_run *b, const struct bisect_opts *o)
{
	double min_p = mann_whitney_min_p(o->repeat, o->repeat);
	char why[256];

	if (geteuid() != 0) {
		pr_warn("bisect: needs root (its steps boot kernels in VMs); try sudo");
		return -1;
	}
	if (!o->good || !o->bad) {
		pr_warn("bisect: name the revisions: --good REV --bad REV; see `ipsecperf help bisect`");
		return -1;
	}
	if (!o->tree || !o->nscenarios) {
		pr_warn("bisect: name a kernel tree and at least one scenario; usage: ipsecperf bisect --good REV --bad REV TREE SCENARIO...");
		return -1;
	}
	if (!*o->metric || strlen(o->metric) >= sizeof(b->s.metric) ||
	    strspn(o->metric, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(o->metric)) {
		pr_warn("bisect: --metric '%s': one metric: throughput, cycles_per_byte (cpb) or a counter's name", o->metric);
		return -1;
	}
	if (min_p >= o->alpha) {
		int n = o->repeat;

		while (mann_whitney_min_p(n, n) >= o->alpha)
			n++;
		pr_warn("bisect: --repeat %d cannot reach alpha %g: with %d runs against %d the exact Mann-Whitney test's smallest p is %.3g; use --repeat %d or more",
			o->repeat, o->alpha, o->repeat, o->repeat, min_p, n);
		return -1;
	}
	if (o->out && out_dir_check(o->out, false, why, sizeof(why)) < 0) {
		pr_warn("bisect: -o %s: %s", o->out, why);
		return -1;
	}
	if (check_tree(b, o->tree) < 0 || check_revs(b, o) < 0 || check_build(b, o) < 0)
		return -1;
	fmt_buf(b->s.metric, sizeof(b->s.metric), "%s", o->metric);
	b->s.threshold = o->threshold;
	b->s.alpha = o->alpha;
	b->s.repeat = o->repeat;
	b->s.jobs = o->jobs;
	b->s.no_cache = o->no_cache;
	fmt_buf(b->s.clock, sizeof(b->s.clock), "%s", o->clock ? o->clock : "auto");
	return 0;
}

/*
 * The scratch folder, with a copy of this program that every step runs (a
 * rebuild of ipsecperf meanwhile cannot swap it). git bisect run hands its
 * command to a shell as one line, so the folder's path must need no quoting.
 */
static int make_scratch(struct bisect_run *b)
{
	const char *tmp = getenv("TMPDIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (!tmp || !*tmp || tmp[0] != '/' || strlen(tmp) > 512 ||
	    strspn(tmp, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") != strlen(tmp))
		tmp = "/tmp";
	fmt_buf(b->s.scratch, sizeof(b->s.scratch), "%s/ipsecperf-bisect.XXXXXX", tmp);
	if (!mkdtemp(b->s.scratch)) {
		pr_warn("bisect: cannot make a scratch folder in %s: %s", tmp, strerror(errno));
		return -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	fmt_buf(b->s.self, sizeof(b->s.self), "%s/ipsecperf", b->s.scratch);
	if (n <= 0 || (exe[n] = '\0', copy_file(exe, b->s.self) < 0)) {
		pr_warn("bisect: cannot copy this program into %s: %s", b->s.scratch, strerror(errno));
		rm_rf(b->s.scratch);
		return -1;
	}
	return 0;
}

/*
 * The run options and scenarios, checked by run itself (--dry-run on the
 * netns testbed, which needs no kernel): a typo is bad usage now, not a
 * skipped step in an hour. The copy runs from scratch, where it would not
 * find the scenarios beside it: they are named in IPSECPERF_SCENARIOS.
 */
static int check_run_args(struct bisect_run *b, const struct bisect_opts *o)
{
	char *argv[128] = { b->s.self, "run", "--dry-run", "--testbed", (char *)testbed_netns.name, "-o" };
	char dry[PATH_MAX + 16], *out = NULL, *err = NULL;
	int n = 6, st;

	if (o->nrun_opts + o->nscenarios > 100) {
		pr_warn("bisect: too many run options and scenarios");
		return -1;
	}
	if (setenv("IPSECPERF_SCENARIOS", scenario_dir(), 1) < 0)
		return -1;
	fmt_buf(dry, sizeof(dry), "%s/dry-run", b->s.scratch);
	argv[n++] = dry;
	for (int i = 0; i < o->nrun_opts; i++)
		argv[n++] = o->run_opts[i];
	argv[n++] = "--";
	for (int i = 0; i < o->nscenarios; i++)
		argv[n++] = o->scenarios[i];
	argv[n] = NULL;
	st = exec_run(NULL, argv, &out, &err);
	/*
	 * EXIT_FAIL: every scenario would be skipped on this host (no ESP
	 * here, say); the steps run in guests of their own kernels, so only a
	 * refusal of the options (EXIT_USAGE) or a crash stops the bisect.
	 */
	if (st == EXIT_FAIL)
		st = 0;
	if (st != 0) {
		msg_trim(err);
		fprintf(stderr, "%s\n", err && *err ? err : "ipsecperf: bisect: run refused the options");
	}
	free(out);
	free(err);
	b->s.run_opts = json_array();
	b->s.scenarios = json_array();
	for (int i = 0; i < o->nrun_opts; i++)
		json_array_append_new(b->s.run_opts, json_string(o->run_opts[i]));
	for (int i = 0; i < o->nscenarios; i++)
		json_array_append_new(b->s.scenarios, json_string(o->scenarios[i]));
	return st == 0 ? 0 : -1;
}

static int open_out(struct bisect_run *b, const struct bisect_opts *o)
{
	char dflt[64], why[256];
	const char *dir = o->out;
	time_t t = time(NULL);
	struct tm tm;
	int fd;

	if (!dir) {
		gmtime_r(&t, &tm);
		fmt_buf(dflt, sizeof(dflt), "results/bisect-%04d%02d%02dT%02d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		dir = dflt;
		if (mkdir_p("results", 0755) < 0) {
			pr_warn("bisect: cannot create results/: %s", strerror(errno));
			return -1;
		}
	}
	fd = out_dir_open(dir, why, sizeof(why));
	if (fd < 0) {
		pr_warn("bisect: %s: %s", dir, why);
		return -1;
	}
	close(fd);
	if (!realpath(dir, b->s.out)) {
		pr_warn("bisect: %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the bisect ---- */

/* git in the tree, what it prints appended to OUT/git.log; the exit status. */
static int git_logged(struct bisect_run *b, ...)
{
	char *argv[24] = { BISECT_GIT_ARGV, "-C", b->s.tree }, log[PATH_MAX + 16];
	const char *a;
	int n = BISECT_GIT_ARGC + 2, fd, st;
	pid_t pid;
	va_list ap;

	va_start(ap, b);
	while ((a = va_arg(ap, const char *)) && n < 23)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	fmt_buf(log, sizeof(log), "%s/git.log", b->s.out);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	dprintf(fd, "$ git");
	for (int i = BISECT_GIT_ARGC + 2; argv[i]; i++)
		dprintf(fd, " %s", argv[i]);
	dprintf(fd, "\n");
	pid = exec_spawn(argv, &(struct spawn_opts){ .cpu = -1, .stdout_fd = fd, .stderr_fd = fd });
	close(fd);
	st = pid < 0 ? -1 : exec_wait(pid);
	if (st != 0)
		pr_warn("bisect: git %s %s failed (exit %d); see %s", argv[BISECT_GIT_ARGC + 2],
			argv[BISECT_GIT_ARGC + 3] ? argv[BISECT_GIT_ARGC + 3] : "", st, log);
	return st;
}

/*
 * The good revision's kernel, built once (or taken from the cache) and
 * kept there: every step runs it in turn with its own.
 */
static int measure_good(struct bisect_run *b)
{
	char dir[PATH_MAX + 64], what[400];
	json_t *step;
	int v;

	fmt_buf(dir, sizeof(dir), "%s/good-%s", b->s.out, b->good_short);
	fmt_buf(what, sizeof(what), "the good revision, %s %.50s", b->good_short, b->good_subject);
	step = json_pack("{s:i, s:s, s:s, s:s, s:s}", "step", 0, "sha", b->s.good, "short", b->good_short, "subject",
			 b->good_subject, "dir", dir);
	v = bisect_kernel(&b->s, dir, what, true, step, b->s.good_kernel, sizeof(b->s.good_kernel),
			  b->s.good_release, sizeof(b->s.good_release));
	if (v != BISECT_GOOD) {
		if (v != BISECT_STOPPED)
			fmt_buf(b->outcome, sizeof(b->outcome), "the good revision's kernel could not be had (step 0)");
		json_object_set_new(step, "verdict", json_string(v == BISECT_STOPPED ? "stopped" : "error"));
		bisect_steps_append(b->s.out, step);
		return v == BISECT_STOPPED ? -2 : -1;
	}
	fmt_buf(b->s.good_tree, sizeof(b->s.good_tree), "%s", json_string_value(json_object_get(step, "tree")));
	json_object_set_new(step, "verdict", json_string("good"));
	return bisect_steps_append(b->s.out, step);
}

static bool stop_asked(const void *unused)
{
	(void)unused;
	return stop_requested();
}

static void ask_steps(const void *s, pid_t unused)
{
	(void)unused;
	bisect_request_stop(s);
}

/* Wait for git bisect run; on a stop, ask the step to stop and give it time to unwind. */
static int wait_git(struct bisect_run *b, pid_t pid)
{
	/* a step stops its run (90 s at most) and build, then git stops */
	struct exec_stopper stop = { .stopping = stop_asked, .ask = ask_steps, .arg = &b->s, .grace_ms = 150 * 1000,
				     .group = true, .late = "bisect: git bisect run did not stop; killing it" };

	return exec_wait_stoppable(pid, &stop, NULL);
}

/* A revision's verdict from the steps: the last step's on it, "bad (--bad)" or "untested". */
static const char *verdict_of(json_t *steps, const char *sha, const char *bad)
{
	const char *v = NULL;
	json_t *st;
	size_t i;

	json_array_foreach(steps, i, st) {
		const char *s = json_string_value(json_object_get(st, "sha"));

		if (i > 0 && s && !strcmp(s, sha))
			v = json_string_value(json_object_get(st, "verdict"));
	}
	return v ? v : !strcmp(sha, bad) ? "bad (--bad)" : "untested";
}

/*
 * Only skipped revisions left: the ones git says the first bad commit
 * could be (the lines of hashes after "could be any of:"), each with its
 * short hash, subject and verdict, into b->suspects.
 */
static void read_suspects(struct bisect_run *b, const char *text)
{
	const char *p = strstr(text, "The first bad commit could be any of:");
	json_t *steps = bisect_steps_read(b->s.out);

	b->suspects = json_array();
	p = p ? strchr(p, '\n') : NULL;
	while (p && strspn(p + 1, "0123456789abcdef") == 40 && (p[41] == '\n' || !p[41])) {
		char sha[41], shortsha[64], subject[256];

		fmt_buf(sha, sizeof(sha), "%.40s", p + 1);
		if (bisect_describe(b->s.tree, sha, shortsha, sizeof(shortsha), subject, sizeof(subject)) == 0)
			json_array_append_new(b->suspects,
					      json_pack("{s:s, s:s, s:s, s:s}", "sha", sha, "short", shortsha,
							"subject", subject, "verdict", verdict_of(steps, sha, b->s.bad)));
		p = p[41] ? p + 41 : NULL;
	}
	json_decref(steps);
}

/* The first bad commit, from what git bisect run printed. */
static void find_first_bad(struct bisect_run *b, int st)
{
	char log[PATH_MAX + 16], *text, *p, *line;

	fmt_buf(log, sizeof(log), "%s/git.log", b->s.out);
	text = file_read(log, NULL);
	p = text ? strstr(text, " is the first bad commit") : NULL;
	if (p) {
		line = p;
		while (line > text && line[-1] != '\n')
			line--;
		if (p - line == 40 && strspn(line, "0123456789abcdef") == 40) {
			char sha[41];

			fmt_buf(sha, sizeof(sha), "%.40s", line);
			if (bisect_describe(b->s.tree, sha, b->first_bad, sizeof(b->first_bad), b->first_bad_subject,
					    sizeof(b->first_bad_subject)) == 0) {
				free(text);
				return;
			}
		}
	}
	b->first_bad[0] = '\0';
	if (!*b->outcome) {
		p = text ? strstr(text, "only 'skip'ped commits left") : NULL;
		if (p)
			read_suspects(b, p);
		fmt_buf(b->outcome, sizeof(b->outcome), "%s (git bisect run exited %d%s)",
			p ? "only skipped revisions are left" : "git bisect run did not name one", st,
			json_array_size(b->suspects) ? "" : "; see git.log");
	}
	free(text);
}

/*
 * git names the bad revision itself when every revision it tried was good,
 * without ever measuring it: measure it now, so that a bad revision that
 * is not slower is said to be so, not named as the culprit.
 */
static int check_bad(struct bisect_run *b)
{
	json_t *steps, *st;
	bool measured = false;
	size_t i;
	int v;

	if (strncmp(b->s.bad, b->first_bad, strlen(b->first_bad)) || !*b->first_bad)
		return 0;
	steps = bisect_steps_read(b->s.out);
	json_array_foreach(steps, i, st) {
		const char *sha = json_string_value(json_object_get(st, "sha"));

		measured |= i > 0 && sha && !strcmp(sha, b->s.bad);
	}
	json_decref(steps);
	if (measured)
		return 0;
	if (git_logged(b, "checkout", "-q", "--detach", b->s.bad, NULL) != 0)
		return -1;
	v = bisect_step_run(&b->s);
	if (v == BISECT_BAD)
		return 0;
	b->first_bad[0] = '\0';
	if (v > BISECT_ERROR)
		return -2;
	fmt_buf(b->outcome, sizeof(b->outcome), v == BISECT_GOOD
		? "the bad revision is no worse than the good one: nothing to bisect"
		: "the bad revision could not be measured");
	return 0;
}

static int bisect_git_run(struct bisect_run *b)
{
	char state[PATH_MAX + 16], mid[64], log[PATH_MAX + 16];
	char *argv[] = { BISECT_GIT_ARGV, "-C", b->s.tree, "bisect", "run", b->s.self, "bisect-step", state, NULL };
	int fd, st;
	pid_t pid;

	/* git checks out the revision to test first; the good one is measured before it */
	if (git_logged(b, "bisect", "start", b->s.bad, b->s.good, "--", NULL) != 0 ||
	    bisect_git_line(b->s.tree, mid, sizeof(mid), "rev-parse", "HEAD", NULL) ||
	    git_logged(b, "checkout", "-q", "--detach", b->s.good, NULL) != 0)
		return -1;
	st = measure_good(b);
	if (st < 0)
		return st;
	if (b->candidates == 1) {
		/* the bad revision is the good one's child: git named it at the start */
		find_first_bad(b, 0);
		return check_bad(b);
	}
	fmt_buf(state, sizeof(state), "%s/state.json", b->s.scratch);
	if (git_logged(b, "checkout", "-q", "--detach", mid, NULL) != 0 || bisect_state_save(&b->s, state) < 0)
		return -1;
	fmt_buf(log, sizeof(log), "%s/git.log", b->s.out);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	dprintf(fd, "$ git bisect run %s bisect-step %s\n", b->s.self, state);
	/* git's words go to the log; the steps' progress lines to our stderr */
	pid = exec_spawn(argv, &(struct spawn_opts){ .cpu = -1, .stdout_fd = fd, .stderr_fd = 2 });
	close(fd);
	if (pid < 0)
		return -1;
	st = wait_git(b, pid);
	if (stop_requested())
		return -2;
	find_first_bad(b, st);
	return check_bad(b);
}

static int write_report(struct bisect_run *b)
{
	struct bisect_summary sum = {
		.metric = b->s.metric, .threshold = b->s.threshold, .alpha = b->s.alpha, .repeat = b->s.repeat,
		.scenarios = b->s.scenarios, .good_short = b->good_short, .good_subject = b->good_subject,
		.bad_short = b->bad_short, .bad_subject = b->bad_subject,
		.first_bad = *b->first_bad ? b->first_bad : NULL, .first_bad_subject = b->first_bad_subject,
		.outcome = b->outcome, .suspects = b->suspects, .total_s = mono_s() - b->t0,
	};
	char path[PATH_MAX + 16];
	json_t *steps = bisect_steps_read(b->s.out);
	FILE *f;
	int err;

	if (!steps)
		return -1;
	fmt_buf(path, sizeof(path), "%s/git-bisect.log", b->s.out);
	{
		char *out = NULL;

		if (bisect_git(b->s.tree, &out, NULL, "bisect", "log", NULL) == 0 && out)
			file_write(path, out, strlen(out));
		free(out);
	}
	fmt_buf(path, sizeof(path), "%s/report.txt", b->s.out);
	f = fopen(path, "we");
	err = !f || bisect_report(f, &sum, steps) < 0;
	if (f && fclose(f) != 0)
		err = 1;
	if (err)
		pr_warn("bisect: cannot write %s", path);
	fputc('\n', stdout);
	if (bisect_report(stdout, &sum, steps) < 0)
		err = 1;
	printf("\nreport and each step's results: %s\n", b->s.out);
	json_decref(steps);
	return err ? -1 : 0;
}

/* bisect_do's work, the build folder locked. */
static int bisect_locked(struct bisect_run *b)
{
	int ret, undo;

	if (journal_open(false) < 0 || journal_add(bisect_undo_record(b->s.tree, b->original, b->s.scratch)) < 0)
		return EXIT_FAIL;
	b->s.driver = getpid();
	b->s.driver_start = proc_starttime(0);
	b->t0 = mono_s();
	fprintf(stderr, "bisect: %d revision(s) from good to bad: about %d step(s) after the good revision\n",
		b->candidates, b->candidates > 1 ? (int)ceil(log2(b->candidates)) : 0);
	ret = b->candidates > 0 ? bisect_git_run(b) : -1;
	if (ret == 0 || ret == -1)
		ret = write_report(b) < 0 || ret < 0 || !*b->first_bad ? EXIT_FAIL : EXIT_OK;
	undo = journal_undo_all();
	if (ret == -2 || stop_requested()) {
		pr_warn("bisect: stopped by signal %d; the tree is back at %s%s; the steps so far are in %s",
			stop_signal() ? stop_signal() : SIGTERM, b->original, undo ? " except as said above" : "",
			b->s.out);
		if (stop_signal()) {
			signal(stop_signal(), SIG_DFL);
			raise(stop_signal());
		}
		return 128 + (stop_signal() ? stop_signal() : SIGTERM);
	}
	return undo ? EXIT_FAIL : ret;
}

/*
 * After the checks: the build folder's lock, journal, output folder, the
 * bisect, the report, the tree reset. The lock is held from before the
 * first checkout to after the reset, across the steps' builds and boots
 * (their `kernel build` takes it as its own): a `kernel config` or
 * `kernel build` of the same folder waits for the whole bisect.
 */
static int bisect_do(struct bisect_run *b)
{
	int ret, lock;

	signals_install();
	lock = kbuild_lock(*b->s.build ? b->s.build : b->s.tree, "bisect", true);
	if (lock < 0)
		return stop_requested() ? 128 + stop_signal() : EXIT_FAIL;
	ret = bisect_locked(b);
	close(lock);
	return ret;
}

int bisect_main(const struct bisect_opts *o)
{
	struct bisect_run b = { 0 };
	int ret;

	if (bisect_git_env() < 0 || check_usage(&b, o) < 0 || journal_check(true) < 0)
		return EXIT_USAGE;
	if (make_scratch(&b) < 0)
		return EXIT_FAIL;
	if (check_run_args(&b, o) < 0) {
		rm_rf(b.s.scratch);
		bisect_state_free(&b.s);
		return EXIT_USAGE;
	}
	if (open_out(&b, o) < 0) {
		rm_rf(b.s.scratch);
		bisect_state_free(&b.s);
		return EXIT_FAIL;
	}
	ret = bisect_do(&b);
	if (is_dir(b.s.scratch)) /* the journal could not be opened */
		rm_rf(b.s.scratch);
	bisect_state_free(&b.s);
	json_decref(b.suspects);
	return ret;
}
