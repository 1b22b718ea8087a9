// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns_call.h"
#include "snmp.h"

static int open_here(void *arg)
{
	int *fd = arg;

	/* thread-self: setns() moved this thread only */
	*fd = open("/proc/thread-self/net/snmp", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -1 : 0;
}

int snmp_open(const char *netns)
{
	int fd = -1;

	if (netns_call(netns, open_here, &fd) < 0)
		return -1;
	return fd;
}

long snmp_read(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	if (len < 2) {
		errno = EINVAL;
		return -1;
	}
	/* a seq_file: pread from 0 shows the counters anew */
	while (n < len - 1 && (r = pread(fd, buf + n, len - 1 - n, (off_t)n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	return (long)n;
}

/* The n-th space-separated word of the line at s (after "Group:"), its length in *len. */
static const char *word(const char *s, int n, size_t *len)
{
	for (int i = 0; ; i++) {
		s += strspn(s, " ");
		if (!*s || *s == '\n')
			return NULL;
		*len = strcspn(s, " \n");
		if (i == n)
			return s;
		s += *len;
	}
}

int snmp_field(const char *text, const char *group, const char *field, uint64_t *v)
{
	size_t glen = strlen(group), flen = strlen(field), len;
	const char *names = NULL, *vals = NULL, *line = text;

	/* the first line of the group names the fields, the second holds their values */
	while (line && *line) {
		if (!strncmp(line, group, glen) && line[glen] == ':') {
			if (!names)
				names = line + glen + 1;
			else {
				vals = line + glen + 1;
				break;
			}
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!names || !vals)
		return -1;
	for (int i = 0; ; i++) {
		const char *w = word(names, i, &len), *x;
		char *end;

		if (!w)
			return -1;
		if (len != flen || strncmp(w, field, flen))
			continue;
		x = word(vals, i, &len);
		if (!x || *x == '-')
			return -1;
		errno = 0;
		*v = strtoull(x, &end, 10);
		return errno || end != x + len ? -1 : 0;
	}
}
