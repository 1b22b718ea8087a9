// SPDX-License-Identifier: GPL-2.0
/*
 * Undoing only what this run did, piece by piece:
 * - an xfrm policy that is there before the run is named and left alone,
 *   through the journal's undo too; one the run made is undone; an add the
 *   kernel refused leaves no undo behind (root, in a private namespace);
 * - an amended journal record keeps its place in the undo order;
 * - the modules window: only what appeared between its open and its close
 *   is the run's, never what was loaded before or after;
 * - the host-wide lock: a second holder fails with --no-wait, naming the
 *   first, and gets the lock once the first lets go; a run killed after it
 *   set a device's offloads leaves a journal that the next run's change to
 *   that device refuses (until cleanup), not a state it takes for the
 *   device's own; cleanup undoes under the lock, after the holder;
 * - the measuring registry: whose windows overlap whose, for runs alive
 *   and gone.
 * Each test has a journal folder of its own (IPSECPERF_JOURNAL_DIR).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "exec.h"
#include "files.h"
#include "hostwide.h"
#include "ipsec.h"
#include "journal.h"
#include "kmod.h"
#include "measuring.h"
#include "endpoint.h"
#include "offload.h"
#include "undo_kinds.h"
#include "xfrm.h"

static bool in_private_netns;
static char jdir[64];

static int jdir_setup(void **state)
{
	(void)state;
	snprintf(jdir, sizeof(jdir), "/tmp/ipsecperf-unit-journal.XXXXXX");
	if (!mkdtemp(jdir))
		return -1;
	/* a folder of our own, made by the code as a run makes /run/ipsecperf */
	strcat(jdir, "/j");
	setenv("IPSECPERF_JOURNAL_DIR", jdir, 1);
	return 0;
}

static int jdir_teardown(void **state)
{
	char top[64];

	(void)state;
	snprintf(top, sizeof(top), "%.*s", (int)(strlen(jdir) - 2), jdir);
	exec_run(NULL, (char *[]){ "rm", "-rf", top, NULL }, NULL, NULL);
	return 0;
}

static bool policy_there(const char *src, const char *dst)
{
	struct xfrm_pol_spec p = { .family = AF_INET, .dir = XFRM_POLICY_OUT, .proto = IPPROTO_ESP };

	strcpy(p.src, src);
	strcpy(p.dst, dst);
	return xfrm_policy_exists(NULL, &p) == 1;
}

/* The text of this process's journal (the one journal-* file in jdir). */
static char *own_journal(void)
{
	char *ls = NULL, path[256];
	char *text;

	exec_run(NULL, (char *[]){ "sh", "-c", "ls \"$IPSECPERF_JOURNAL_DIR\" | grep '^journal-'", NULL }, &ls, NULL);
	assert_non_null(ls);
	ls[strcspn(ls, "\n")] = '\0';
	snprintf(path, sizeof(path), "%s/%s", jdir, ls);
	free(ls);
	text = file_read(path, NULL);
	assert_non_null(text);
	return text;
}

static void existing_policy_left_alone(void **state)
{
	struct xfrm_pol_spec theirs = { .family = AF_INET, .dir = XFRM_POLICY_OUT, .proto = IPPROTO_ESP };
	struct xfrm_pol_spec ours = theirs;
	char why[512], kmsg[200];
	int kerr;

	(void)state;
	if (!in_private_netns)
		skip();
	strcpy(theirs.src, "198.18.0.1");
	strcpy(theirs.dst, "198.18.0.2");
	strcpy(ours.src, "198.18.0.3");
	strcpy(ours.dst, "198.18.0.4");
	assert_int_equal(xfrm_policy_exists(NULL, &theirs), 0);
	assert_int_equal(xfrm_policy_add(NULL, &theirs, kmsg, sizeof(kmsg)), 0);
	assert_int_equal(xfrm_policy_exists(NULL, &theirs), 1);

	assert_int_equal(journal_open(false), 0);
	assert_int_equal(ipsec_add_policy_here(NULL, &theirs, " here", &kerr, kmsg, sizeof(kmsg), why, sizeof(why)), 1);
	assert_int_equal(kerr, 0);
	assert_non_null(strstr(why, "policy out 198.18.0.1 -> 198.18.0.2 is there already here"));
	assert_int_equal(ipsec_add_policy_here(NULL, &ours, " here", &kerr, kmsg, sizeof(kmsg), why, sizeof(why)), 0);
	assert_true(policy_there("198.18.0.3", "198.18.0.4"));
	/* the clash journaled nothing: one record, ours */
	char *text = own_journal();

	assert_null(strstr(text, "198.18.0.1"));
	assert_non_null(strstr(text, "198.18.0.3"));
	free(text);
	assert_int_equal(journal_undo_all(), 0);
	assert_false(policy_there("198.18.0.3", "198.18.0.4"));
	assert_true(policy_there("198.18.0.1", "198.18.0.2"));
	assert_int_equal(xfrm_policy_del(NULL, &theirs), 0);
}

