// SPDX-License-Identifier: GPL-2.0
#include "journal_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

const char *journal_dir(void)
{
	const char *d = getenv("IPSECPERF_JOURNAL_DIR");

	return d && *d ? d : "/run/ipsecperf";
}

const char *journal_peer_dir(void)
{
	static char buf[PATH_MAX];
	const char *d = getenv("IPSECPERF_PEER_JOURNAL_DIR"), *j = getenv("IPSECPERF_JOURNAL_DIR");

	if (d && *d)
		return d;
	if (!j || !*j)
		return "/var/lib/ipsecperf/journal";
	snprintf(buf, sizeof(buf), "%s/peer", j);
	return buf;
}

int jdir_open(const char *path, bool create, char *why, size_t len)
{
	struct stat st = { 0 };
	int fd, saved;

	if (create && mkdir_p(path, 0700) < 0) {
		snprintf(why, len, "cannot create the journal folder %s: %s", path, strerror(errno));
		return -1;
	}
	/* O_NOFOLLOW: a symlink in the folder's place is refused, not followed */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		if (saved == ELOOP || saved == ENOTDIR)
			snprintf(why, len, "the journal folder %s is a symlink or not a directory: refused; remove it (the journal folder must be root's own)",
				 path);
		else
			snprintf(why, len, "cannot open the journal folder %s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 07777) != 0700) {
		snprintf(why, len, "the journal folder %s is owned by uid %u with mode %04o, not root's with 0700: refused, as another user could plant a journal there; fix it with chown root:root %s && chmod 0700 %s",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), path, path);
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int jdir_openat(int dirfd, const char *dirpath, const char *name, int flags, int mode, char *why,
		size_t len)
{
	struct stat st;
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(why, len, "%s/%s is a symlink: refused", dirpath, name);
		else
			snprintf(why, len, "cannot open %s/%s: %s", dirpath, name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		snprintf(why, len, "%s/%s is not a regular file owned by root: refused", dirpath, name);
		close(fd);
		return -1;
	}
	return fd;
}

