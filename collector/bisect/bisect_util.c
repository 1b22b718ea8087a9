// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf bisect`: its state, git, stoppable children, its journal record. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect_util.h"
#include "exec.h"
#include "files.h"
#include "journal_dir.h"
#include "log.h"
#include "signals.h"

#define GIT_MAX_ARGS 32

/* ---- the state a step reads ---- */

int bisect_state_save(const struct bisect_state *s, const char *path)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:b,"
			      " s:O, s:O, s:I, s:I, s:s}",
			      "tree", s->tree, "build", s->build, "out", s->out, "scratch", s->scratch, "self",
			      s->self, "good", s->good, "bad", s->bad, "good_tree", s->good_tree, "good_kernel",
			      s->good_kernel, "good_release", s->good_release, "metric", s->metric, "threshold",
			      s->threshold, "alpha", s->alpha, "repeat", s->repeat, "jobs", s->jobs, "no_cache",
			      s->no_cache, "run_opts", s->run_opts, "scenarios", s->scenarios, "driver",
			      (json_int_t)s->driver, "driver_start", (json_int_t)s->driver_start, "clock", s->clock);
	int err = !j || json_dump_file(j, path, JSON_COMPACT) < 0;

	json_decref(j);
	if (err)
		pr_warn("bisect: cannot write %s", path);
	return err ? -1 : 0;
}

static int copy_str(json_t *j, const char *key, char *dst, size_t len)
{
	const char *v = json_string_value(json_object_get(j, key));

	if (!v || strlen(v) >= len)
		return -1;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

int bisect_state_load(struct bisect_state *s, const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	*s = (struct bisect_state){ 0 };
	if (!j || copy_str(j, "tree", s->tree, sizeof(s->tree)) || copy_str(j, "build", s->build, sizeof(s->build)) ||
	    copy_str(j, "out", s->out, sizeof(s->out)) || copy_str(j, "scratch", s->scratch, sizeof(s->scratch)) ||
	    copy_str(j, "self", s->self, sizeof(s->self)) || copy_str(j, "good", s->good, sizeof(s->good)) ||
	    copy_str(j, "bad", s->bad, sizeof(s->bad)) ||
	    copy_str(j, "good_tree", s->good_tree, sizeof(s->good_tree)) ||
	    copy_str(j, "good_kernel", s->good_kernel, sizeof(s->good_kernel)) ||
	    copy_str(j, "good_release", s->good_release, sizeof(s->good_release)) ||
	    copy_str(j, "metric", s->metric, sizeof(s->metric)) || copy_str(j, "clock", s->clock, sizeof(s->clock)) ||
	    !json_is_array(json_object_get(j, "run_opts")) || !json_is_array(json_object_get(j, "scenarios"))) {
		pr_warn("bisect-step: %s: %s", path, j ? "not a bisect's state" : e.text);
		json_decref(j);
		return -1;
	}
	s->threshold = json_number_value(json_object_get(j, "threshold"));
	s->alpha = json_number_value(json_object_get(j, "alpha"));
	s->repeat = (int)json_integer_value(json_object_get(j, "repeat"));
	s->jobs = (int)json_integer_value(json_object_get(j, "jobs"));
	s->no_cache = json_is_true(json_object_get(j, "no_cache"));
	s->run_opts = json_incref(json_object_get(j, "run_opts"));
	s->scenarios = json_incref(json_object_get(j, "scenarios"));
	s->driver = (pid_t)json_integer_value(json_object_get(j, "driver"));
	s->driver_start = json_integer_value(json_object_get(j, "driver_start"));
	json_decref(j);
	return 0;
}

void bisect_state_free(struct bisect_state *s)
{
	json_decref(s->run_opts);
	json_decref(s->scenarios);
	s->run_opts = s->scenarios = NULL;
}

/* ---- git ---- */

int bisect_git_env(void)
{
	return safe_git_config_env("gc.auto", "0") < 0 || safe_git_env() < 0 ? -1 : 0;
}

static int git_va(const char *tree, char **out, char **err, va_list ap)
{
	char *argv[GIT_MAX_ARGS + 8] = { BISECT_GIT_ARGV, "-C", (char *)tree };
	int n = BISECT_GIT_ARGC + 2;
	const char *a;

	while ((a = va_arg(ap, const char *)) && n < GIT_MAX_ARGS + BISECT_GIT_ARGC)
		argv[n++] = (char *)a;
	argv[n] = NULL;
	return exec_run(NULL, argv, out, err);
}

int bisect_git(const char *tree, char **out, char **err, ...)
{
	va_list ap;
	int st;

	va_start(ap, err);
	st = git_va(tree, out, err, ap);
	va_end(ap);
	return st;
}

int bisect_git_line(const char *tree, char *buf, size_t len, ...)
{
	char *out = NULL;
	va_list ap;
	int st;

	va_start(ap, len);
	st = git_va(tree, &out, NULL, ap);
	va_end(ap);
	fmt_buf(buf, len, "%.*s", out ? (int)strcspn(out, "\n") : 0, out ? out : "");
	msg_trim(buf);
	free(out);
	return st;
}

int bisect_describe(const char *tree, const char *rev, char *shortsha, size_t slen, char *subject, size_t sublen)
{
	char spec[64];

	fmt_buf(spec, sizeof(spec), "%s^{commit}", rev);
	if (bisect_git_line(tree, shortsha, slen, "rev-parse", "--short=12", "--verify", "--quiet", spec, NULL) ||
	    bisect_git_line(tree, subject, sublen, "log", "-1", "--format=%s", rev, "--", NULL))
		return -1;
	/* a subject is the commit author's text: shown, never interpreted, but kept printable */
	for (char *p = subject; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return 0;
}

/* ---- children that stop with the bisect ---- */

static void stop_flag_path(const struct bisect_state *s, char *buf, size_t len)
{
	fmt_buf(buf, len, "%s/stop", s->scratch);
}

bool bisect_stopping(const struct bisect_state *s)
{
	char flag[PATH_MAX + 8];

	if (stop_requested())
		return true;
	stop_flag_path(s, flag, sizeof(flag));
	if (access(flag, F_OK) == 0)
		return true;
	return s->driver > 0 && s->driver != getpid() && proc_starttime(s->driver) != s->driver_start;
}

void bisect_request_stop(const struct bisect_state *s)
{
	char flag[PATH_MAX + 8];

	stop_flag_path(s, flag, sizeof(flag));
	if (file_write(flag, "stop\n", 5) < 0)
		pr_warn("bisect: cannot write %s: %s", flag, strerror(errno));
}

static bool stopping(const void *s)
{
	return bisect_stopping(s);
}

int bisect_spawn_wait(const struct bisect_state *s, char *const argv[], int fd, int grace_ms, bool *stopped)
{
	struct spawn_opts o = { .cpu = -1, .stdout_fd = fd, .stderr_fd = fd };
	char late[300];
	/* the child unwinds through its own journal: give it time */
	struct exec_stopper stop = { .stopping = stopping, .arg = s, .grace_ms = grace_ms, .late = late };
	pid_t pid;

	*stopped = false;
	if (bisect_stopping(s)) {
		*stopped = true;
		return 128 + SIGTERM;
	}
	fmt_buf(late, sizeof(late), "bisect: %s did not stop in %d s; killing it", argv[1] ? argv[1] : argv[0],
		grace_ms / 1000);
	pid = exec_spawn(argv, &o);
	if (pid < 0)
		return -1;
	return exec_wait_stoppable(pid, &stop, stopped);
}

/* ---- the steps' records ---- */

int bisect_steps_append(const char *out, json_t *step)
{
	char path[PATH_MAX + 16], *line = json_dumps(step, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int fd, err = -1;

	json_decref(step);
	fmt_buf(path, sizeof(path), "%s/steps.jsonl", out);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (line && fd >= 0 && dprintf(fd, "%s\n", line) > 0 && fsync(fd) == 0)
		err = 0;
	if (err)
		pr_warn("bisect: cannot append to %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(line);
	return err;
}

json_t *bisect_steps_read(const char *out)
{
	char path[PATH_MAX + 16], *text, *save = NULL;
	json_t *all = json_array();
	int lineno = 0;

	fmt_buf(path, sizeof(path), "%s/steps.jsonl", out);
	text = file_read(path, NULL);
	if (!text)
		return errno == ENOENT ? all : (pr_warn("bisect: cannot read %s: %s", path, strerror(errno)),
						json_decref(all), NULL);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL);

		lineno++;
		if (!json_is_object(j)) {
			pr_warn("bisect: %s:%d: not a step's record", path, lineno);
			json_decref(j);
			json_decref(all);
			all = NULL;
			break;
		}
		json_array_append_new(all, j);
	}
	free(text);
	return all;
}

/* ---- the journal ---- */

json_t *bisect_undo_record(const char *tree, const char *original, const char *scratch)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "kind", "bisect", "tree", tree, "original", original, "scratch",
			 scratch);
}

