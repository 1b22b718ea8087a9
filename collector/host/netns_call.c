// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns_call.h"

int netns_call(const char *netns, int (*fn)(void *arg), void *arg)
{
	int self = -1, target = -1, rc = -1, saved;
	char path[PATH_MAX];

	if (!netns)
		return fn(arg);
	if (!netns_ok(netns)) { /* never a path outside /run/netns */
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return -1;
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self >= 0 && setns(target, CLONE_NEWNET) == 0) {
		rc = fn(arg);
		saved = errno;
		if (setns(self, CLONE_NEWNET) < 0)
			abort(); /* we would be left in the wrong namespace */
		errno = saved;
	}
	saved = errno;
	if (self >= 0)
		close(self);
	close(target);
	errno = saved;
	return rc;
}

struct ifindex_arg {
	const char *dev;
	unsigned int ifindex, inum;
};

static int ifindex_here(void *p)
{
	struct ifindex_arg *a = p;
	struct stat st;

	a->ifindex = if_nametoindex(a->dev);
	if (!a->ifindex || stat("/proc/thread-self/ns/net", &st) < 0)
		return -1;
	a->inum = (unsigned int)st.st_ino;
	return 0;
}

int netns_ifindex(const char *netns, const char *dev, unsigned int *ifindex, unsigned int *ns_inum)
{
	struct ifindex_arg a = { .dev = dev };

	if (netns_call(netns, ifindex_here, &a) < 0)
		return -1;
	*ifindex = a.ifindex;
	*ns_inum = a.inum;
	return 0;
}

bool netns_name_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n >= max || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}
