/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys out of core dumps (keys are never printed or stored: docs/security.md).
 * While a key is held the process is not dumpable (PR_SET_DUMPABLE 0), so
 * that no copy of it reaches a core file: not the key's own buffer, nor
 * the copies that cannot live anywhere else (a netlink message on the
 * stack, the JSON text of a request, a child's copy after fork). The last
 * release restores what was there before. Buffers that hold keys for long
 * (the peer agent's request line) come from secret_alloc(): pages that
 * core dumps leave out even if the process became dumpable again
 * (MADV_DONTDUMP, "dd" in /proc/PID/smaps), kept out of swap where the
 * memlock limit allows, and wiped before they are unmapped.
 *
 * For root, PR_SET_DUMPABLE 0 changes nothing else that ipsecperf uses:
 * /proc/self stays root's and setns() works (tests/unit/test_secret.c,
 * test_keys.sh run a TCP-MD5 scenario in two namespaces under it).
 */
#ifndef IPSECPERF_SECRET_H
#define IPSECPERF_SECRET_H

#include <stddef.h>

/* A key is held from here (nestable) ... */
void secret_hold(void);
/* ... to here, after it was wiped. */
void secret_release(void);

/* len zeroed bytes, page-aligned and left out of core dumps, held; NULL with errno. */
void *secret_alloc(size_t len);
/* Wipe, unmap and release an area of secret_alloc() (p may be NULL). */
void secret_free(void *p, size_t len);

#endif