static void refused_add_leaves_no_undo(void **state)
{
	struct xfrm_sa_spec s = { .family = AF_INET, .spi = 0x4242, .proto = IPPROTO_ESP };
	char why[512] = "", kmsg[200];
	int kerr, rc;

	(void)state;
	if (!in_private_netns)
		skip();
	strcpy(s.src, "198.18.0.1");
	strcpy(s.dst, "198.18.0.2");
	strcpy(s.enc, "no-such-cipher"); /* the kernel refuses it, with or without ESP */
	assert_int_equal(journal_open(false), 0);
	rc = ipsec_add_sa_here(NULL, &s, NULL, " here", &kerr, kmsg, sizeof(kmsg), why, sizeof(why));
	assert_int_equal(rc, -1);
	assert_true(kerr < 0 && kerr != -EEXIST);
	/* journaled before the add, cancelled after it failed */
	char *text = own_journal();

	assert_non_null(strstr(text, "\"spi\":\"0x00004242\""));
	assert_non_null(strstr(text, "\"why\":\"not made\""));
	free(text);
	assert_int_equal(journal_undo_all(), 0);
}

/*
 * An amended record keeps its place: the modules a scenario's SAs loaded
 * are known after the SAs, and must be unloaded after the SAs are gone.
 */
static void amend_keeps_undo_order(void **state)
{
	char order[128], script[256];
	char *text;

	(void)state;
	snprintf(order, sizeof(order), "%s/order", jdir);
	assert_int_equal(journal_open(false), 0);
	assert_int_equal(journal_add(json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "sh", "-c", "exit 1")), 0);
	int first = journal_last();

	snprintf(script, sizeof(script), "echo sa >> %s", order);
	assert_int_equal(journal_add(json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "sh", "-c", script)), 0);
	snprintf(script, sizeof(script), "echo modules >> %s", order);
	assert_int_equal(journal_amend(first, json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "sh", "-c", script)), 0);
	assert_int_equal(journal_undo_all(), 0);
	text = file_read(order, NULL);
	assert_non_null(text);
	assert_string_equal(text, "sa\nmodules\n");
	free(text);
}

/* ---- the modules window, with a scripted host ---- */

static json_t *script[2];
static int listed;
static json_t *journaled;

static json_t *fake_list(void *arg)
{
	(void)arg;
	return json_incref(script[listed++]);
}

static int fake_journal(void *arg, json_t *rec)
{
	(void)arg;
	json_array_append_new(journaled, rec);
	return 0;
}

static int fake_amend(void *arg, int seq, json_t *rec)
{
	(void)seq;
	return fake_journal(arg, rec);
}

