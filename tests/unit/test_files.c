// SPDX-License-Identifier: GPL-2.0
/*
 * The one copy of each small helper in collector/lib/ (files.c, clock.c, exec.c):
 * mkdir -p and rm -rf, reading a whole file (a regular file, a /proc file
 * that says it is empty, a pipe, a file through its descriptor from its
 * start), copying a file with its mode, the first printable line of a
 * log, running a program in a folder, and the monotonic clock; that a
 * FIFO or a device node is never opened by the readers and writers of
 * files others may have made (inotify says what was opened).
 */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "exec.h"
#include "files.h"
#include "log.h"

static char top[] = "/tmp/ipsecperf-unit-files-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(top);
}

static void mkdir_p_and_rm_rf(void **state)
{
	char path[PATH_MAX], file[PATH_MAX];
	struct stat st;

	(void)state;
	fmt_buf(path, sizeof(path), "%s/a/b/c", top);
	assert_int_equal(mkdir_p(path, 0700), 0);
	assert_true(is_dir(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(mkdir_p(path, 0700), 0); /* exists: fine */
	fmt_buf(file, sizeof(file), "%s/f", path);
	assert_int_equal(file_write(file, "x", 1), 0);
	assert_true(is_file(file));
	assert_false(is_dir(file));
	fmt_buf(path, sizeof(path), "%s/g", file);
	assert_int_equal(mkdir_p(path, 0700), -1); /* a file in the way */
	assert_int_equal(mkdir_p("", 0700), -1);
	fmt_buf(path, sizeof(path), "%s/a", top);
	assert_int_equal(rm_rf(path), 0);
	assert_false(is_dir(path));
	assert_int_equal(rm_rf(path), 0); /* gone already: fine */
	assert_int_equal(rm_rf("/"), -1);
	assert_int_equal(rm_rf(""), -1);
}

static void read_whole_files(void **state)
{
	char path[PATH_MAX], *big = malloc(300000), *text;
	size_t len = 0;
	int fd, p[2];

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < 300000; i++)
		big[i] = 'a' + i % 26;
	fmt_buf(path, sizeof(path), "%s/big", top);
	assert_int_equal(file_write(path, big, 300000), 0);
	text = file_read(path, &len);
	assert_non_null(text);
	assert_int_equal(len, 300000);
	assert_memory_equal(text, big, 300000);
	assert_int_equal(text[len], '\0');
	free(text);
	/* through a descriptor whose offset is elsewhere: from the start all the same */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 1000, SEEK_SET), 1000);
	text = file_read_fd(fd, &len);
	assert_int_equal(len, 300000);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 1000);
	free(text);
	close(fd);
	/* /proc says size 0 */
	text = file_read("/proc/self/status", &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "Pid:"));
	free(text);
	/* a pipe cannot pread: read as it comes */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "piped\n", 6), 6);
	close(p[1]);
	text = file_read_fd(p[0], &len);
	assert_string_equal(text, "piped\n");
	free(text);
	close(p[0]);
	fmt_buf(path, sizeof(path), "%s/none", top);
	assert_null(file_read(path, NULL));
	free(big);
}

