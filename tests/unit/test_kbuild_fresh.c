// SPDX-License-Identifier: GPL-2.0
/*
 * `kernel build`'s up-to-date check (collector/kbuild/kbuild_fresh.c) on a small
 * tree of its own: fresh only after a successful build's stamp, with the
 * same make arguments, environment and tools (by the files PATH finds,
 * not PATH itself), and with no file of the tree or
 * the build folder newer than the stamp; git's folder and the
 * mtime of the folder that holds the stamp does not count, a removed file
 * does; a stamp that is a symlink, a FIFO or a device is never taken
 * nor written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kbuild_int.h"

static char root[64], tree[128], out[128], git[160], boot[200];

static void put(const char *dir, const char *name)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

/* Every file's mtime an hour back, as a build long done would leave them. */
static void age(const char *dir, const char *name)
{
	char p[256];
	struct timespec ts[2] = { { .tv_sec = time(NULL) - 3600 }, { .tv_sec = time(NULL) - 3600 } };

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static int setup(void **state)
{
	char arch[200], x86[200];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kbuild-fresh-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(tree, sizeof(tree), "%s/linux", root);
	snprintf(out, sizeof(out), "%s/linux/build", root);
	snprintf(git, sizeof(git), "%s/.git", tree);
	snprintf(arch, sizeof(arch), "%s/arch", out);
	snprintf(x86, sizeof(x86), "%s/arch/x86", out);
	snprintf(boot, sizeof(boot), "%s/arch/x86/boot", out);
	for (const char *const *d = (const char *const[]){ tree, out, git, arch, x86, boot, NULL }; *d; d++)
		assert_int_equal(mkdir(*d, 0755), 0);
	put(tree, "Makefile");
	put(tree, "old.c");
	put(out, "vmlinux");
	put(boot, "bzImage");
	age(tree, "Makefile");
	age(tree, "old.c");
	age(out, "vmlinux");
	age(boot, "bzImage");
	for (const char *const *d = (const char *const[]){ tree, out, git, arch, x86, boot, NULL }; *d; d++)
		age(*d, "");
	unsetenv("KCFLAGS");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

/* The stamp 10 s back: an edit made now is newer even where mtimes tick coarsely. */
static void stamp_back(void)
{
	char p[200];
	struct timespec ts[2] = { { .tv_sec = time(NULL) - 10 }, { .tv_sec = time(NULL) - 10 } };

	snprintf(p, sizeof(p), "%s/ipsecperf-built", out);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static char *const argv_a[] = { "make", "-C", tree, "O=x", "-j2", "bzImage", NULL };
static char *const argv_j8[] = { "make", "-C", tree, "O=x", "-j8", "bzImage", NULL };
static char *const argv_lv[] = { "make", "-C", tree, "O=x", "-j2", "LOCALVERSION=-p", "bzImage", NULL };

/* kbuild_up_to_date, its reason kept in why */
static char why[4400];
static bool up(const struct kbuild *b, char *const argv[])
{
	why[0] = '\0';
	return kbuild_up_to_date(b, argv, why, sizeof(why));
}

static void test_fresh(void **state)
{
	struct kbuild b = { .tree = tree, .out = out };

	(void)state;
	assert_false(up(&b, argv_a)); /* never built */
	assert_non_null(strstr(why, "ipsecperf-built (no build here ended)"));
	kbuild_stamp(&b, argv_a, true);
	stamp_back();
	assert_true(up(&b, argv_a));
	assert_true(up(&b, argv_j8));   /* -j changes nothing built */
	assert_false(up(&b, argv_lv));  /* another release */
	setenv("KCFLAGS", "-O1", 1);
	assert_false(up(&b, argv_a));   /* make reads it */
	assert_non_null(strstr(why, "build environment"));
	unsetenv("KCFLAGS");
	assert_true(up(&b, argv_a));

	/* PATH: a folder of other programs first changes nothing, another gcc does */
	char bin[160], path[4096], *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(bin, sizeof(bin), "%s/bin", root);
	assert_int_equal(mkdir(bin, 0755), 0);
	put(bin, "python3");
	snprintf(path, sizeof(path), "%s:%s", bin, old);
	setenv("PATH", path, 1);
	assert_true(up(&b, argv_a));
	put(bin, "gcc");
	snprintf(path, sizeof(path), "%s/gcc", bin);
	assert_int_equal(chmod(path, 0755), 0);
	assert_false(up(&b, argv_a));
	setenv("PATH", old, 1);
	free(old);
	assert_true(up(&b, argv_a));

	put(git, "index"); /* git's bookkeeping: make never reads it */
	assert_true(up(&b, argv_a));

	put(tree, "Makefile"); /* an edit in the tree, named as the reason */
	assert_false(up(&b, argv_a));
	assert_non_null(strstr(why, "/Makefile is newer than the last build"));
	age(tree, "Makefile");
	assert_true(up(&b, argv_a));
	put(out, ".config"); /* menuconfig in the build folder */
	assert_false(up(&b, argv_a));
	age(out, ".config");
	assert_true(up(&b, argv_a));

	char p[200];
	snprintf(p, sizeof(p), "%s/old.c", tree); /* a file removed: its folder's mtime moved */
	assert_int_equal(unlink(p), 0);
	assert_false(up(&b, argv_a));
	age(tree, "");
	assert_true(up(&b, argv_a));
	snprintf(p, sizeof(p), "%s/arch/x86/boot/bzImage", out); /* the image removed */
	assert_int_equal(unlink(p), 0);
	assert_false(up(&b, argv_a));
	assert_non_null(strstr(why, "arch/x86/boot/bzImage"));
	put(boot, "bzImage");
	age(boot, "bzImage");
	age(boot, "");
	assert_true(up(&b, argv_a));

	kbuild_stamp(&b, argv_a, false); /* a build started: until it ends, nothing is fresh */
	assert_false(up(&b, argv_a));
}

static void test_stamp_symlink(void **state)
{
	struct kbuild b = { .tree = tree, .out = out };
	char stamp[160], real[160];

	(void)state;
	kbuild_stamp(&b, argv_a, true);
	snprintf(stamp, sizeof(stamp), "%s/ipsecperf-built", out);
	snprintf(real, sizeof(real), "%s/elsewhere", root);
	assert_int_equal(rename(stamp, real), 0);
	assert_int_equal(symlink(real, stamp), 0);
	age(out, "ipsecperf-built");
	assert_false(up(&b, argv_a));
	kbuild_stamp(&b, argv_a, true); /* O_NOFOLLOW: not written through the link */
	struct stat st;
	assert_int_equal(lstat(stamp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a FIFO (or a device) there is refused unopened: opening a FIFO to write would wait forever */
	assert_int_equal(unlink(stamp), 0);
	assert_int_equal(mkfifo(stamp, 0644), 0);
	alarm(10);
	assert_false(up(&b, argv_a));
	kbuild_stamp(&b, argv_a, true);
	alarm(0);
	assert_int_equal(lstat(stamp, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stamp_symlink, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
