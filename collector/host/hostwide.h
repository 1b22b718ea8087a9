/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One lock for the changes a run makes to what the whole host shares:
 * kernel modules, and the offloads of a device outside the run's own
 * namespaces (the peer testbed's --dev here and --peer-dev there). It is an
 * flock on hostwide.lock in the journal folder, taken before the first such
 * change and given back once the journal has undone them (journal.c), so
 * that two runs never make, count or undo each other's host-wide state.
 *
 * The holder writes its pid and start time into the file, for the message
 * of a run that waits. It removes the file before it lets go, so a folder
 * without runs is empty; a waiter that then holds the lock of a removed file
 * sees that the name is gone or is another file, and tries again.
 */
#ifndef IPSECPERF_HOSTWIDE_H
#define IPSECPERF_HOSTWIDE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Take the lock, waiting (with one message per holder) until it is free,
 * unless --no-wait was given or a stop is requested. 0, or -1 with why.
 */
int hostwide_lock(char *why, size_t len);
void hostwide_unlock(void);
bool hostwide_locked(void);

/* run --no-wait: fail at once when another run holds the lock. */
void hostwide_set_no_wait(bool no_wait);

/* `ipsecperf cleanup`: remove a lock file that no run holds (its run was killed). */
void hostwide_cleanup_stale(int dirfd);

#endif
