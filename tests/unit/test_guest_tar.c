// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for what the host takes from a VM guest: the tar reader
 * (collector/testbed/guest_tar.c), the writer that never follows a link, and the
 * checks on guest.json, meta.json and records (collector/vm/guest_check.c).
 * Archives are built here byte by byte, good ones and hostile ones.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "files.h"
#include "guest_check.h"
#include "guest_tar.h"
#include "vm_home.h"
#include "vm_qemu.h"

/* ---- building archives ---- */

struct tarbuf {
	unsigned char *buf;
	size_t len, cap;
};

static void reserve(struct tarbuf *t, size_t more)
{
	if (t->len + more <= t->cap)
		return;
	t->cap = (t->len + more) * 2;
	t->buf = realloc(t->buf, t->cap);
	assert_non_null(t->buf);
}

/* One header (GNU magic unless posix) and its data; size_field overrides the size written. */
static void add_full(struct tarbuf *t, const char *name, char type, const void *data, size_t size,
		     bool posix, const char *prefix, unsigned long long size_field)
{
	unsigned char *h;
	unsigned long sum = 0;
	size_t pad = (size + 511) / 512 * 512;

	reserve(t, 512 + pad);
	h = t->buf + t->len;
	memset(h, 0, 512 + pad);
	memcpy(h, name, strnlen(name, 100));
	snprintf((char *)h + 100, 8, "%07o", 04755);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", size_field & 077777777777ULL);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = type;
	if (posix) {
		memcpy(h + 257, "ustar\0" "00", 8);
		if (prefix)
			memcpy(h + 345, prefix, strlen(prefix));
	} else {
		memcpy(h + 257, "ustar  ", 8);
	}
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06lo", sum);
	h[155] = ' ';
	if (size)
		memcpy(h + 512, data, size);
	t->len += 512 + pad;
}

static void add(struct tarbuf *t, const char *name, char type, const char *data)
{
	size_t n = data ? strlen(data) : 0;

	add_full(t, name, type, data, n, false, NULL, n);
}

static void add_end(struct tarbuf *t)
{
	reserve(t, 1024);
	memset(t->buf + t->len, 0, 1024);
	t->len += 1024;
}

/* The guest's usual archive: what busybox tar writes of /out. */
static void good_archive(struct tarbuf *t)
{
	add(t, "./", '5', NULL);
	add(t, "./guest.json", '0', "{\"rc\":0,\"release\":\"6.1.0-57-cloud-amd64\"}");
	add(t, "./run/", '5', NULL);
	add(t, "./run/runs.jsonl", '0', "{}\n");
	add(t, "./run/raw/", '5', NULL);
	add(t, "./run/raw/clear-r1-iperf3-client.json", '0', "{\"end\":{}}");
	add_end(t);
}

struct seen {
	char paths[16][300];
	int n, ndirs;
	size_t bytes;
	const char *refuse; /* a path the callback refuses */
};

static int collect(const struct guest_tar_entry *e, void *ctx, char *err, size_t errlen)
{
	struct seen *s = ctx;

	if (s->refuse && !strcmp(e->path, s->refuse)) {
		snprintf(err, errlen, "not wanted");
		return -1;
	}
	if (s->n < 16)
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", e->path);
	s->n++;
	s->ndirs += e->dir;
	s->bytes += e->size;
	return 0;
}

static int parse(struct tarbuf *t, struct seen *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	return guest_tar_parse(t->buf, t->len, collect, s, err, errlen);
}

/* ---- the reader ---- */

static void test_good(void **state)
{
	struct tarbuf t = { 0 };
	struct seen s;
	char err[300];

	(void)state;
	good_archive(&t);
	assert_int_equal(parse(&t, &s, err, sizeof(err)), 5);
	assert_string_equal(err, "");
	assert_int_equal(s.n, 5);
	assert_int_equal(s.ndirs, 2);
	assert_string_equal(s.paths[0], "guest.json");
	assert_string_equal(s.paths[1], "run");
	assert_string_equal(s.paths[3], "run/raw");
	assert_string_equal(s.paths[4], "run/raw/clear-r1-iperf3-client.json");
	/* without the end blocks, and with bytes after them, it reads the same */
	t.len -= 1024;
	assert_int_equal(parse(&t, &s, err, sizeof(err)), 5);
	add_end(&t);
	reserve(&t, 100);
	memset(t.buf + t.len, 'x', 100);
	t.len += 100;
	assert_int_equal(parse(&t, &s, err, sizeof(err)), 5);
	/* nothing at all is an empty archive */
	assert_int_equal(guest_tar_parse("", 0, NULL, NULL, err, sizeof(err)), 0);
	free(t.buf);
}

