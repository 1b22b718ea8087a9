// SPDX-License-Identifier: GPL-2.0
#include "vm_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_tar.h"

bool vm_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool vm_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int vm_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
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
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int vm_rm_rf(const char *path)
{
	if (!path || !*path || !strcmp(path, "/"))
		return -1;
	if (access(path, F_OK) < 0)
		return 0;
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int vm_copy_file(const char *src, const char *dst)
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

char *vm_read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int vm_write_file(const char *path, const void *buf, size_t len)
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

int vm_read_line(const char *path, char *out, size_t outlen)
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

int vm_run_in(const char *dir, char *const argv[], char **out)
{
	int p[2] = { -1, -1 }, st;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (dir && chdir(dir) < 0) {
			dprintf(2, "ipsecperf: cannot enter %s: %s\n", dir, strerror(errno));
			_exit(126);
		}
		if (out) {
			dup2(p[1], 1);
			dup2(p[1], 2);
		}
		execvp(argv[0], argv);
		dprintf(2, "ipsecperf: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		char buf[4096];
		size_t len = *out ? strlen(*out) : 0;
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) != 0) {
			char *nb;

			if (n < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			nb = realloc(*out, len + n + 1);
			if (!nb)
				break;
			memcpy(nb + len, buf, n);
			len += n;
			nb[len] = '\0';
			*out = nb;
		}
		close(p[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

void vm_first_line(const char *path, char *out, size_t len)
{
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	out[0] = '\0';
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = buf + strspn(buf, "\r\n\t ");
	p[strcspn(p, "\r\n")] = '\0';
	guest_printable(p, strlen(p), out, len);
}

double vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int vm_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