static void copy_and_lines(void **state)
{
	static const char content[] = "\n\n  first \x01\x7f line\nsecond\n";
	char src[PATH_MAX], dst[PATH_MAX], line[16], *text;
	struct stat st;

	(void)state;
	fmt_buf(src, sizeof(src), "%s/src", top);
	fmt_buf(dst, sizeof(dst), "%s/dst", top);
	assert_int_equal(file_write(src, content, strlen(content)), 0);
	assert_int_equal(chmod(src, 0751), 0);
	assert_int_equal(copy_file(src, dst), 0);
	assert_int_equal(stat(dst, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0751);
	text = file_read(dst, NULL);
	assert_string_equal(text, content);
	free(text);
	file_first_line(dst, line, sizeof(line));
	assert_string_equal(line, "first ?? line"); /* blank space skipped, unprintable as '?' */
	assert_int_equal(file_read_line(dst, line, sizeof(line)), 0);
	assert_string_equal(line, "");
	fmt_buf(src, sizeof(src), "%s/none", top);
	assert_int_equal(copy_file(src, dst), -1);
	file_first_line(src, line, sizeof(line));
	assert_string_equal(line, "");
	assert_int_equal(file_read_line(src, line, sizeof(line)), -1);
}

static void exec_in_a_dir(void **state)
{
	char *out = NULL;
	char *argv[] = { "sh", "-c", "pwd; exit 3", NULL };
	int fd;

	(void)state;
	assert_int_equal(exec_in_dir(top, argv, &out), 3);
	assert_non_null(out);
	assert_non_null(strstr(out, top));
	free(out);
	/* by descriptor: the folder open, whatever its path names by then */
	out = NULL;
	fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(exec_in_dirfd(fd, argv, &out), 3);
	assert_non_null(strstr(out, top));
	free(out);
	close(fd);
}

static void monotonic(void **state)
{
	long long n0 = mono_ns(), n1;
	double s0 = mono_s(), s1;

	(void)state;
	usleep(20000);
	n1 = mono_ns();
	s1 = mono_s();
	assert_true(n1 - n0 >= 20000000LL);
	assert_true(s1 - s0 >= 0.02 && s1 - s0 < 5);
	/* the same clock in both units */
	assert_true(s0 - n0 / 1e9 > -0.01 && s0 - n0 / 1e9 < 0.01);
	assert_true(clock_s(CLOCK_MONOTONIC_RAW) > 0);
}

/* The names under the watch that were opened since the last call, each followed by a space. */
static void opened(int in, char *out, size_t len)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	size_t o = 0;

	out[0] = '\0';
	while ((n = read(in, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			if (e->len && o < len)
				o += snprintf(out + o, len - o, "%s ", e->name);
			p += sizeof(*e) + e->len;
		}
}

/*
 * A FIFO, a device node (/dev/null's numbers, as a tarball unpacked as
 * root recreates one) and a symbolic link where input or output is
 * expected: refused, and never opened, not even for an instant (opening a
 * watchdog's node arms it). The old readers opened them, then looked.
 */
static void only_regular_files_opened(void **state)
{
	char path[PATH_MAX], why[160], got[512], *text;
	struct stat st;
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), dfd, fd;
	bool dev;

	(void)state;
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(in >= 0 && dfd >= 0);
	assert_int_equal(mkfifoat(dfd, "fifo", 0644), 0);
	dev = mknodat(dfd, "dev", S_IFCHR | 0644, makedev(1, 3)) == 0; /* root only */
	fmt_buf(path, sizeof(path), "%s/file", top);
	assert_int_equal(file_write(path, "hello", 5), 0);
	assert_int_equal(symlinkat("file", dfd, "link"), 0);
	assert_int_equal(symlinkat("made", dfd, "dangling"), 0);
	assert_int_equal(linkat(dfd, "file", dfd, "hard", 0), 0);
	assert_true(inotify_add_watch(in, top, IN_OPEN) >= 0);

	for (const char *const *n = (const char *const[]){ "fifo", "dev", NULL }; *n; n++) {
		if (!strcmp(*n, "dev") && !dev)
			continue;
		fmt_buf(path, sizeof(path), "%s/%s", top, *n);
		assert_null(file_read_regular(path, 1 << 20, NULL, why, sizeof(why)));
		assert_string_equal(why, "is not a regular file");
		assert_int_equal(file_open_regular_at(dfd, *n, O_RDONLY, &st), FILE_NOT_REGULAR);
		assert_false(S_ISREG(st.st_mode));
		assert_int_equal(file_open_out_at(dfd, *n, 0644, why, sizeof(why)), -1);
		assert_string_equal(why, "exists and is not a regular file");
	}
	fmt_buf(path, sizeof(path), "%s/link", top);
	assert_null(file_read_regular(path, 1 << 20, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(file_open_out_at(dfd, "link", 0644, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(file_open_out_at(dfd, "dangling", 0644, why, sizeof(why)), -1);
	assert_int_equal(faccessat(dfd, "made", F_OK, 0), -1); /* nothing made through it */
	assert_int_equal(file_open_out_at(dfd, "hard", 0644, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "hard link"));
	opened(in, got, sizeof(got));
	assert_string_equal(got, "");

	/* a regular file is read, and an output one replaced */
	fmt_buf(path, sizeof(path), "%s/file", top);
	assert_int_equal(unlinkat(dfd, "hard", 0), 0);
	text = file_read_regular(path, 1 << 20, NULL, why, sizeof(why));
	assert_string_equal(text, "hello");
	free(text);
	fd = file_open_out_at(dfd, "file", 0644, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hi", 2), 2);
	close(fd);
	text = file_read(path, NULL);
	assert_string_equal(text, "hi");
	free(text);
	fd = file_open_out_at(dfd, "new", 0600, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode) && (st.st_mode & 0777) == (0600 & ~umask(022)));
	close(fd);
	opened(in, got, sizeof(got));
	assert_non_null(strstr(got, "file "));
	close(in);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mkdir_p_and_rm_rf),
		cmocka_unit_test(read_whole_files),
		cmocka_unit_test(copy_and_lines),
		cmocka_unit_test(exec_in_a_dir),
		cmocka_unit_test(only_regular_files_opened),
		cmocka_unit_test(monotonic),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