static void test_long_names(void **state)
{
	struct tarbuf t = { 0 };
	struct seen s;
	char err[300], longp[200];

	(void)state;
	/* GNU: an 'L' entry carries the next one's name */
	snprintf(longp, sizeof(longp), "run/raw/%.90s/%.60s",
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	add_full(&t, "././@LongLink", 'L', longp, strlen(longp) + 1, false, NULL, strlen(longp) + 1);
	add(&t, "run/raw/aaaaaaaa", '0', "x");
	/* POSIX: prefix and name */
	add_full(&t, "x.json", '0', "y", 1, true, "run/raw", 1);
	add_end(&t);
	assert_int_equal(parse(&t, &s, err, sizeof(err)), 2);
	assert_string_equal(s.paths[0], longp);
	assert_string_equal(s.paths[1], "run/raw/x.json");
	free(t.buf);
}

/* One entry added to a good archive's start must refuse it all, with this in the message. */
static void refused(const char *name, char type, const char *data, const char *why)
{
	struct tarbuf t = { 0 };
	struct seen s;
	char err[300];

	add(&t, "./guest.json", '0', "{}");
	add(&t, name, type, data);
	good_archive(&t);
	assert_int_equal(parse(&t, &s, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", name, err, why);
	assert_non_null(strstr(err, "entry 2"));
	free(t.buf);
}

static void test_hostile_entries(void **state)
{
	(void)state;
	refused("./run/raw/link", '2', NULL, "a symbolic link");
	refused("./run/raw/hard", '1', NULL, "a hard link");
	refused("./run/raw/tty", '3', NULL, "a character device");
	refused("./run/raw/sda", '4', NULL, "a block device");
	refused("./run/raw/fifo", '6', NULL, "a FIFO");
	refused("./PaxHeaders/x", 'x', "30 path=/etc/passwd\n", "a pax extended header");
	refused("./run/raw/../../x", '0', "x", "'..' is not a plain name");
	refused("../x", '0', "x", "'..' is not a plain name");
	refused("/etc/cron.d/x", '0', "x", "an absolute path");
	refused("run/./x", '0', "x", "'.' is not a plain name");
	refused("run//x", '0', "x", "'' is not a plain name");
	refused("run/a b", '0', "x", "'a b' is not a plain name");
	refused("run/a\nb", '0', "x", "'a?b' is not a plain name");
	refused("run/\x1b[2J", '0', "x", "'?[2J' is not a plain name");
	refused(".", '0', "x", "a file without a name");
	refused("a/b/c/d/e/f/g/h/i", '0', "x", "more than 8 folders deep");
	refused("run/raw/d", '5', "data", "a folder with data");
}

static void test_broken_archives(void **state)
{
	struct tarbuf t = { 0 };
	char err[300];

	(void)state;
	/* a wrong checksum */
	good_archive(&t);
	t.buf[512 + 1] ^= 1;
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 2: the header's checksum is wrong"));
	/* no ustar magic */
	t.len = 0;
	good_archive(&t);
	memcpy(t.buf + 257, "xxxxx", 5);
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 1: not a ustar or GNU tar header"));
	/* cut in a file's data, and in a header */
	t.len = 0;
	good_archive(&t);
	assert_int_equal(guest_tar_parse(t.buf, 512 * 2 + 100, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 2: the archive is cut short"));
	assert_int_equal(guest_tar_parse(t.buf, 512 + 100, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cut short"));
	/* a size over the cap, whatever follows */
	t.len = 0;
	add_full(&t, "run/raw/big", '0', "x", 1, false, NULL, (unsigned long long)GUEST_TAR_MAX_FILE + 1);
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than the 256 MiB a file may have"));
	/* a size field that is not octal (base-256 too) */
	t.len = 0;
	add(&t, "run/raw/x", '0', "x");
	t.buf[124] = (char)0x80;
	memset(t.buf + 148, ' ', 8);
	{
		unsigned long sum = 0;

		for (int i = 0; i < 512; i++)
			sum += t.buf[i];
		snprintf((char *)t.buf + 148, 8, "%06lo", sum);
	}
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an octal number"));
	/* a long name with no entry after it */
	t.len = 0;
	add_full(&t, "././@LongLink", 'L', "run/x", 6, false, NULL, 6);
	add_end(&t);
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a long name and no entry for it"));
	free(t.buf);
}

static void test_caps_and_callback(void **state)
{
	struct tarbuf t = { 0 };
	struct seen s;
	char err[300], name[32];

	(void)state;
	for (int i = 0; i <= GUEST_TAR_MAX_ENTRIES; i++) {
		snprintf(name, sizeof(name), "run/raw/f%d", i);
		add(&t, name, '0', NULL);
	}
	add_end(&t);
	assert_int_equal(guest_tar_parse(t.buf, t.len, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 4096 files and folders"));
	/* what the callback refuses ends the reading, with the entry named */
	t.len = 0;
	good_archive(&t);
	memset(&s, 0, sizeof(s));
	s.refuse = "run/runs.jsonl";
	assert_int_equal(guest_tar_parse(t.buf, t.len, collect, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "entry 4 (./run/runs.jsonl): not wanted");
	assert_int_equal(s.n, 2);
	free(t.buf);
}

static void test_name_ok(void **state)
{
	char longname[GUEST_NAME_MAX + 2];

	(void)state;
	assert_true(guest_name_ok("6.12.117+deb12-cloud-amd64"));
	assert_true(guest_name_ok("a_b.c-d+e"));
	assert_true(guest_name_ok("..."));
	assert_false(guest_name_ok(""));
	assert_false(guest_name_ok("."));
	assert_false(guest_name_ok(".."));
	assert_false(guest_name_ok("../../x"));
	assert_false(guest_name_ok("a/b"));
	assert_false(guest_name_ok("a b"));
	assert_false(guest_name_ok("a\nb"));
	assert_false(guest_name_ok("caf\xc3\xa9"));
	memset(longname, 'a', sizeof(longname) - 1);
	longname[GUEST_NAME_MAX + 1] = '\0';
	assert_false(guest_name_ok(longname));
	longname[GUEST_NAME_MAX] = '\0';
	assert_true(guest_name_ok(longname));
}

/* ---- the writer ---- */

static void test_write_file(void **state)
{
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[PATH_MAX], err[300];
	struct stat st;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(guest_write_file(dfd, "a/b/c.json", "{}", 2, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/a/b/c.json", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 2);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	/* never over an existing file */
	assert_int_equal(guest_write_file(dfd, "a/b/c.json", "{}", 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exists already"));
	/* never through a symbolic link, as the file or as a folder */
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(symlinkat("out/x", dfd, "link"), 0);
	assert_int_equal(guest_write_file(dfd, "link", "x", 1, err, sizeof(err)), -1);
	assert_int_equal(symlinkat("out", dfd, "dirlink"), 0);
	assert_int_equal(guest_write_file(dfd, "dirlink/y", "x", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "symbolic link or not a folder"));
	assert_int_equal(guest_write_file(dfd, "../escape", "x", 1, err, sizeof(err)), -1);
	snprintf(path, sizeof(path), "%s/out/x", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/out/y", dir);
	assert_int_equal(access(path, F_OK), -1);
	close(dfd);
	assert_int_equal(rm_rf(dir), 0);
}

/* ---- the checks ---- */

static json_t *js(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);

	assert_non_null(v);
	return v;
}

static void info_is(const char *text, const char *why)
{
	json_t *v = js(text);
	char err[300] = "";
	int rc = guest_info_check(v, err, sizeof(err));

	json_decref(v);
	if (!why) {
		assert_int_equal(rc, 0);
		return;
	}
	assert_int_equal(rc, -1);
	if (!strstr(err, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", text, err, why);
}

static void test_info(void **state)
{
	(void)state;
	info_is("{\"rc\":0,\"release\":\"6.1.0-57-cloud-amd64\",\"proc_version\":\"Linux version 6.1\",\"t_init\":2.1}", NULL);
	info_is("{\"rc\":0,\"release\":\"../../x\"}", "\"release\" '../../x' is not a plain name");
	info_is("{\"rc\":0,\"release\":\"..\"}", "is not a plain name");
	info_is("{\"rc\":0,\"release\":\"a\\u001b[2Jb\"}", "'a?[2Jb' is not a plain name");
	info_is("{\"rc\":0}", "\"release\" is missing");
	info_is("{\"rc\":\"0\",\"release\":\"x\"}", "\"rc\" is missing or not an integer");
	info_is("{\"rc\":0,\"release\":\"x\",\"proc_version\":[1]}", "\"proc_version\" is not a string");
	info_is("{\"rc\":0,\"release\":\"x\",\"proc_version\":\"a\\nb\"}", "control character (0x0a at byte 1)");
	info_is("{\"rc\":0,\"release\":\"x\",\"machine\":\"\\u009b31m\"}", "control character (0x9b");
	info_is("{\"rc\":0,\"release\":\"x\",\"a\\tb\":1}", "control character (0x09");
	info_is("[1]", "not a JSON object");
}

static void test_records(void **state)
{
	static const char good[] =
		"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"clear\",\"repeat\":1,\"status\":\"ok\",\"throughput_bps\":1e9,\"sa\":[]}\n"
		"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"esp-null\",\"repeat\":1,\"status\":\"failed\",\"reason\":\"no ESP\"}\n";
	char buf[1024], err[300];

	(void)state;
	assert_int_equal(guest_records_check("runs.jsonl", good, strlen(good), "6.1.0", err, sizeof(err)), 2);
	assert_string_equal(err, "");
	/* another kernel's record: a guest speaks for itself only */
	assert_int_equal(guest_records_check("runs.jsonl", good, strlen(good), "6.12.0", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "runs.jsonl:1: kernel '6.1.0' is not the guest's own release 6.12.0"));
	/* a control character in a key the reader does not read */
	snprintf(buf, sizeof(buf), "%s%s", good,
		 "{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"no-gso\",\"repeat\":1,\"status\":\"ok\",\"throughput_bps\":1e9,\"sa\":[{\"spi\":\"\\u001b]0;x\\u0007\"}]}\n");
	assert_int_equal(guest_records_check("runs.jsonl", buf, strlen(buf), "6.1.0", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "runs.jsonl:3: a string holds a control character"));
	/* what the reader refuses (not JSON, a duplicate) */
	snprintf(buf, sizeof(buf), "%s%s", good, "{\"version\":1,\"kernel\n");
	assert_int_equal(guest_records_check("live.jsonl", buf, strlen(buf), "6.1.0", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "live.jsonl:3:"));
	snprintf(buf, sizeof(buf), "%s%s", good, good);
	assert_int_equal(guest_records_check("runs.jsonl", buf, strlen(buf), "6.1.0", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "runs.jsonl:3:"));
}

static void test_meta(void **state)
{
	static const char good[] =
		"{\"version\":1,\"testbed\":\"netns\",\"kernels\":[{\"release\":\"6.1.0\",\"version\":\"Linux 6.1\"}]}";
	static const char bad[] =
		"{\"version\":1,\"kernels\":[{\"release\":\"6.1.0\",\"version\":\"Linux\\r6.1\"}]}";
	json_t *e = NULL;
	char err[300];

	(void)state;
	assert_int_equal(guest_meta_kernel(good, strlen(good), "6.1.0", &e, err, sizeof(err)), 0);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "version")), "Linux 6.1");
	json_decref(e);
	assert_int_equal(guest_meta_kernel(good, strlen(good), "6.12.0", &e, err, sizeof(err)), -1);
	assert_null(e);
	assert_non_null(strstr(err, "release 6.1.0, not the guest's own 6.12.0"));
	assert_int_equal(guest_meta_kernel(bad, strlen(bad), "6.1.0", &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "control character (0x0d"));
	assert_int_equal(guest_meta_kernel("{", 1, "6.1.0", &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "run/meta.json"));
}

static void test_scan_and_raw(void **state)
{
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[PATH_MAX], err[300];
	struct tarbuf t = { 0 };
	struct guest_out g;
	struct stat st;
	int dfd;

	(void)state;
	good_archive(&t);
	assert_int_equal(guest_out_scan(t.buf, t.len, &g, err, sizeof(err)), 0);
	assert_int_equal(g.info_len, strlen("{\"rc\":0,\"release\":\"6.1.0-57-cloud-amd64\"}"));
	assert_memory_equal(g.runs, "{}\n", 3);
	assert_null(g.meta);
	assert_int_equal(g.nraw, 1);
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(guest_out_raw(t.buf, t.len, dfd, err, sizeof(err)), 0);
	/* only run/raw/ is written, as new files of mode 0644 (the header said 04755) */
	snprintf(path, sizeof(path), "%s/clear-r1-iperf3-client.json", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	snprintf(path, sizeof(path), "%s/guest.json", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* twice: the second would replace a file, and is refused */
	assert_int_equal(guest_out_raw(t.buf, t.len, dfd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exists already"));
	close(dfd);
	assert_int_equal(rm_rf(dir), 0);
	free(t.buf);
}

/* How many entries dir holds (besides . and ..). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* A refused archive leaves nothing of itself, and no guest writes a name the host keeps for a later boot. */
static void test_raw_all_or_nothing(void **state)
{
	static const char *const reserved[] = { "console.log", "console-r2.log", "console-receiver-r3.log",
						"vm-guest.json", "vm-guest-r12.json", "console-receiver.log" };
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", err[300];
	struct tarbuf t = { 0 };
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	/* good files, then one that breaks the archive (a file twice): the good ones do not stay */
	add(&t, "./run/raw/", '5', NULL);
	add(&t, "./run/raw/clear-r1-iperf3-client.json", '0', "{}");
	add(&t, "./run/raw/sub/", '5', NULL);
	add(&t, "./run/raw/sub/x", '0', "x");
	add(&t, "./run/raw/clear-r1-iperf3-client.json", '0', "{}");
	add_end(&t);
	assert_int_equal(guest_out_raw(t.buf, t.len, dfd, err, sizeof(err)), -1);
	assert_int_equal(entries(dir), 0);
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		char path[300];

		t.len = 0;
		snprintf(path, sizeof(path), "./run/raw/%s", reserved[i]);
		add(&t, "./run/raw/clear-r2-stream.json", '0', "{}");
		add(&t, path, '0', "planted");
		add_end(&t);
		assert_true(guest_raw_name_reserved(reserved[i]));
		assert_int_equal(guest_out_raw(t.buf, t.len, dfd, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "a name the host writes"));
		assert_int_equal(entries(dir), 0);
	}
	/* names alike but not the host's are the guest's own (a scenario may be called console) */
	assert_false(guest_raw_name_reserved("console-r1-iperf3-client.err"));
	assert_false(guest_raw_name_reserved("vm-guest-r1-stream.json"));
	assert_false(guest_raw_name_reserved("console-r.log"));
	/* a whole archive is moved in, and nothing of the staging is left */
	t.len = 0;
	add(&t, "./run/raw/sub/", '5', NULL);
	add(&t, "./run/raw/sub/x", '0', "x");
	add(&t, "./run/raw/clear-r1-stream.json", '0', "{}");
	add_end(&t);
	assert_int_equal(guest_out_raw(t.buf, t.len, dfd, err, sizeof(err)), 0);
	assert_int_equal(entries(dir), 2);
	close(dfd);
	assert_int_equal(rm_rf(dir), 0);
	free(t.buf);
}

/*
 * A guest whose records are refused leaves none of its files: its raw files
 * and vm-guest.json are not kept (they were, before its records were
 * checked), only the host's own console.
 */
static void test_refused_records_keep_no_raw(void **state)
{
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[PATH_MAX + 64];
	struct tarbuf t = { 0 };
	struct run_config cfg = { .testbed = "vm", .repeat = 1, .repeat_from = 1 };
	struct vm_kernel k = { .release = "6.1.0-57-cloud-amd64" };
	struct vm_dest d = { .dir = dir, .rawrel = "raw/6.1.0-57-cloud-amd64" };
	struct vm_work w = { 0 };
	struct boot b = { 0 };
	struct taken tk = { 0 };
	struct vm_stats out = { 0 };
	json_t *vm = json_object(), *seen = json_object();
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(d.runs, sizeof(d.runs), "%s/runs.jsonl", dir);
	snprintf(w.con, sizeof(w.con), "%s/console", dir);
	snprintf(w.tar, sizeof(w.tar), "%s/results.tar", dir);
	assert_int_equal(file_write(w.con, "booted\n", 7), 0);
	good_archive(&t); /* its runs.jsonl holds "{}": no record */
	f = fopen(w.tar, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(t.buf, 1, t.len, f), t.len);
	fclose(f);
	bring_home(&cfg, &k, &d, &w, &b, &tk, vm, seen, &out);
	assert_true(tk.refused);
	assert_non_null(strstr(b.why, "record was refused"));
	snprintf(path, sizeof(path), "%s/%s/clear-r1-iperf3-client.json", dir, d.rawrel);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/%s/vm-guest.json", dir, d.rawrel);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/%s/console.log", dir, d.rawrel);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(access(d.runs, F_OK), -1);
	if (tk.tarmap)
		munmap(tk.tarmap, tk.tarlen);
	json_decref(tk.ginfo);
	json_decref(vm);
	json_decref(seen);
	free(t.buf);
	assert_int_equal(rm_rf(dir), 0);
}

/*
 * The records a guest sent as it ran (no tar came) are read up to what
 * the record port may hold: a guest that wrote more just before it ended
 * (between two looks at its ports) is refused, not read whole.
 */
static void test_live_records_capped(void **state)
{
	static const char rec[] =
		"{\"version\":1,\"kernel\":\"6.1.0\",\"scenario\":\"clear\",\"repeat\":1,\"status\":\"ok\",\"throughput_bps\":1e9,\"sa\":[]}";
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX";
	struct scenario sc = { .name = "clear" };
	struct run_config cfg = { .testbed = "vm", .repeat = 1, .repeat_from = 1, .scenarios = &sc, .nscenarios = 1 };
	struct vm_kernel k = { .release = "6.1.0" };
	struct vm_dest d = { .dir = dir, .rawrel = "raw/6.1.0" };
	struct vm_work w = { 0 };
	struct boot b = { 0 };
	struct taken tk = { 0 };
	struct vm_stats out = { 0 };
	json_t *vm = json_object(), *seen = json_object();
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(d.runs, sizeof(d.runs), "%s/runs.jsonl", dir);
	snprintf(w.con, sizeof(w.con), "%s/console", dir);
	snprintf(w.tar, sizeof(w.tar), "%s/results.tar", dir); /* never came */
	snprintf(w.live, sizeof(w.live), "%s/live.jsonl", dir);
	assert_int_equal(file_write(w.con, "booted\n", 7), 0);
	/* one good record, its line padded with blanks (JSON takes them) past LIVE_MAX */
	fd = open(w.live, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, rec, strlen(rec)), (ssize_t)strlen(rec));
	for (size_t n = strlen(rec); n <= (size_t)LIVE_MAX; n += 1 << 20) {
		static char blanks[1 << 20];

		memset(blanks, ' ', sizeof(blanks));
		assert_int_equal(write(fd, blanks, sizeof(blanks)), (ssize_t)sizeof(blanks));
	}
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	bring_home(&cfg, &k, &d, &w, &b, &tk, vm, seen, &out);
	assert_true(tk.refused);
	assert_non_null(strstr(b.why, "live.jsonl is larger than 67108864 bytes"));
	assert_int_equal(out.runs_ok, 0);
	assert_int_equal(access(d.runs, F_OK), -1);
	json_decref(tk.ginfo);
	json_decref(vm);
	json_decref(seen);
	assert_int_equal(rm_rf(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_hostile_entries),
		cmocka_unit_test(test_broken_archives),
		cmocka_unit_test(test_caps_and_callback),
		cmocka_unit_test(test_name_ok),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_scan_and_raw),
		cmocka_unit_test(test_raw_all_or_nothing),
		cmocka_unit_test(test_refused_records_keep_no_raw),
		cmocka_unit_test(test_live_records_capped),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