/* Is tree in the middle of the bisect that started from original? */
static bool our_bisect(const char *tree, const char *original)
{
	char rel[PATH_MAX], path[2 * PATH_MAX], start[256] = "";

	if (bisect_git_line(tree, rel, sizeof(rel), "rev-parse", "--git-path", "BISECT_START", NULL) || !*rel)
		return false;
	if (rel[0] == '/')
		fmt_buf(path, sizeof(path), "%s", rel);
	else
		fmt_buf(path, sizeof(path), "%s/%s", tree, rel);
	if (file_read_line(path, start, sizeof(start)) < 0)
		return false;
	msg_trim(start);
	return !strcmp(start, original);
}

int bisect_undo(json_t *r)
{
	const char *tree = json_string_value(json_object_get(r, "tree"));
	const char *original = json_string_value(json_object_get(r, "original"));
	const char *scratch = json_string_value(json_object_get(r, "scratch"));
	const char *base = scratch ? strrchr(scratch, '/') : NULL;
	int ret = 0;

	if (!tree || !original || !scratch || !base || strncmp(base, "/ipsecperf-bisect.", 18)) {
		pr_warn("undo: a bisect record without its tree, start or scratch folder");
		return -1;
	}
	if (is_dir(tree) && our_bisect(tree, original)) {
		char *err = NULL;
		int st = bisect_git(tree, NULL, &err, "bisect", "reset", NULL);

		if (st != 0) {
			msg_trim(err);
			pr_warn("undo: git -C %s bisect reset failed: %s", tree, err && *err ? err : "no message");
			ret = -1;
		}
		free(err);
	}
	/*
	 * By descriptor, and only a folder of ours: after a reboot /tmp may
	 * have been emptied and the name taken by someone else.
	 */
	char why[PATH_MAX + 128];
	int rc = safe_rm_tree(scratch, why, sizeof(why));

	if (rc < 0) {
		pr_warn("undo: %s", why);
		ret = -1;
	} else if (rc > 0) {
		pr_info("undo: %s", why);
	}
	return ret;
}
