/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A network namespace's SNMP counters (/proc/net/snmp): the kernel counts
 * them anyway, so reading them at a window's edges costs the data path
 * nothing.
 */
#ifndef IPSECPERF_SNMP_H
#define IPSECPERF_SNMP_H

#include <stddef.h>
#include <stdint.h>

/*
 * /proc/net/snmp of NETNS (NULL: this namespace), opened there: the file
 * keeps that namespace, so it can be read again from anywhere. fd or -1
 * with errno set.
 */
int snmp_open(const char *netns);

/*
 * The field FIELD of group GROUP ("Tcp", "OutSegs") in text, /proc/net/snmp's
 * two lines per group (names, then values). 0, or -1 when it is not there.
 */
int snmp_field(const char *text, const char *group, const char *field, uint64_t *v);

/* Read fd again (from its start) into buf; its length, or -1 with errno set. */
long snmp_read(int fd, char *buf, size_t len);

#endif