static void modules_window_is_exact(void **state)
{
	struct kmod_window w = { .list = fake_list, .journal = fake_journal, .amend = fake_amend };
	json_t *before_list, *loaded;

	(void)state;
	journaled = json_array();
	listed = 0;
	/* esp4 and authenc appear inside the window; veth was there before */
	script[0] = json_pack("[s, s]", "veth", "xfrm_user");
	script[1] = json_pack("[s, s, s, s]", "authenc", "esp4", "veth", "xfrm_user");
	assert_int_equal(kmod_window_open(&w), 0);
	assert_int_equal(kmod_window_close(&w), 0);
	assert_int_equal(json_array_size(journaled), 2);
	before_list = json_object_get(json_array_get(journaled, 0), "before");
	loaded = json_object_get(json_array_get(journaled, 1), "loaded");
	assert_int_equal(json_array_size(before_list), 2);
	assert_int_equal(json_array_size(loaded), 2);
	assert_string_equal(json_string_value(json_array_get(loaded, 0)), "authenc");
	assert_string_equal(json_string_value(json_array_get(loaded, 1)), "esp4");
	assert_null(json_object_get(json_array_get(journaled, 1), "before"));
	json_decref(script[0]);
	json_decref(script[1]);
	json_decref(journaled);

	/* nothing appeared: no "loaded" record at all */
	journaled = json_array();
	listed = 0;
	script[0] = json_pack("[s]", "veth");
	script[1] = json_pack("[s]", "veth");
	assert_int_equal(kmod_window_open(&w), 0);
	assert_int_equal(kmod_window_close(&w), 0);
	assert_int_equal(json_array_size(journaled), 1);
	json_decref(script[0]);
	json_decref(script[1]);
	json_decref(journaled);

	/* a module loaded after the window (by someone else) is not in the diff */
	before_list = json_pack("[s]", "veth");
	json_t *now = json_pack("[s, s, s]", "theirs", "esp4", "veth");
	json_t *ours = json_pack("[s]", "esp4");
	json_t *added = kmod_new_since(before_list, ours);

	assert_int_equal(json_array_size(added), 1);
	json_decref(added);
	added = kmod_new_since(before_list, now);
	assert_int_equal(json_array_size(added), 2);
	json_decref(added);
	json_decref(before_list);
	json_decref(now);
	json_decref(ours);
}

/* ---- the host-wide lock ---- */

static void hostwide_no_wait_names_holder(void **state)
{
	char why[512] = "", want[64];
	int ready[2];
	pid_t child;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	child = fork();
	if (child == 0) {
		char w[256];

		if (hostwide_lock(w, sizeof(w)) == 0 && write(ready[1], "x", 1) == 1)
			sleep(30);
		_exit(0);
	}
	char x;

	assert_int_equal(read(ready[0], &x, 1), 1);
	hostwide_set_no_wait(true);
	assert_int_equal(hostwide_lock(why, sizeof(why)), -1);
	snprintf(want, sizeof(want), "run %d (started ", (int)child);
	assert_non_null(strstr(why, want));
	assert_non_null(strstr(why, "--no-wait"));
	assert_false(hostwide_locked());
	kill(child, SIGKILL);
	exec_wait(child);
	/* its holder is gone: the lock is free (the file it left is taken over) */
	assert_int_equal(hostwide_lock(why, sizeof(why)), 0);
	assert_true(hostwide_locked());
	hostwide_unlock();
	assert_false(hostwide_locked());
	hostwide_set_no_wait(false);
	close(ready[0]);
	close(ready[1]);
}

/* Is TSO on for dev (in this process's namespace)? */
static bool tso_on(const char *dev)
{
	char *out = NULL;
	bool on;

	assert_int_equal(exec_run(NULL, (char *[]){ "ethtool", "-k", (char *)dev, NULL }, &out, NULL), 0);
	assert_non_null(out);
	on = strstr(out, "tcp-segmentation-offload: on") != NULL;
	free(out);
	return on;
}

static const struct offload_setting tso_off_v[] = { { "tso", false } };
static const struct offload_list tso_off = { tso_off_v, 1 };

/*
 * Run A sets TSO off on a device outside its namespaces and is killed
 * (SIGKILL: no undo). Run B must not read off as the device's own and
 * put it back at its end: its change to that device is refused, naming
 * A's journal and cleanup, while one to another device goes ahead.
 * cleanup then puts A's TSO back, and B's change is taken.
 */
