/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files the peer agent reads for the run (peer_files.c): exactly those
 * the peer testbed reads, /proc/net/tcp and /proc/net/tcp6 (is the load's
 * port taken?), /proc/stat (the peer's busy time without an agent
 * session), /proc/net/snmp and /proc/net/xfrm_stat (the packet-rate load's
 * drops on the peer), read in-process, never by a program and never by a path that
 * came with the request: the request's name only picks an entry of a table.
 */
#ifndef IPSECPERF_PEER_FILES_H
#define IPSECPERF_PEER_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "exec.h"

/* The files, as the run names them, for messages: "/proc/net/tcp, /proc/net/tcp6, ... and /proc/net/xfrm_stat". */
extern const char peer_files_list[];

/* Is name one of the files the agent reads? */
bool peer_file_known(const char *name);

/*
 * `cat` of names (n of them, each peer_file_known) as cat(1) would print
 * them, at most max bytes of output: its exit status (0, or 1 when one
 * could not be read, "cat: NAME: why" in r->err), r->out and r->err
 * malloc'd and NUL-terminated, r->too_long set when the files hold more
 * than max (the output then stops there). -1 (r empty) for a name that is
 * not one of them, or no memory.
 *
 * Each file is opened below /proc (checked to be procfs) by a path of the
 * table, with openat2's RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS,
 * RESOLVE_NO_MAGICLINKS and RESOLVE_NO_XDEV (or, on a kernel without
 * openat2, component by component with O_NOFOLLOW), and read only if it is
 * a regular file.
 */
int peer_files_cat(char *const names[], int n, size_t max, struct exec_result *r);

#endif
