/* SPDX-License-Identifier: GPL-2.0 */
/* Doing one thing inside a named network namespace from this thread. */
#ifndef IPSECPERF_NETNS_CALL_H
#define IPSECPERF_NETNS_CALL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Enter /run/netns/NETNS (NULL: stay here), call fn(arg), come back.
 * setns() acts on the calling thread only; a socket keeps the namespace it
 * was made in, so fn can open one for later use. Returns fn's value, or -1
 * with errno set when the namespace cannot be entered (ENOENT: no such
 * namespace). fn's errno is kept.
 */
int netns_call(const char *netns, int (*fn)(void *arg), void *arg);

/*
 * The interface index of DEV in NETNS (NULL: this namespace) and the inode
 * number of that namespace, as BPF programs see it (ns.inum). -1 with
 * errno set when either is not there.
 */
int netns_ifindex(const char *netns, const char *dev, unsigned int *ifindex, unsigned int *ns_inum);

/*
 * Names read back from a journal are hostile: is s a plain name (letters,
 * digits, '.', '_', '-'; not "." or "..") of at most max-1 characters? A
 * namespace name becomes a path under /run/netns, an interface name is at
 * most IFNAMSIZ-1 characters.
 */
bool netns_name_ok(const char *s, size_t max);
#define NETNS_NAME_MAX 64
#define netns_ok(s) netns_name_ok((s), NETNS_NAME_MAX)
#define ifname_ok(s) netns_name_ok((s), 16 /* IFNAMSIZ */)

#endif