static void dead_run_change_refused(void **state)
{
	char why[512] = "";
	int ready[2];
	pid_t a;

	(void)state;
	if (!in_private_netns)
		skip();
	assert_int_equal(exec_run(NULL, (char *[]){ "ip", "link", "add", "ippj0", "type", "veth", "peer", "name",
						    "ippj1", NULL }, NULL, NULL), 0);
	assert_true(tso_on("ippj0"));
	assert_int_equal(pipe(ready), 0);
	a = fork();
	if (a == 0) {
		char w[512];

		if (journal_open(false) == 0 && offload_apply(&(struct endpoint){ .dev = "ippj0", .cpu = -1 }, &tso_off, w, sizeof(w)) == 0 &&
		    write(ready[1], "x", 1) == 1)
			sleep(30);
		_exit(1);
	}
	char x;

	assert_int_equal(read(ready[0], &x, 1), 1);
	kill(a, SIGKILL);
	exec_wait(a);
	assert_false(tso_on("ippj0"));

	assert_int_equal(journal_open(false), 0);
	assert_int_equal(offload_apply(&(struct endpoint){ .dev = "ippj0", .cpu = -1 }, &tso_off, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "device ippj0"));
	assert_non_null(strstr(why, "ipsecperf cleanup"));
	assert_false(hostwide_locked()); /* nothing changed under it: given back */
	assert_int_equal(offload_apply(&(struct endpoint){ .dev = "ippj1", .cpu = -1 }, &tso_off, why, sizeof(why)), 0);
	assert_false(tso_on("ippj1"));
	assert_int_equal(journal_undo_all(), 0);
	assert_true(tso_on("ippj1"));

	int found = 0;

	assert_int_equal(journal_cleanup_stale(false, &found), 0);
	assert_int_equal(found, 1);
	assert_true(tso_on("ippj0"));
	assert_int_equal(journal_open(false), 0);
	assert_int_equal(offload_apply(&(struct endpoint){ .dev = "ippj0", .cpu = -1 }, &tso_off, why, sizeof(why)), 0);
	assert_int_equal(journal_undo_all(), 0);
	assert_true(tso_on("ippj0"));
	exec_run(NULL, (char *[]){ "ip", "link", "del", "ippj0", NULL }, NULL, NULL);
	close(ready[0]);
	close(ready[1]);
}

/*
 * cleanup undoes under the host-wide lock: while a run holds it, the dead
 * run's undo waits. The planted journal's undo succeeds only once the
 * holder has let go (it leaves a file just before).
 */
static void cleanup_waits_for_hostwide(void **state)
{
	char path[256], released[256], line[600];
	int ready[2], found = 0;
	pid_t holder;
	FILE *f;

	(void)state;
	assert_int_equal(journal_check(false), 0);
	snprintf(released, sizeof(released), "%s/released", jdir);
	snprintf(path, sizeof(path), "%s/journal-999999999-1.jsonl", jdir);
	snprintf(line, sizeof(line), "{\"kind\":\"argv\",\"argv\":[\"test\",\"-e\",\"%s\"],\"seq\":1}\n", released);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(line, f);
	fclose(f);
	assert_int_equal(pipe(ready), 0);
	holder = fork();
	if (holder == 0) {
		char w[256];

		if (hostwide_lock(w, sizeof(w)) == 0 && write(ready[1], "x", 1) == 1) {
			usleep(300 * 1000);
			close(open(released, O_WRONLY | O_CREAT, 0600));
			hostwide_unlock();
		}
		_exit(0);
	}
	char x;

	assert_int_equal(read(ready[0], &x, 1), 1);
	assert_int_equal(journal_cleanup_stale(false, &found), 0);
	assert_int_equal(found, 1);
	assert_int_equal(access(path, F_OK), -1); /* undone, so removed */
	exec_wait(holder);
	close(ready[0]);
	close(ready[1]);
}

/* ---- the measuring registry ---- */

