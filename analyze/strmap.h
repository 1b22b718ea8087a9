/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash table from strings to indices, for readers of hostile input that
 * must look names up in constant time (folded stacks: a frame's function,
 * a command, a frame's child). Keys are not copied: the caller keeps them
 * alive as long as the table. A key is a string of len bytes (not
 * necessarily NUL-terminated) and a number ctx that is part of it (a
 * parent's index; 0 when unused). The hash is SipHash-1-3 under a key
 * drawn from getrandom() once per process, so that input cannot be made
 * to collide on purpose.
 */
#ifndef IPSECPERF_STRMAP_H
#define IPSECPERF_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#define STRMAP_NONE SIZE_MAX

struct strmap_ent {
	const char *s; /* NULL: an empty slot */
	size_t len;
	uint64_t ctx, hash;
	size_t val;
};

struct strmap {
	struct strmap_ent *v;
	size_t n, cap; /* cap: 0 or a power of two */
};

/* The value of (ctx, s[0..len)), or STRMAP_NONE. */
size_t strmap_get(const struct strmap *m, uint64_t ctx, const char *s, size_t len);

/* Add (ctx, s[0..len)) -> val, which must not be there yet: 0, or -1 out of memory. */
int strmap_put(struct strmap *m, uint64_t ctx, const char *s, size_t len, size_t val);

void strmap_free(struct strmap *m);

#endif
