// SPDX-License-Identifier: GPL-2.0
/* The files the peer agent reads, read in-process (peer_files.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "peer_files.h"

/*
 * name: as the run sends it; rel: under /proc, with "%d" for the agent's
 * pid (/proc/net is a symbolic link to self/net, and no link is followed).
 */
static const struct {
	const char *name, *rel;
} files[] = {
	{ "/proc/net/tcp", "%d/net/tcp" },
	{ "/proc/net/tcp6", "%d/net/tcp6" },
	{ "/proc/stat", "stat" },
	{ "/proc/net/snmp", "%d/net/snmp" },
	{ "/proc/net/xfrm_stat", "%d/net/xfrm_stat" },
};

const char peer_files_list[] = "/proc/net/tcp, /proc/net/tcp6, /proc/stat, /proc/net/snmp and /proc/net/xfrm_stat";

static int file_index(const char *name)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(name, files[i].name))
			return (int)i;
	return -1;
}

bool peer_file_known(const char *name)
{
	return file_index(name) >= 0;
}

/* rel below dfd, component by component, no link followed (a kernel without openat2). */
static int open_walk(int dfd, char *rel)
{
	int fd = dup(dfd);
	char *save = NULL;

	for (char *c = strtok_r(rel, "/", &save); c && fd >= 0;) {
		char *next = strtok_r(NULL, "/", &save);
		int nfd = openat(fd, c, next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
					      : O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

		close(fd);
		fd = nfd;
		c = next;
	}
	return fd;
}

/* One file of the table, opened below /proc; an fd or -errno. */
static int open_proc_file(int i)
{
	struct open_how how = { .flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
					   RESOLVE_NO_XDEV };
	char rel[64];
	struct statfs sf;
	struct stat st;
	int dfd, fd, err;

	snprintf(rel, sizeof(rel), files[i].rel, (int)getpid());
	dfd = open("/proc", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fstatfs(dfd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
		close(dfd);
		return -EXDEV; /* not procfs: nothing of it is what the run asked for */
	}
	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = open_walk(dfd, rel);
	err = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0)
		return err;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Append fd's contents to r->out, at most max in all; 0, or -errno. */
static int read_into(int fd, size_t max, struct exec_result *r)
{
	for (;;) {
		char buf[8192];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		if (r->out_len + n > max) {
			r->too_long = true;
			n = (ssize_t)(max - r->out_len);
		}
		char *nb = realloc(r->out, r->out_len + n + 1);

		if (!nb)
			return -ENOMEM;
		r->out = nb;
		memcpy(r->out + r->out_len, buf, n);
		r->out_len += n;
		r->out[r->out_len] = '\0';
		if (r->too_long)
			return 0;
	}
}

/* "cat: NAME: why\n" appended to r->err, as cat says it. */
static void say_err(struct exec_result *r, const char *name, int err)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "cat: %s: %s\n", name, strerror(-err));
	char *nb = realloc(r->err, r->err_len + n + 1);

	if (!nb)
		return;
	r->err = nb;
	memcpy(r->err + r->err_len, line, n + 1);
	r->err_len += n;
}

int peer_files_cat(char *const names[], int n, size_t max, struct exec_result *r)
{
	int status = 0;

	memset(r, 0, sizeof(*r));
	for (int k = 0; k < n; k++)
		if (file_index(names[k]) < 0)
			return -1;
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	if (!r->out || !r->err) {
		free(r->out);
		free(r->err);
		memset(r, 0, sizeof(*r));
		return -1;
	}
	for (int k = 0; k < n && !r->too_long; k++) {
		int fd = open_proc_file(file_index(names[k]));
		int err = fd < 0 ? fd : read_into(fd, max, r);

		if (fd >= 0)
			close(fd);
		if (err < 0) {
			say_err(r, names[k], err);
			status = 1;
		}
	}
	return status;
}
