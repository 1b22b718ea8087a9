// SPDX-License-Identifier: GPL-2.0
#include "safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

int safe_open(const char *path, int flags, mode_t mode)
{
	int acc = flags & (O_ACCMODE | O_APPEND), err;
	bool writes = (flags & O_ACCMODE) != O_RDONLY;
	struct stat st;

	for (int tries = 0; tries < 3; tries++) {
		int fd;

		/* a file to write with another name is refused before it is opened (and after, below) */
		if (writes && fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_nlink != 1) {
			errno = EPERM;
			return -1;
		}
		/* looked at with O_PATH, opened only once it is known to be a regular file */
		fd = file_open_regular_at(AT_FDCWD, path, acc, &st);

		if (fd == FILE_NOT_REGULAR) {
			errno = EPERM;
			return -1;
		}
		if (fd < 0 && errno == ENOENT && (flags & O_CREAT)) {
			/* a new regular file, never one that appeared meanwhile */
			fd = open(path, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
			if (fd >= 0 || errno != EEXIST)
				return fd;
			continue;
		}
		if (fd < 0)
			return -1;
		if (writes && st.st_nlink != 1) {
			close(fd);
			errno = EPERM;
			return -1;
		}
		if ((flags & O_TRUNC) && ftruncate(fd, 0) < 0) {
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		return fd;
	}
	errno = EEXIST;
	return -1;
}

const char *safe_open_error(int err)
{
	return err == ELOOP || err == EPERM ? "a link, or not a plain file: refused" : strerror(err);
}

int safe_dir_ours(const char *path, char *why, size_t len)
{
	char real[PATH_MAX], *slash;
	struct stat st;
	bool top = true;

	if (!realpath(path, real)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (stat(real, &st) < 0) {
			snprintf(why, len, "%s: %s", real, strerror(errno));
			return -1;
		}
		if (top && !S_ISDIR(st.st_mode)) {
			snprintf(why, len, "%s is not a folder", real);
			return -1;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			snprintf(why, len, "%s is owned by uid %u", real, (unsigned)st.st_uid);
			return -1;
		}
		if ((st.st_mode & 022) && (top || !(st.st_mode & S_ISVTX))) {
			snprintf(why, len, "%s can be written by its group or others (mode %04o)", real,
				 (unsigned)(st.st_mode & 07777));
			return -1;
		}
		if (!strcmp(real, "/"))
			return 0;
		slash = strrchr(real, '/');
		slash[slash == real] = '\0'; /* "/a" -> "/", "/a/b" -> "/a" */
		top = false;
	}
}

/* Empty the folder dfd, depth levels at most below it; closes dfd. 0 or -1 with errno. */
static int rm_contents(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int err = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while (!err && (de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			err = errno == ENOENT ? 0 : -1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT ? -1 : 0;
			continue;
		}
		if (depth <= 0) {
			errno = ELOOP;
			err = -1;
			break;
		}
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || rm_contents(sub, depth - 1) < 0 || unlinkat(dfd, de->d_name, AT_REMOVEDIR) < 0)
			err = -1;
	}
	closedir(d);
	return err;
}

int safe_rm_tree(const char *path, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path,
			 errno == ELOOP || errno == ENOTDIR ? "a link or not a folder: not ours, left" : strerror(errno));
		return errno == ELOOP || errno == ENOTDIR ? 1 : -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, len, "%s is owned by uid %u with mode %04o, not this user's alone: not ours, left", path,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return 1;
	}
	if (rm_contents(fd, 32) < 0 || (rmdir(path) < 0 && errno != ENOENT)) {
		snprintf(why, len, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int safe_git_config_env(const char *name, const char *value)
{
	const char *c = getenv("GIT_CONFIG_COUNT");
	char var[48], count[16];
	long n = c && *c ? strtol(c, NULL, 10) : 0;

	if (n < 0 || n > 10000)
		n = 0;
	snprintf(count, sizeof(count), "%ld", n + 1);
	snprintf(var, sizeof(var), "GIT_CONFIG_KEY_%ld", n);
	if (setenv(var, name, 1) < 0)
		return -1;
	snprintf(var, sizeof(var), "GIT_CONFIG_VALUE_%ld", n);
	if (setenv(var, value, 1) < 0)
		return -1;
	return setenv("GIT_CONFIG_COUNT", count, 1);
}

int safe_git_env(void)
{
	return safe_git_config_env("core.hooksPath", "/dev/null") < 0 ||
	       safe_git_config_env("core.fsmonitor", "false") < 0 ? -1 : 0;
}
