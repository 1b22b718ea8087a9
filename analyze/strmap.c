// SPDX-License-Identifier: GPL-2.0
/* A hash table from strings to indices (strmap.h): open addressing, SipHash-1-3 with a random key. */
#include "strmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t key[2];
static bool keyed;

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                          \
	do {                                                              \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                    \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                    \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

static void make_key(void)
{
	if (getrandom(key, sizeof(key), GRND_NONBLOCK) != sizeof(key)) {
		/* no entropy yet (an early guest): still not something input can guess */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		key[0] ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
		key[1] ^= (uint64_t)ts.tv_sec * 0xc2b2ae3d27d4eb4fULL ^ (uint64_t)(uintptr_t)&ts;
	}
	keyed = true;
}

/* SipHash-1-3 of ctx, then s[0..len), then the length. */
static uint64_t hash(uint64_t ctx, const char *s, size_t len)
{
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
	uint64_t m = 0, last = (uint64_t)len << 56;
	size_t i;

	v3 ^= ctx;
	SIPROUND;
	v0 ^= ctx;
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, s + i, 8);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	m = 0;
	memcpy(&m, s + i, len - i);
	last |= m & 0x00ffffffffffffffULL;
	v3 ^= last;
	SIPROUND;
	v0 ^= last;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The slot of (ctx, s) with hash h: where it is, or the empty one where it would go. */
static struct strmap_ent *slot(const struct strmap *m, uint64_t h, uint64_t ctx, const char *s, size_t len)
{
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct strmap_ent *e = &m->v[i];

		if (!e->s || (e->hash == h && e->ctx == ctx && e->len == len && !memcmp(e->s, s, len)))
			return e;
	}
}

size_t strmap_get(const struct strmap *m, uint64_t ctx, const char *s, size_t len)
{
	const struct strmap_ent *e;

	if (!m->n)
		return STRMAP_NONE;
	e = slot(m, hash(ctx, s, len), ctx, s, len);
	return e->s ? e->val : STRMAP_NONE;
}

static int grow(struct strmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct strmap old = *m;

	m->v = calloc(cap, sizeof(*m->v));
	if (!m->v) {
		m->v = old.v;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].s)
			*slot(m, old.v[i].hash, old.v[i].ctx, old.v[i].s, old.v[i].len) = old.v[i];
	free(old.v);
	return 0;
}

int strmap_put(struct strmap *m, uint64_t ctx, const char *s, size_t len, size_t val)
{
	uint64_t h;

	if (!keyed)
		make_key();
	/* at most half full: a probe ends soon */
	if (2 * (m->n + 1) > m->cap && grow(m) < 0)
		return -1;
	h = hash(ctx, s, len);
	*slot(m, h, ctx, s, len) = (struct strmap_ent){ .s = s, .len = len, .ctx = ctx, .hash = h, .val = val };
	m->n++;
	return 0;
}

void strmap_free(struct strmap *m)
{
	free(m->v);
	*m = (struct strmap){ 0 };
}
