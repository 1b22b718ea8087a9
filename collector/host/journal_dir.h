/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The folders journals live in, and the checks that keep anyone but root
 * from putting a journal there: `ipsecperf cleanup` runs what a journal
 * says, as root, so a journal another user could write would be their code.
 * A journal folder must be a directory (not a symlink) owned by root with
 * mode 0700; a journal file a regular file owned by root, opened without
 * following a symlink.
 *
 * Two folders. Changes to this host are journaled in /run/ipsecperf: a
 * tmpfs, gone at a reboot as those changes are. Changes that outlive a
 * reboot of this host (the peer testbed's, made on another host; a
 * bisect's, whose state is in the kernel tree on disk) are journaled in
 * /var/lib/ipsecperf/journal, so `ipsecperf cleanup` can still undo them
 * afterwards. $IPSECPERF_JOURNAL_DIR moves the first
 * (the tests use folders of their own); the second is then its "peer"
 * subfolder, unless $IPSECPERF_PEER_JOURNAL_DIR names one.
 */
#ifndef IPSECPERF_JOURNAL_DIR_H
#define IPSECPERF_JOURNAL_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "wait.h" /* proc_starttime */

const char *journal_dir(void);
const char *journal_peer_dir(void);

/*
 * Open a journal folder (creating it, and missing parents, with mode 0700
 * when create is set) and check it. Returns a directory fd, or -1 with the
 * reason in why; errno is ENOENT when it does not exist and create is not
 * set (which is no error for a reader).
 */
int jdir_open(const char *path, bool create, char *why, size_t len);

/*
 * Open name inside the folder dirfd (at dirpath, for messages) with flags
 * (O_NOFOLLOW and O_CLOEXEC are added) and mode; a file that is a symlink,
 * not regular, or not owned by root is refused: -1 with why.
 */
int jdir_openat(int dirfd, const char *dirpath, const char *name, int flags, int mode, char *why,
		size_t len);

#endif
