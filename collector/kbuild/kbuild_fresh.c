// SPDX-License-Identifier: GPL-2.0
/*
 * Whether `kernel build` has anything to do. make answers that too, but a
 * no-op kernel make walks every Makefile of the tree and relinks nothing:
 * 20 s on 2 CPUs, paid on every boot of a test or CI recipe that builds
 * "in case". A stamp written after each successful build holds what the
 * build depended on besides files (make's command line and environment);
 * when it matches and no file or folder of the tree or the build folder
 * is newer than it, the build is up to date. This is make's own rule
 * (mtimes) applied to the whole tree at once, so it errs only towards
 * running make.
 */
#define _XOPEN_SOURCE 700
#include "kbuild_int.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "log.h"
#include "safefile.h"

#define STAMP "ipsecperf-built"

/* What make reads from the environment that changes what it builds. */
static const char *const make_env[] = { "ARCH", "CROSS_COMPILE", "LLVM", "CC", "HOSTCC", "KCFLAGS",
					"KCPPFLAGS", "KAFLAGS", "KBUILD_BUILD_VERSION",
					"KBUILD_BUILD_TIMESTAMP", "KBUILD_BUILD_USER", "KBUILD_BUILD_HOST",
					"KBUILD_EXTRA_SYMBOLS", NULL };

/*
 * The programs that make it, as PATH finds them: the file a name resolves
 * to and its mtime, so that another compiler or an upgraded one counts,
 * and a PATH that only differs elsewhere (a folder of other programs
 * first) does not.
 */
static const char *const make_tools[] = { "make", "gcc", "ld", "pahole", NULL };

static size_t tools_text(char *buf, size_t len)
{
	size_t n = 0;

	for (const char *const *t = make_tools; *t && n < len; t++) {
		char found[PATH_MAX], real[PATH_MAX];
		struct stat st;

		if (exec_find(*t, found, sizeof(found)) < 0 || !realpath(found, real) || stat(real, &st) < 0)
			n += (size_t)snprintf(buf + n, len - n, "%s: not found\n", *t);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s: %s %lld\n", *t, real, (long long)st.st_mtime);
	}
	return n;
}

/* The stamp's text: make's arguments but -j, each variable above, the tools. */
static void stamp_text(char *const argv[], char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (char *const *a = argv; *a && n < len; a++)
		if (strncmp(*a, "-j", 2))
			n += (size_t)snprintf(buf + n, len - n, "%s\n", *a);
	for (const char *const *e = make_env; *e && n < len; e++) {
		const char *v = getenv(*e);

		n += (size_t)snprintf(buf + n, len - n, "%s=%s%s\n", *e, v ? "" : "(unset)", v ? v : "");
	}
	if (n < len)
		tools_text(buf + n, len - n);
}

static struct timespec walk_since;
static dev_t skip_dev;
static ino_t skip_ino, skip_dir;
static char newer_path[PATH_MAX]; /* the first newer file the walk met */

/*
 * Files, and folders but the stamp's own (writing the stamp moves its
 * mtime): a folder's mtime moves when a file in it is removed or
 * renamed, which make would notice by a missing prerequisite.
 */
static int newer_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_D && !strcmp(path + ftw->base, ".git"))
		return FTW_SKIP_SUBTREE; /* git's own bookkeeping: make never reads it */
	if (type != FTW_F && type != FTW_SL && type != FTW_D)
		return FTW_CONTINUE;
	if (st->st_dev == skip_dev && (st->st_ino == skip_ino || st->st_ino == skip_dir))
		return FTW_CONTINUE;
	/* newer, as make and find -newer count it: the file system's clock ticks
	 * coarsely, and make's last files often share the stamp's mtime */
	if (st->st_mtim.tv_sec > walk_since.tv_sec ||
	    (st->st_mtim.tv_sec == walk_since.tv_sec && st->st_mtim.tv_nsec > walk_since.tv_nsec)) {
		snprintf(newer_path, sizeof(newer_path), "%s", path);
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

/* 0 if no file below dir but the stamp is as new as the stamp; 1 if one is, -1 on a walk error. */
static int newer_below(const char *dir, const struct stat *stamp, const struct stat *stamp_dir)
{
	int r;

	walk_since = stamp->st_mtim;
	skip_dev = stamp->st_dev;
	skip_ino = stamp->st_ino;
	skip_dir = stamp_dir->st_ino;
	r = nftw(dir, newer_cb, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	return r == FTW_STOP ? 1 : r == 0 ? 0 : -1;
}

/* Whether path names a folder below dir (the walk of dir took it in). */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' && !strstr(path + n, "/..");
}

bool kbuild_up_to_date(const struct kbuild *b, char *const argv[], char *why, size_t len)
{
	char stamp[4200], want[8192], *have;
	const char *dir = (b->out ? b->out : b->tree);
	struct stat st, dst;
	size_t n;
	bool same;
	int r, fd;

	/* the image itself: a folder with its objects but no bzImage is not built */
	fmt_buf(stamp, sizeof(stamp), "%s/arch/x86/boot/bzImage", dir);
	if (!is_file(stamp)) {
		fmt_buf(why, len, "no %s", stamp);
		return false;
	}
	fmt_buf(stamp, sizeof(stamp), "%s/%s", dir, STAMP);
	fd = safe_open(stamp, O_RDONLY, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || stat(dir, &dst) < 0 || dst.st_dev != st.st_dev) {
		fmt_buf(why, len, "no %s (no build here ended)", stamp);
		if (fd >= 0)
			close(fd);
		return false;
	}
	have = file_read_fd(fd, &n);
	close(fd);
	stamp_text(argv, want, sizeof(want));
	same = have && !strcmp(have, want);
	free(have);
	if (!same) {
		fmt_buf(why, len, "the make arguments, build environment or tools differ from the last build's");
		return false;
	}
	newer_path[0] = '\0';
	r = newer_below(b->tree, &st, &dst);
	if (r == 0 && b->out && !inside(b->out, b->tree))
		r = newer_below(b->out, &st, &dst);
	if (r == 1)
		fmt_buf(why, len, "%s is newer than the last build", newer_path);
	else if (r < 0)
		fmt_buf(why, len, "cannot read every file of %s: %s", dir, strerror(errno));
	return r == 0;
}

void kbuild_stamp(const struct kbuild *b, char *const argv[], bool built)
{
	char stamp[4200], text[8192];
	size_t len;
	int fd;

	fmt_buf(stamp, sizeof(stamp), "%s/%s", (b->out ? b->out : b->tree), STAMP);
	if (!built) {
		if (unlink(stamp) < 0 && errno != ENOENT)
			pr_warn("kernel build: cannot remove %s: %s", stamp, strerror(errno));
		return;
	}
	stamp_text(argv, text, sizeof(text));
	len = strlen(text);
	fd = safe_open(stamp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		pr_warn("kernel build: cannot write %s: the next build runs make to find out", stamp);
	if (fd >= 0)
		close(fd);
}
