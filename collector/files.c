// SPDX-License-Identifier: GPL-2.0
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	int err = 0;

	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!nb) {
				err = ENOMEM;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, 65536, f);
		n += got;
	} while (got > 0);
	if (!err && ferror(f))
		err = errno ? errno : EIO;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *file_read_regular(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t n = 0, size;
	struct stat st;
	char *buf = NULL;
	ssize_t got = 1;

	if (fd < 0) {
		snprintf(why, whylen, "%s", errno == ELOOP ? "is a symbolic link; give the file it points to"
			 : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "is not a regular file");
		goto out_close;
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
			snprintf(path, sizeof(path), "%s/%s/%s", exe, rels[i], probe);
			if (access(path, R_OK) == 0) {
				snprintf(buf, len, "%s/%s", exe, rels[i]);
				return buf;
			}
		}
	}
	snprintf(buf, len, "%s", fallback);
	return buf;
}
