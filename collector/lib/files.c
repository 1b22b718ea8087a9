// SPDX-License-Identifier: GPL-2.0
#include "files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"

bool plain_name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	return n && n <= max && strcmp(s, ".") && strcmp(s, "..") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == n;
}

char *file_read_fd(int fd, size_t *len)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;
	bool seek = true; /* pread from 0 until the file says it cannot (a pipe) */
	ssize_t got;

	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		got = seek ? pread(fd, buf + n, cap - n - 1, (off_t)n) : read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == ESPIPE && seek && n == 0) {
			seek = false;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;

			free(buf);
			errno = err;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *file_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = file_read_fd(fd, len);
	err = errno;
	close(fd);
	errno = err;
	return buf;
}

int file_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -1;
	if (len && fwrite(buf, 1, len, f) != len)
		err = -1;
	if (fclose(f) != 0)
		err = -1;
	return err;
}

int file_read_line(const char *path, char *out, size_t outlen)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(out, outlen, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	out[strcspn(out, "\r\n")] = '\0';
	return 0;
}

void file_first_line(const char *path, char *out, size_t len)
{
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t o = 0;

	if (len)
		out[0] = '\0';
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0 || !len)
		return;
	buf[n] = '\0';
	p = buf + strspn(buf, "\r\n\t ");
	p[strcspn(p, "\r\n")] = '\0';
	for (; *p && o + 1 < len; p++)
		out[o++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	out[o] = '\0';
}

int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	struct stat st;
	int in, out, err = -1;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0)
		goto out_close_in;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0)
		goto out_close_in;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, n - off);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				goto out_close_out;
			}
			off += w;
		}
	}
	if (n == 0)
		err = 0;
out_close_out:
	if (close(out) < 0)
		err = -1;
out_close_in:
	close(in);
	return err;
}

bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf)) {
		errno = len ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, mode) < 0 && errno != EEXIST ? -1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int rm_rf(const char *path)
{
	if (!path || !*path || !strcmp(path, "/"))
		return -1;
	if (access(path, F_OK) < 0)
		return 0;
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int file_open_regular_at(int dirfd, const char *name, int flags, struct stat *st)
{
	int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd, err;
	char self[64];
	struct stat again;

	/* never made, never cut here: a caller that truncates does so once it holds the file */
	flags = (flags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_NOCTTY | O_CLOEXEC;
	if (pfd < 0)
		return -1;
	if (fstat(pfd, st) < 0) {
		err = errno;
		close(pfd);
		errno = err;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(pfd);
		errno = S_ISLNK(st->st_mode) ? ELOOP : EINVAL;
		return S_ISLNK(st->st_mode) ? -1 : FILE_NOT_REGULAR;
	}
	/* the inode the O_PATH descriptor holds, opened for real */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, flags);
	err = errno;
	if (fd < 0 && err == ENOENT && access("/proc/self/fd", F_OK) < 0) {
		/* no /proc (an early initramfs): by name, and it must be the file looked at */
		fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK);
		err = errno;
		if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev || again.st_ino != st->st_ino)) {
			close(fd);
			fd = -1;
			err = EAGAIN;
		}
	}
	close(pfd);
	errno = err;
	return fd;
}

int file_open_out_at(int dirfd, const char *name, mode_t mode, char *why, size_t whylen)
{
	struct stat st;
	int fd = -1;

	/* twice: a file removed between the two looks is made anew */
	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
		/* a hard link is refused before it is opened (and again after, in case it changed) */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_nlink != 1) {
			snprintf(why, whylen, "exists with another hard link; remove it first");
			return -1;
		}
		fd = file_open_regular_at(dirfd, name, O_WRONLY, &st);
		if (fd == FILE_NOT_REGULAR) {
			snprintf(why, whylen, "exists and is not a regular file");
			return -1;
		}
		if (fd >= 0 && st.st_nlink != 1) {
			close(fd);
			snprintf(why, whylen, "exists with another hard link; remove it first");
			return -1;
		}
		if (fd >= 0 && ftruncate(fd, 0) < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			close(fd);
			return -1;
		}
		if (fd < 0 && errno != ENOENT)
			break;
	}
	if (fd < 0)
		snprintf(why, whylen, "%s", errno == ELOOP ? "is a symbolic link; output is never written through one"
			 : strerror(errno));
	return fd;
}