/* Register a run (pid, start) that measured in the windows given (close 0: still open). */
static void plant(int pid, long long start, long long open, long long close)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/measuring-%d-%lld", jdir, pid, start);
	f = fopen(path, "a");
	assert_non_null(f);
	fprintf(f, "open %lld\n", open);
	if (close)
		fprintf(f, "close %lld\n", close);
	fclose(f);
}

static json_t *measure_once(void)
{
	json_t *rec = json_object(), *pids;

	measuring_window(true);
	usleep(200 * 1000);
	measuring_window(false);
	measuring_record(rec, "clear", 1);
	pids = json_incref(json_object_get(rec, "concurrent_runs"));
	json_decref(rec);
	assert_non_null(pids);
	return pids;
}

static bool has_pid(json_t *pids, int pid)
{
	size_t i;
	json_t *v;

	json_array_foreach(pids, i, v)
		if (json_integer_value(v) == pid)
			return true;
	return false;
}

static void measuring_overlaps(void **state)
{
	int alive = (int)getppid(), dead = 999999999;
	long long alive_start = proc_starttime(alive), t = mono_ns();
	json_t *pids;

	(void)state;
	assert_int_equal(journal_check(false), 0);
	assert_int_equal(measuring_open(), 0);
	/* nobody else: an empty list */
	pids = measure_once();
	assert_int_equal(json_array_size(pids), 0);
	json_decref(pids);

	/* a live run measuring now (an open window) overlaps; one that closed before does not */
	plant(alive, alive_start, t - 1000, 0);
	plant(dead, 1, t - 3000000000LL, t - 2000000000LL);
	pids = measure_once();
	assert_true(has_pid(pids, alive));
	assert_false(has_pid(pids, dead));
	json_decref(pids);

	/* a gone run's open window counts only when it opened inside ours */
	char path[128];

	snprintf(path, sizeof(path), "%s/measuring-%d-%lld", jdir, alive, alive_start);
	unlink(path);
	snprintf(path, sizeof(path), "%s/measuring-%d-1", jdir, dead);
	unlink(path);
	plant(dead, 1, t - 1000, 0); /* opened before our next window: it may have died long ago */
	plant(dead - 1, 1, mono_ns() + 100000000LL, 0); /* opens inside it: it measured then */
	pids = measure_once();
	assert_false(has_pid(pids, dead));
	assert_true(has_pid(pids, dead - 1));
	json_decref(pids);

	/* the report for meta.json names the runs and the repeats they disturbed */
	json_t *rep = measuring_report();

	assert_int_equal(json_array_size(rep), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rep, 0), "pid")), alive);
	json_t *during = json_array_get(json_object_get(json_array_get(rep, 0), "during"), 0);

	assert_string_equal(json_string_value(json_object_get(during, "scenario")), "clear");
	assert_int_equal(json_integer_value(json_object_get(during, "repeat")), 1);
	json_decref(rep);
	measuring_close();
	/* cleanup removes the files of runs that are gone */
	char why[256];
	int dirfd = jdir_open(jdir, false, why, sizeof(why));

	assert_true(dirfd >= 0);
	measuring_cleanup_stale(dirfd);
	close(dirfd);
	assert_int_not_equal(access(path, F_OK), 0);
}

static int test_kind_calls;
static int test_kind_undo(json_t *r)
{
	(void)r;
	return ++test_kind_calls;
}
static int test_kind_undo2(json_t *r)
{
	(void)r;
	return 42;
}

/* A kind not registered is not undone (the record is kept); a registered
 * one goes to its owner, and registering the name again replaces it. */
static void kinds_are_registered(void **state)
{
	json_t *r = json_pack("{s:s}", "kind", "test-kind");
	struct journal_kind k = { "test-kind", test_kind_undo, NULL };

	(void)state;
	assert_int_equal(journal_undo_one(r), -1);
	assert_int_equal(test_kind_calls, 0);
	journal_register_kinds(&k, 1);
	assert_int_equal(journal_undo_one(r), 1);
	k.undo = test_kind_undo2;
	journal_register_kinds(&k, 1);
	assert_int_equal(journal_undo_one(r), 42);
	assert_int_equal(test_kind_calls, 1);
	json_decref(r);
}

