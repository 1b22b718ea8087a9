// SPDX-License-Identifier: GPL-2.0
/* A results directory: found, checked, loaded (meta.json, runs.jsonl) and merged with others. */
#include "results.h"
#include "results_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

static char *path_join(const char *dir, const char *file)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, file) < 0)
		return NULL;
	return p;
}

int results_check_dir(const char *dir, char *err, size_t errlen)
{
	char shown[256], what[48];
	const char *p = results_bad_char(dir, strlen(dir));

	if (!p)
		return 0;
	return results_fail(err, errlen,
		    "%s: the directory's name holds a control character (%s); a name is data: rename the directory",
		    results_printable(dir, shown, sizeof(shown)), results_bad_char_what(dir, p, what, sizeof(what)));
}

int results_newest(const char *parent, char *out, size_t len)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	struct timespec best = { 0, 0 };
	bool found = false;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char meta[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' || !results_name_ok(e->d_name))
			continue;
		snprintf(meta, sizeof(meta), "%s/%s/meta.json", parent, e->d_name);
		if (lstat(meta, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (found && (st.st_mtim.tv_sec < best.tv_sec ||
			      (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec <= best.tv_nsec)))
			continue;
		best = st.st_mtim;
		found = true;
		snprintf(out, len, "%s/%s", parent, e->d_name);
	}
	closedir(d);
	return found ? 0 : -1;
}

int results_default_dir(const char *cmd, char *out, size_t len)
{
	if (results_newest("results", out, len) < 0) {
		pr_warn("%s: no results directory given, and none under results/ here; give one (DIR...)", cmd);
		return -1;
	}
	pr_info("%s: %s, the newest under results/", cmd, out);
	return 0;
}

int results_dir_expected(const char *cmd, const char *dir)
{
	char meta[PATH_MAX], newest[PATH_MAX], shown[256];
	const char *what = "not a results directory (no meta.json)";
	struct stat st;

	snprintf(meta, sizeof(meta), "%s/meta.json", dir);
	if (lstat(meta, &st) == 0 || results_bad_char(dir, strlen(dir)))
		return 0; /* the loader says what is wrong with it */
	if (stat(dir, &st) < 0)
		what = strerror(errno);
	results_printable(dir, shown, sizeof(shown));
	if (results_newest("results", newest, sizeof(newest)) == 0)
		pr_warn("%s: %s: %s; the newest under results/ is %s: ipsecperf %s %s", cmd, shown, what, newest, cmd,
			newest);
	else
		pr_warn("%s: %s: %s; there is none under results/ either: `ipsecperf run` makes one", cmd, shown, what);
	return -1;
}

int results_dirs_expected(const char *cmd, int n, char *const *dirs)
{
	for (int i = 0; i < n; i++)
		if (strcmp(dirs[i], "--") && results_dir_expected(cmd, dirs[i]) < 0)
			return -1;
	return 0;
}

int results_load(const char *dir, struct results *r, char *err, size_t errlen)
{
	char *buf = NULL;
	struct stat st;
	size_t len;
	int err_ret = -1;

	memset(r, 0, sizeof(*r));
	if (results_check_dir(dir, err, errlen) < 0)
		return -1;
	if (stat(dir, &st) < 0)
		return results_fail(err, errlen, "%s: %s (a results directory from `ipsecperf run` expected)",
			    dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return results_fail(err, errlen, "%s: not a directory (a results directory expected)", dir);
	r->dir = results_strdup(dir);
	r->runs_path = path_join(dir, "runs.jsonl");
	if (!r->runs_path) {
		results_fail(err, errlen, "%s: out of memory", dir);
		goto out;
	}
	buf = results_read(dir, "meta.json", &len, err, errlen);
	if (!buf)
		goto out;
	{
		char *meta_path = path_join(dir, "meta.json");
		int rc = meta_path ? results_parse_meta(meta_path, buf, len, &r->meta, err, errlen) :
				     results_fail(err, errlen, "%s: out of memory", dir);

		free(meta_path);
		if (rc < 0)
			goto out;
	}
	free(buf);
	buf = results_read(dir, "runs.jsonl", &len, err, errlen);
	if (!buf)
		goto out;
	if (results_parse_runs(r->runs_path, buf, len, r, err, errlen) < 0)
		goto out;
	if (r->nruns == 0) {
		if (r->torn_line)
			results_fail(err, errlen, "%s:%d: no runs recorded, only an incomplete record (no newline at the end)",
			     r->runs_path, r->torn_line);
		else
			results_fail(err, errlen, "%s: no runs recorded", r->runs_path);
		goto out;
	}
	results_warn_torn(r->runs_path, r);
	err_ret = 0;
out:
	free(buf);
	if (err_ret)
		results_free(r);
	return err_ret;
}

void results_free(struct results *r)
{
	for (int i = 0; i < r->nruns; i++)
		results_record_free(&r->runs[i]);
	free(r->runs);
	results_meta_free(&r->meta);
	free(r->dir);
	free(r->runs_path);
	memset(r, 0, sizeof(*r));
}

const char *run_status_name(enum run_status s)
{
	return s == RUN_OK ? "ok" : s == RUN_FAILED ? "failed" : "skipped";
}

int results_merge(struct results *dst, struct results *src)
{
	struct run_record *nr;

	if (!src->nruns) {
		dst->nmerged++;
		return 0;
	}
	nr = realloc(dst->runs, (dst->nruns + src->nruns) * sizeof(*nr));
	if (!nr)
		return -1;
	memcpy(nr + dst->nruns, src->runs, src->nruns * sizeof(*nr));
	for (int i = 0; i < src->nruns; i++)
		nr[dst->nruns + i].source = dst->nmerged;
	dst->runs = nr;
	dst->nruns += src->nruns;
	dst->runs_cap = dst->nruns;
	dst->nmerged++;
	free(src->runs);
	src->runs = NULL;
	src->nruns = src->runs_cap = 0;
	return 0;
}