char *file_read_regular(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	int fd = file_open_regular_at(AT_FDCWD, path, O_RDONLY, &st);
	size_t n = 0, size;
	char *buf = NULL;
	ssize_t got = 1;

	if (fd < 0) {
		snprintf(why, whylen, "%s", fd == FILE_NOT_REGULAR ? "is not a regular file" :
			 errno == ELOOP ? "is a symbolic link; give the file it points to" : strerror(errno));
		return NULL;
	}
	if ((unsigned long long)st.st_size > max) {
		snprintf(why, whylen, "is larger than %zu bytes", max);
		goto out_close;
	}
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		goto out_close;
	}
	while (n < size && (got = read(fd, buf + n, size - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
	}
	/* one byte more than fstat said: it grows as we read */
	if (got > 0 && read(fd, &(char){ 0 }, 1) > 0) {
		snprintf(why, whylen, "grew while it was read");
		goto out_free;
	}
	if (got < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto out_free;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	close(fd);
	return buf;
out_free:
	free(buf);
	buf = NULL;
out_close:
	close(fd);
	return buf;
}

/* dir without its trailing slashes: "link/" would follow the symlink that "link" names. */
static int strip_slashes(const char *dir, char *buf, size_t len, char *why, size_t whylen)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 0 || n >= len) {
		snprintf(why, whylen, "%s", n ? strerror(ENAMETOOLONG) : "an empty folder name");
		return -1;
	}
	memcpy(buf, dir, n);
	buf[n] = '\0';
	return 0;
}

/* An existing folder, opened with O_NOFOLLOW: empty, ours, written by no one else? */
static int out_dir_fd_ok(int fd, char *why, size_t whylen)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int dup_fd, empty = 1;

	if (fstat(fd, &st) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, whylen, "exists and %s", st.st_uid != geteuid() ? "belongs to another user"
			 : "other users can write to it");
		return -1;
	}
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	if (!d) {
		snprintf(why, whylen, "%s", strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	if (!empty) {
		snprintf(why, whylen, "exists and is not empty");
		return -1;
	}
	return 0;
}

/* Open an existing folder as out_dir_* take it: no symlink, and nothing else than a folder. */
static int out_dir_open_existing(const char *dir, char *why, size_t whylen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		int err = errno;

		/* O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR or ELOOP */
		if ((err == ENOTDIR || err == ELOOP) && lstat(dir, &st) == 0)
			snprintf(why, whylen, "%s", S_ISLNK(st.st_mode) ? "is a symbolic link"
				 : "exists and is not a folder");
		else
			snprintf(why, whylen, "%s", strerror(err));
		return -1;
	}
	if (out_dir_fd_ok(fd, why, whylen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int out_dir_check(const char *dir, bool parent_optional, char *why, size_t whylen)
{
	char buf[PATH_MAX], *slash;
	struct stat st;
	int fd, err;

	if (strip_slashes(dir, buf, sizeof(buf), why, whylen) < 0)
		return -1;
	if (lstat(buf, &st) == 0) {
		fd = out_dir_open_existing(buf, why, whylen);
		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	}
	if (errno != ENOENT) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	slash = strrchr(buf, '/');
	if (slash == buf)
		slash++; /* "/x": the parent is "/" */
	if (slash)
		*slash = '\0';
	if (parent_optional || !slash)
		return 0;
	err = stat(buf, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (err) {
		snprintf(why, whylen, "its parent folder %s %s", buf,
			 err == ENOENT ? "does not exist" : err == ENOTDIR ? "is not a folder" : strerror(err));
		return -1;
	}
	return 0;
}

int out_dir_open(const char *dir, char *why, size_t whylen)
{
	char buf[PATH_MAX];

	if (strip_slashes(dir, buf, sizeof(buf), why, whylen) < 0)
		return -1;
	if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
		snprintf(why, whylen, "cannot create it: %s", strerror(errno));
		return -1;
	}
	return out_dir_open_existing(buf, why, whylen);
}

const char *data_dir(const char *env, const char *const rels[], const char *probe,
		     const char *fallback, char *buf, size_t len)
{
	const char *e = env ? getenv(env) : NULL;
	char exe[PATH_MAX], path[PATH_MAX + 256];
	ssize_t n;

	if (e && *e) {
		snprintf(buf, len, "%s", e);
		return buf;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; slash && rels[i]; i++) {
			char real[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s/%s", exe, rels[i], probe);
			if (access(path, R_OK) == 0) {
				/* /usr/share/ipsecperf/..., not /usr/bin/../share/... in messages */
				snprintf(path, sizeof(path), "%s/%s", exe, rels[i]);
				snprintf(buf, len, "%s", realpath(path, real) ? real : path);
				return buf;
			}
		}
	}
	/* a copy of the program elsewhere: the data of the install it was built for */
	if (fallback[0] == '/')
		snprintf(buf, len, "%s", fallback);
	else
		snprintf(buf, len, "%s/%s", IPSECPERF_DATADIR, fallback);
	return buf;
}
