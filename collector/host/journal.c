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
#include "files.h"
#include "hostwide.h"
#include "log.h"
#include "measuring.h"

/* This process's journal files: changes to this host, and changes on another host. */
enum { J_HOST, J_PEER, J_FILES };

static struct {
	int fd;
	char path[PATH_MAX];
} jf[J_FILES] = { { .fd = -1 }, { .fd = -1 } };
static bool opened;
static bool dry;
static int seq;
static unsigned char *seq_file; /* which file holds record seq */
static size_t seq_cap;
static int hostwide_at = -1;    /* the last seq before the host-wide lock was taken */
static json_t *dry_undo; /* in dry-run: the undo records, printed at the end */
static json_t *dead_changes; /* what dead runs' journals hold that runs share (dead_scan) */

static const char *jdir_of(int which)
{
	return which == J_PEER ? journal_peer_dir() : journal_dir();
}

bool journal_dry_run(void)
{
	return dry;
}

int journal_check(bool peer)
{
	char why[PATH_MAX + 300];

	for (int i = 0; i <= (peer ? J_PEER : J_HOST); i++) {
		int fd = jdir_open(jdir_of(i), true, why, sizeof(why));

		if (fd < 0) {
			pr_warn("journal: %s", why);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/*
 * A new file in dirfd for the journal, locked before anyone can see it:
 * made unnamed (O_TMPFILE) and locked, then given its name. A journal
 * visible before its lock could be taken for a dead run's by a `cleanup`
 * in between, and unlinked. -1 with errno EOPNOTSUPP where the folder's
 * file system has no O_TMPFILE.
 */
static int create_locked(int dirfd, const char *dir, char *name, size_t nlen, long long start, char *why,
			 size_t len)
{
	char proc[64];
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600), rc = -1;

	if (fd < 0) {
		if (errno == EISDIR || errno == EOPNOTSUPP)
			errno = EOPNOTSUPP;
		snprintf(why, len, "cannot make a journal in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(why, len, "cannot lock a new journal in %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int n = 0; n < 100 && rc < 0; n++) {
		if (n)
			snprintf(name, nlen, "journal-%d-%lld-%d.jsonl", (int)getpid(), start, n);
		else
			snprintf(name, nlen, "journal-%d-%lld.jsonl", (int)getpid(), start);
		rc = linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	if (rc < 0) {
		snprintf(why, len, "cannot name the journal %s/%s: %s", dir, name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Make this process's journal file in folder `which`: journal-PID-START.jsonl,
 * never over a file that is there (a killed run's, whose pid we got after
 * a reboot with the same start time is never opened, let alone emptied),
 * and locked before it has its name (create_locked).
 */
static int create_file(int which)
{
	const char *dir = jdir_of(which);
	char why[PATH_MAX + 300], name[96] = "";
	long long start = proc_starttime(0);
	int dirfd = jdir_open(dir, true, why, sizeof(why)), fd = -1;

	if (dirfd < 0) {
		pr_warn("journal: %s", why);
		return -1;
	}
	fd = create_locked(dirfd, dir, name, sizeof(name), start, why, sizeof(why));
	/* the folder's entry on disk too (the peer folder is not a tmpfs) */
	if (fd >= 0 && fsync(dirfd) < 0) {
		snprintf(why, sizeof(why), "cannot sync %s: %s", dir, strerror(errno));
		unlinkat(dirfd, name, 0);
		close(fd);
		fd = -1;
	}
	close(dirfd);
	if (fd < 0) {
		pr_warn("journal: %s", why);
		return -1;
	}
	jf[which].fd = fd;
	snprintf(jf[which].path, sizeof(jf[which].path), "%s/%s", dir, name);
	return 0;
}

int journal_open(bool dry_run)
{
	dry = dry_run;
	if (dry)
		return 0;
	if (create_file(J_HOST) < 0)
		return -1;
	opened = true;
	return 0;
}

static int write_line(int fd, json_t *rec)
{
	char *line = json_dumps(rec, JSON_COMPACT);
	int err = 0;

	if (!line)
		return -1;
	if (dprintf(fd, "%s\n", line) < 0 || fsync(fd) < 0)
		err = -1;
	free(line);
	return err;
}

/*
 * Which file a record goes to: what outlives a reboot of this host (a
 * change on the peer; a bisect, whose state is in the tree on disk) to
 * the folder that outlives it too.
 */
static int file_for(json_t *undo)
{
	const char *kind = json_string_value(json_object_get(undo, "kind"));

	return kind && (!strcmp(kind, "remote-argv") || !strcmp(kind, "bisect")) ? J_PEER : J_HOST;
}

int journal_add(json_t *undo)
{
	int which = file_for(undo), err;

	if (dry) {
		if (!dry_undo)
			dry_undo = json_array();
		json_array_append_new(dry_undo, undo);
		return 0;
	}
	if (!opened || (jf[which].fd < 0 && create_file(which) < 0)) {
		json_decref(undo);
		return -1;
	}
	if ((size_t)seq + 2 > seq_cap) {
		size_t cap = seq_cap ? 2 * seq_cap : 256;
		unsigned char *n = realloc(seq_file, cap);

		if (!n) {
			json_decref(undo);
			return -1;
		}
		memset(n + seq_cap, 0, cap - seq_cap);
		seq_file = n;
		seq_cap = cap;
	}
	json_object_set_new(undo, "seq", json_integer(++seq));
	seq_file[seq] = (unsigned char)which;
	err = write_line(jf[which].fd, undo);
	json_decref(undo);
	if (err)
		pr_warn("journal: cannot write %s: %s", jf[which].path, strerror(errno));
	return err;
}

int journal_last(void)
{
	return dry || !opened ? 0 : seq;
}

static int mark_done(int fd, long long s, bool made)
{
	json_t *m = json_pack("{s:I}", "done", (json_int_t)s);
	int err;

	if (!made)
		json_object_set_new(m, "why", json_string("not made"));
	err = write_line(fd, m);
	json_decref(m);
	return err;
}

int journal_cancel(int s)
{
	if (dry || !opened || s <= 0 || s > seq)
		return 0;
	if (mark_done(jf[seq_file[s]].fd, s, false) < 0) {
		pr_warn("journal: cannot write %s: %s", jf[seq_file[s]].path, strerror(errno));
		return -1;
	}
	return 0;
}

int journal_amend(int s, json_t *undo)
{
	int err;

	if (dry || !opened || s <= 0 || s > seq) {
		json_decref(undo);
		return dry ? 0 : -1;
	}
	json_object_set_new(undo, "amend", json_integer(s));
	err = write_line(jf[seq_file[s]].fd, undo);
	json_decref(undo);
	if (err)
		pr_warn("journal: cannot write %s: %s", jf[seq_file[s]].path, strerror(errno));
	return err;
}

static json_t *dead_scan(void);
static bool dead_conflict(const char *what, char *why, size_t len);

int journal_hostwide(const char *what, char *why, size_t len)
{
	if (dry)
		return 0;
	if (!hostwide_locked()) {
		if (hostwide_lock(why, len) < 0)
			return -1;
		hostwide_at = seq;
		/* no other run changes what runs share while we hold the lock, and cleanup waits for it */
		json_decref(dead_changes);
		dead_changes = dead_scan();
	}
	if (!dead_conflict(what, why, len))
		return 0;
	if (hostwide_at == seq) { /* nothing changed under the lock yet: give it back */
		hostwide_unlock();
		hostwide_at = -1;
	}
	return -1;
}

static json_t *argv_json(char *const argv[])
{
	json_t *a = json_array();

	for (int i = 0; argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
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
	return exec_status(st, errout, err);
}

/*
 * The records of a journal that are still to be undone (without "done"
 * markers and what they mark), each tagged with the file it is in. A line
 * that cannot be read is reported and counted in *bad: the change it
 * records is not undone, so the journal is kept. A last line without its
 * newline is the exception: the run died writing it, before the change it
 * records (a change is made only after its record is on disk).
 */
static json_t *journal_read(int fd, const char *path, int which, bool quiet, int *bad)
{
	json_t *recs = json_array(), *done = json_object(), *amends = json_object();
	char *text = file_read_fd(fd, NULL), *line, *next;
	int lineno = 0;

	if (!text) {
		if (!quiet)
			pr_warn("journal: cannot read %s: %s", path, strerror(errno));
		(*bad)++;
	}
	for (line = text; line && *line; line = next) {
		json_error_t jerr;
		json_t *r, *d;
		char *nl = strchr(line, '\n');

		lineno++;
		next = nl ? nl + 1 : line + strlen(line);
		if (!nl) {
			if (!quiet)
				pr_info("journal: %s line %d is torn (its run died writing it, before making the change): ignored",
					path, lineno);
			break;
		}
		*nl = '\0';
		r = json_loads(line, 0, &jerr);
		if (r && (d = json_object_get(r, "done")) && json_is_integer(d)) {
			char key[32];

			snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(d));
			json_object_set_new(done, key, json_true());
			json_decref(r);
			continue;
		}
		if (r && (d = json_object_get(r, "amend")) && json_is_integer(d) &&
		    json_is_string(json_object_get(r, "kind"))) {
			char key[32];

			snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(d));
			json_object_del(r, "amend");
			json_object_set_new(amends, key, r); /* the last one counts */
			continue;
		}
		if (!json_is_object(r) || !json_is_integer(json_object_get(r, "seq")) ||
		    !json_is_string(json_object_get(r, "kind"))) {
			if (!quiet)
				pr_warn("journal: %s line %d cannot be read (%s): the change it records is not undone; the journal is kept",
					path, lineno, r ? "not an undo record with a kind and a seq" : jerr.text);
			(*bad)++;
			json_decref(r);
			continue;
		}
		json_object_set_new(r, "_file", json_integer(which));
		json_array_append_new(recs, r);
	}
	free(text);

	/* drop records that were already undone (or never made); amend the others */
	for (size_t i = json_array_size(recs); i-- > 0;) {
		json_t *r = json_array_get(recs, i), *a;
		char key[32];

		snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(json_object_get(r, "seq")));
		if (json_object_get(done, key)) {
			json_array_remove(recs, i);
		} else if ((a = json_object_get(amends, key))) {
			json_object_set(a, "seq", json_object_get(r, "seq"));
			json_object_set(a, "_file", json_object_get(r, "_file"));
			json_array_set(recs, i, a);
		}
	}
	json_decref(done);
	json_decref(amends);
	return recs;
}

static int by_seq_desc(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "seq"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "seq"));

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Undo the records after seq `after` of the journal files fds[] (NULL-path
 * entries skipped), newest first across the files, marking each done in its
 * own file. failures[i] counts what file i keeps: failed undos and lines
 * that cannot be read. Returns their sum.
 */
static int undo_files(const int fds[], char paths[][PATH_MAX], int nfiles, int after, int failures[])
{
	json_t *all = json_array();
	json_t **v;
	size_t n;
	int total = 0;

	for (int i = 0; i < nfiles; i++) {
		json_t *recs;

		failures[i] = 0;
		if (fds[i] < 0)
			continue;
		recs = journal_read(fds[i], paths[i], i, false, &failures[i]);
		json_array_extend(all, recs);
		json_decref(recs);
	}
	n = json_array_size(all);
	v = calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		v[i] = json_array_get(all, i);
	if (v)
		qsort(v, n, sizeof(*v), by_seq_desc);
	for (size_t i = 0; v && i < n; i++) {
		json_int_t s = json_integer_value(json_object_get(v[i], "seq"));
		int f = (int)json_integer_value(json_object_get(v[i], "_file")), rc;

		if (s <= after)
			continue;
		json_object_del(v[i], "_file");
		rc = journal_undo_one(v[i]);
		if (rc != 0)
			failures[f]++;
		/* a failed undo stays in the journal, for `ipsecperf cleanup` to try again */
		if (rc == 0 || rc == JOURNAL_LEFT)
			mark_done(fds[f], s, true);
	}
	free(v);
	json_decref(all);
	for (int i = 0; i < nfiles; i++)
		total += failures[i];
	return total;
}

static int undo_own(int after, int failures[J_FILES])
{
	int fds[J_FILES] = { jf[J_HOST].fd, jf[J_PEER].fd };
	char paths[J_FILES][PATH_MAX];

	for (int i = 0; i < J_FILES; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s", jf[i].path);
	return undo_files(fds, paths, J_FILES, after, failures);
}

static void print_undo(json_t *r);

int journal_mark(void)
{
	return dry ? (int)json_array_size(dry_undo) : seq;
}

int journal_undo_to(int mark)
{
	int failures[J_FILES], total;

	if (dry) {
		for (size_t i = json_array_size(dry_undo); i-- > (size_t)mark;) {
			print_undo(json_array_get(dry_undo, i));
			json_array_remove(dry_undo, i);
		}
		return 0;
	}
	if (!opened)
		return 0;
	total = undo_own(mark, failures);
	/* every host-wide change made since the lock was taken is undone: give it back */
	if (!total && hostwide_locked() && hostwide_at >= mark) {
		hostwide_unlock();
		hostwide_at = -1;
	}
	return total;
}

int journal_undo_all(void)
{
	int failures[J_FILES], total;

	if (dry) {
		if (json_array_size(dry_undo))
			printf("# at the end, undone in reverse order:\n");
		for (size_t i = json_array_size(dry_undo); i-- > 0;)
			print_undo(json_array_get(dry_undo, i));
		json_decref(dry_undo);
		dry_undo = NULL;
		return 0;
	}
	if (!opened)
		return 0;
	total = undo_own(0, failures);
	for (int i = 0; i < J_FILES; i++) {
		if (jf[i].fd < 0)
			continue;
		if (failures[i])
			pr_warn("journal: %d change(s) could not be undone; %s is kept for `ipsecperf cleanup`",
				failures[i], jf[i].path);
		else
			unlink(jf[i].path);
		close(jf[i].fd);
		jf[i].fd = -1;
	}
	hostwide_unlock();
	opened = false;
	free(seq_file);
	seq_file = NULL;
	seq_cap = 0;
	return total;
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
	json_object_del(r, "_file");
	char *s = json_dumps(r, JSON_COMPACT);

	printf("# undo %s: %s\n", kind ? kind : "?", s ? s : "");
	free(s);
}

/* ---- dead runs' journals ---- */

/* A journal in dirfd that no live run holds (its run was killed), opened; -1 if none. */
static int dead_open(int dirfd, const char *dir, const char *name)
{
	char why[PATH_MAX + 300];
	int fd;

	if (strncmp(name, "journal-", 8))
		return -1;
	/* one cleanup refuses (a link, not root's) was never a run's */
	fd = jdir_openat(dirfd, dir, name, O_RDONLY, 0, why, sizeof(why));
	if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The changes to what runs share in one dead journal (journal_target), appended to into. */
static void dead_read(int fd, const char *path, json_t *into)
{
	int bad = 0;
	json_t *recs = journal_read(fd, path, 0, true, &bad), *r;
	char buf[128];
	size_t i;

	json_array_foreach(recs, i, r) {
		const char *t = journal_target(r, buf, sizeof(buf));

		if (t)
			json_array_append_new(into, json_pack("{s:s, s:s}", "target", t, "journal", path));
	}
	if (bad) /* a line it cannot read may record anything */
		json_array_append_new(into, json_pack("{s:s, s:s}", "target", "*", "journal", path));
	json_decref(recs);
}

/*
 * Every change to what runs share that dead runs' journals hold, in both
 * folders: objects {"target", "journal"}.
 */
static json_t *dead_scan(void)
{
	json_t *all = json_array();

	for (int i = 0; i < J_FILES; i++) {
		char why[PATH_MAX + 300], path[PATH_MAX + 300];
		int dirfd = jdir_open(jdir_of(i), false, why, sizeof(why)), fd;
		DIR *d = dirfd >= 0 ? fdopendir(dup(dirfd)) : NULL;
		struct dirent *de;

		while (d && (de = readdir(d))) {
			if ((fd = dead_open(dirfd, jdir_of(i), de->d_name)) < 0)
				continue;
			fmt_buf(path, sizeof(path), "%s/%s", jdir_of(i), de->d_name);
			dead_read(fd, path, all);
			close(fd);
		}
		if (d)
			closedir(d);
		if (dirfd >= 0)
			close(dirfd);
	}
	return all;
}

/* Does a dead run's journal hold a change to what (or to what it cannot name)? why says which. */
static bool dead_conflict(const char *what, char *why, size_t len)
{
	size_t i;
	json_t *c;

	json_array_foreach(dead_changes, i, c) {
		const char *t = json_string_value(json_object_get(c, "target"));
		char name[128];

		if (strcmp(t, "*") && strcmp(t, what))
			continue;
		if (!strncmp(t, "dev:", 4))
			fmt_buf(name, sizeof(name), "device %s", t + 4);
		else
			fmt_buf(name, sizeof(name), "%s", strcmp(t, "*") ? "the kernel modules" : "the host");
		snprintf(why, len, "%s, the journal of a run that is gone, holds a change to %s not undone (this run would take it for the host's own): run `ipsecperf cleanup` first",
			 json_string_value(json_object_get(c, "journal")), name);
		return true;
	}
	return false;
}

/* Is there a journal of a dead run in any of the folders? */
static bool any_dead(const int dirfd[J_FILES])
{
	bool found = false;

	for (int i = 0; i < J_FILES && !found; i++) {
		DIR *d = dirfd[i] >= 0 ? fdopendir(dup(dirfd[i])) : NULL;
		struct dirent *de;
		int fd;

		if (d)
			rewinddir(d);
		while (d && !found && (de = readdir(d)))
			if ((fd = dead_open(dirfd[i], jdir_of(i), de->d_name)) >= 0) {
				found = true;
				close(fd);
			}
		if (d)
			closedir(d);
	}
	return found;
}

/* Undo (or, dry, print) one dead run's journal in dirfd; returns what it keeps. */
static int cleanup_one(int dirfd, const char *dir, const char *name, bool dry_run, int *found)
{
	char why[PATH_MAX + 300], paths[1][PATH_MAX];
	int fd = jdir_openat(dirfd, dir, name, O_RDWR | O_APPEND, 0, why, sizeof(why));
	int failures[1] = { 0 }, f;

	if (fd < 0) {
		pr_warn("cleanup: %s; not undone", why);
		return 1;
	}
	snprintf(paths[0], sizeof(paths[0]), "%s/%s", dir, name);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		pr_info("cleanup: %s belongs to a run still going; left alone", paths[0]);
		close(fd);
		return 0;
	}
	(*found)++;
	if (dry_run) {
		json_t *recs = journal_read(fd, paths[0], 0, false, &failures[0]);

		for (size_t i = json_array_size(recs); i-- > 0;)
			print_undo(json_array_get(recs, i));
		json_decref(recs);
		close(fd);
		return failures[0];
	}
	f = undo_files(&fd, paths, 1, 0, failures);
	if (!f)
		unlinkat(dirfd, name, 0);
	close(fd);
	return f;
}

int journal_cleanup_stale(bool dry_run, int *found)
{
	char why[PATH_MAX + 300];
	int dirfd[J_FILES], failures = 0;
	bool locked = false;

	*found = 0;
	/* both folders checked before anything is undone: a refused one means nothing is done */
	for (int i = 0; i < J_FILES; i++) {
		dirfd[i] = jdir_open(jdir_of(i), false, why, sizeof(why));
		if (dirfd[i] < 0 && errno != ENOENT) {
			pr_warn("cleanup: %s", why);
			for (int j = 0; j < i; j++)
				if (dirfd[j] >= 0)
					close(dirfd[j]);
			return -1;
		}
	}
	/*
	 * Under the host-wide lock, as a run's changes are: never while a run
	 * sets or reads back what the whole host shares (it waits, and says for whom).
	 */
	if (!dry_run && any_dead(dirfd) && !hostwide_locked()) {
		if (hostwide_lock(why, sizeof(why)) < 0) {
			pr_warn("cleanup: %s; nothing undone", why);
			for (int i = 0; i < J_FILES; i++)
				if (dirfd[i] >= 0)
					close(dirfd[i]);
			return 1;
		}
		locked = true;
	}
	for (int i = 0; i < J_FILES; i++) {
		DIR *d = dirfd[i] >= 0 ? fdopendir(dup(dirfd[i])) : NULL;
		struct dirent *de;

		if (d)
			rewinddir(d);
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, "journal-", 8))
				failures += cleanup_one(dirfd[i], jdir_of(i), de->d_name, dry_run, found);
		if (d)
			closedir(d);
		if (dirfd[i] >= 0 && !dry_run) {
			hostwide_cleanup_stale(dirfd[i]);
			measuring_cleanup_stale(dirfd[i]);
		}
		if (dirfd[i] >= 0)
			close(dirfd[i]);
	}
	if (locked)
		hostwide_unlock();
	return failures;
}