/*
 * flock() as the code under test calls it (this definition comes before
 * libc's): it notes whether the file being locked is already visible by
 * name in the journal folder. A journal seen there unlocked could be taken
 * by a concurrent `cleanup` for a dead run's, and unlinked.
 */
static bool journal_seen_unlocked, journal_locked;

int flock(int fd, int op)
{
	struct stat fs, ds;
	struct dirent *de;
	DIR *d;

	if (op == (LOCK_EX | LOCK_NB) && fstat(fd, &fs) == 0 && (d = opendir(jdir))) {
		while ((de = readdir(d))) {
			char path[600];

			snprintf(path, sizeof(path), "%s/%s", jdir, de->d_name);
			if (!strncmp(de->d_name, "journal-", 8) && stat(path, &ds) == 0 && ds.st_ino == fs.st_ino &&
			    ds.st_dev == fs.st_dev)
				journal_seen_unlocked = true;
		}
		closedir(d);
		journal_locked = true;
	}
	return (int)syscall(SYS_flock, fd, op);
}

static void journal_locked_before_named(void **state)
{
	(void)state;
	journal_seen_unlocked = journal_locked = false;
	assert_int_equal(journal_open(false), 0);
	assert_true(journal_locked);
	assert_false(journal_seen_unlocked);
	/* and it is there, by its name, for cleanup after a crash */
	char *text = own_journal();

	free(text);
	assert_int_equal(journal_undo_all(), 0);
}

/* A bisect's record goes where it outlives a reboot: its state (the tree's BISECT_START) is on disk. */
static void bisect_record_outlives_reboot(void **state)
{
	char *ls = NULL;

	(void)state;
	assert_int_equal(journal_open(false), 0);
	assert_int_equal(journal_add(json_pack("{s:s, s:s, s:s, s:s}", "kind", "bisect", "tree", "/nonexistent",
					       "original", "main", "scratch", "/nonexistent/ipsecperf-bisect.x")), 0);
	int s = journal_last();

	exec_run(NULL, (char *[]){ "sh", "-c", "grep -l '\"kind\":\"bisect\"' \"$IPSECPERF_JOURNAL_DIR\"/journal-* "
				   "\"$IPSECPERF_JOURNAL_DIR\"/peer/journal-* 2>/dev/null", NULL }, &ls, NULL);
	assert_non_null(ls);
	assert_non_null(strstr(ls, "/peer/journal-"));
	assert_null(strstr(ls, "/j/journal-"));
	free(ls);
	assert_int_equal(journal_cancel(s), 0);
	assert_int_equal(journal_undo_all(), 0);
}

/* Without root every case is this: journal folders are root's. */
static void needs_root(void **state)
{
	(void)state;
	print_message("needs root (journal folders are root's)\n");
	skip();
}

int main(void)
{
	struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds_are_registered),
		cmocka_unit_test_setup_teardown(journal_locked_before_named, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(bisect_record_outlives_reboot, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(existing_policy_left_alone, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(refused_add_leaves_no_undo, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(amend_keeps_undo_order, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(modules_window_is_exact, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(hostwide_no_wait_names_holder, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(dead_run_change_refused, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(cleanup_waits_for_hostwide, jdir_setup, jdir_teardown),
		cmocka_unit_test_setup_teardown(measuring_overlaps, jdir_setup, jdir_teardown),
	};

	/* without root, the cases with a journal folder are reported skipped, not passed (`make unit` names them) */
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]) && geteuid() != 0; i++)
		if (tests[i].setup_func)
			tests[i] = (struct CMUnitTest){ .name = tests[i].name, .test_func = needs_root };
	/* a namespace of our own, so the host's xfrm tables are never touched */
	in_private_netns = geteuid() == 0 && unshare(CLONE_NEWNET) == 0;
	/* as main() does: the test kind is registered on top of these */
	undo_kinds_register();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
