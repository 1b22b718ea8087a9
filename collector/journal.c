// SPDX-License-Identifier: GPL-2.0
#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "log.h"

static int jfd = -1;
static char jpath[PATH_MAX];
static bool dry;
static int seq;
static json_t *dry_undo; /* in dry-run: the undo records, printed at the end */

const char *journal_dir(void)
{
	const char *d = getenv("IPSECPERF_JOURNAL_DIR");

	return d && *d ? d : "/run/ipsecperf";
}

bool journal_dry_run(void)
{
	return dry;
}

int journal_open(bool dry_run)
{
	dry = dry_run;
	if (dry)
		return 0;
	if (mkdir(journal_dir(), 0700) < 0 && errno != EEXIST) {
		pr_warn("journal: cannot create %s: %s", journal_dir(), strerror(errno));
		return -1;
	}
	snprintf(jpath, sizeof(jpath), "%s/journal-%d.jsonl", journal_dir(), (int)getpid());
	jfd = open(jpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (jfd < 0 || flock(jfd, LOCK_EX | LOCK_NB) < 0) {
		pr_warn("journal: cannot open %s: %s", jpath, strerror(errno));
		return -1;
	}
	return 0;
}

static int journal_write(json_t *rec)
{
	char *line = json_dumps(rec, JSON_COMPACT);
	int err = 0;

	if (!line)
		return -1;
	if (dprintf(jfd, "%s\n", line) < 0 || fsync(jfd) < 0)
		err = -1;
	free(line);
	return err;
}

int journal_add(json_t *undo)
{
	int err;

	if (dry) {
		if (!dry_undo)
			dry_undo = json_array();
		json_array_append_new(dry_undo, undo);
		return 0;
	}
	if (jfd < 0) {
		json_decref(undo);
		return -1;
	}
	json_object_set_new(undo, "seq", json_integer(++seq));
	err = journal_write(undo);
	json_decref(undo);
	if (err)
		pr_warn("journal: cannot write %s: %s", jpath, strerror(errno));
	return err;
}

static json_t *argv_json(char *const argv[])
{
	json_t *a = json_array();

	for (int i = 0; argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

/* The kernel's start time of a process: tells a reused pid from ours. */
long long proc_starttime(pid_t pid)
{
	char path[64], buf[1024];
	FILE *f;
	char *p;
	long long st = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* field 22 is starttime; p points at the end of field 2 */
		int field = 2;

		for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
			if (++field == 22) {
				st = atoll(tok);
				break;
			}
	}
	fclose(f);
	return st;
}

int journal_add_process(pid_t pid)
{
	json_t *r = json_pack("{s:s, s:i, s:I}", "kind", "process", "pid", (int)pid,
			      "starttime", (json_int_t)proc_starttime(pid));

	return journal_add(r);
}

int host_do(const char *netns, char *const do_argv[], char *const undo_argv[], char **err)
{
	char *errout = NULL;
	int st;

	if (dry)
		exec_print(stdout, netns, do_argv);
	if (undo_argv) {
		json_t *r = json_pack("{s:s, s:o}", "kind", "argv", "argv", argv_json(undo_argv));

		if (netns)
			json_object_set_new(r, "netns", json_string(netns));
		if (journal_add(r) < 0)
			return -1;
	}
	if (dry)
		return 0;
	if (log_verbose) {
		fputs("ipsecperf: + ", stderr);
		exec_print(stderr, netns, do_argv);
	}
	st = exec_run(netns, do_argv, NULL, &errout);
	if (st != 0) {
		msg_trim(errout);
		if (err)
			*err = errout;
		else
			free(errout);
		return -1;
	}
	free(errout);
	return 0;
}

/* Read a journal file into an array of records, without "done" markers. */
static json_t *journal_read(const char *path)
{
	json_t *recs = json_array();
	json_t *done = json_object();
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return recs;
	while (getline(&line, &cap, f) > 0) {
		json_t *r = json_loads(line, 0, NULL);
		json_t *d;

		if (!r)
			continue; /* a torn last line from a crash */
		if ((d = json_object_get(r, "done"))) {
			char key[32];

			snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(d));
			json_object_set_new(done, key, json_true());
			json_decref(r);
			continue;
		}
		json_array_append_new(recs, r);
	}
	free(line);
	fclose(f);

	/* drop records that were already undone */
	for (size_t i = json_array_size(recs); i-- > 0;) {
		char key[32];

		snprintf(key, sizeof(key), "%lld",
			 (long long)json_integer_value(json_object_get(json_array_get(recs, i), "seq")));
		if (json_object_get(done, key))
			json_array_remove(recs, i);
	}
	json_decref(done);
	return recs;
}

/* Undo the records after seq `after` of a journal file, newest first, marking each done. */
static int undo_file(const char *path, int fd, int after)
{
	json_t *recs = journal_read(path);
	int failures = 0;

	for (size_t i = json_array_size(recs); i-- > 0;) {
		json_t *r = json_array_get(recs, i);

		if (json_integer_value(json_object_get(r, "seq")) <= after)
			continue;
		/* a failed undo stays in the journal, for `ipsecperf cleanup` to try again */
		if (journal_undo_one(r) < 0) {
			failures++;
			continue;
		}
		if (fd >= 0) {
			dprintf(fd, "{\"done\":%lld}\n",
				(long long)json_integer_value(json_object_get(r, "seq")));
		}
	}
	json_decref(recs);
	return failures;
}

static void print_undo(json_t *r);

int journal_mark(void)
{
	return dry ? (int)json_array_size(dry_undo) : seq;
}

int journal_undo_to(int mark)
{
	if (dry) {
		for (size_t i = json_array_size(dry_undo); i-- > (size_t)mark;) {
			print_undo(json_array_get(dry_undo, i));
			json_array_remove(dry_undo, i);
		}
		return 0;
	}
	return jfd < 0 ? 0 : undo_file(jpath, jfd, mark);
}

int journal_undo_all(void)
{
	int failures;

	if (dry) {
		if (json_array_size(dry_undo))
			printf("# at the end, undone in reverse order:\n");
		for (size_t i = json_array_size(dry_undo); i-- > 0;)
			print_undo(json_array_get(dry_undo, i));
		json_decref(dry_undo);
		dry_undo = NULL;
		return 0;
	}
	if (jfd < 0)
		return 0;
	failures = undo_file(jpath, jfd, 0);
	if (failures) {
		pr_warn("journal: %d change(s) could not be undone; %s is kept for `ipsecperf cleanup`",
			failures, jpath);
	} else {
		unlink(jpath);
	}
	close(jfd);
	jfd = -1;
	return failures;
}

static void print_undo(json_t *r)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));

	if (kind && !strcmp(kind, "argv")) {
		json_t *a = json_object_get(r, "argv");
		const char *ns = json_string_value(json_object_get(r, "netns"));
		size_t n = json_array_size(a);
		char **argv = calloc(n + 1, sizeof(*argv));

		for (size_t i = 0; i < n; i++)
			argv[i] = (char *)json_string_value(json_array_get(a, i));
		exec_print(stdout, ns, argv);
		free(argv);
		return;
	}
	char *s = json_dumps(r, JSON_COMPACT);

	printf("# undo %s: %s\n", kind ? kind : "?", s ? s : "");
	free(s);
}

int journal_cleanup_stale(bool dry_run, int *found)
{
	DIR *d = opendir(journal_dir());
	struct dirent *de;
	int failures = 0;

	*found = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		int fd;

		if (strncmp(de->d_name, "journal-", 8) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", journal_dir(), de->d_name);
		fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			pr_info("cleanup: %s belongs to a run still going; left alone", path);
			close(fd);
			continue;
		}
		(*found)++;
		if (dry_run) {
			json_t *recs = journal_read(path);

			for (size_t i = json_array_size(recs); i-- > 0;)
				print_undo(json_array_get(recs, i));
			json_decref(recs);
			close(fd);
			continue;
		}
		int f = undo_file(path, fd, 0);

		if (!f)
			unlink(path);
		failures += f;
		close(fd);
	}
	closedir(d);
	return failures;
}
