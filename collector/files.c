// SPDX-License-Identifier: GPL-2.0
#include "files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"

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
