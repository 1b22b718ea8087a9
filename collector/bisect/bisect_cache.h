/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels a bisect built, kept for the next bisect: one folder per
 * source tree (`git rev-parse HEAD^{tree}`), .config and release scheme,
 * holding what `run --testbed vm --kernel DIR` boots (bzImage, vmlinux,
 * modules, kernel.release, .config, System.map) and a manifest of their
 * sizes and SHA-256 sums. An entry is made in a hidden folder and renamed
 * into place, so a half-written one is never taken; every file is checked
 * against the manifest before an entry is taken, and nothing else may be
 * in it. The last BISECT_CACHE_KEEP entries used are kept.
 */
#ifndef IPSECPERF_BISECT_CACHE_H
#define IPSECPERF_BISECT_CACHE_H

#include <stddef.h>

#define BISECT_CACHE_KEEP 16
/* the release scheme: a build's LOCALVERSION is "-bisect-" and 12 digits of its tree's hash */
#define BISECT_LV_SCHEME "bisect-tree12"

struct bisect_key {
	char tree[41];         /* the revision's tree, a full hash */
	char config_sha[65];   /* SHA-256 of the .config the build starts from */
	char localversion[32]; /* "-bisect-<tree's 12 digits>": the release, whoever builds it */
	char name[64];         /* the entry's folder: <tree>-<12 digits of the .config's and the scheme's hash> */
};

/* $IPSECPERF_BISECT_CACHE, or /var/cache/ipsecperf/bisect-kernels. */
const char *bisect_cache_dir(void);

/* How many entries are kept: $IPSECPERF_BISECT_CACHE_KEEP (2 to 1000), else BISECT_CACHE_KEEP. */
int bisect_cache_keep(void);

/* The key of tree (40 hex digits) built from the .config at config; 0, or -1 after one line. */
int bisect_key_make(const char *tree, const char *config, struct bisect_key *k);

/*
 * The entry of k: 0 with its folder and release when it is whole (every
 * file as its manifest says, nothing more) and now marked used; 1 when
 * there is none; 2 when there was one that could not be taken (why says
 * why; it was removed).
 */
int bisect_cache_get(const struct bisect_key *k, char *dir, size_t dlen, char *release, size_t rlen, char *why,
		     size_t wlen);

/*
 * Copy what a run needs from the build folder into the entry of k (built
 * from commit), replacing one there, then keep only the last entries used.
 * 0 with the entry's folder and release, or -1 with why (nothing left
 * behind).
 */
int bisect_cache_put(const struct bisect_key *k, const char *build, const char *commit, char *dir, size_t dlen,
		     char *release, size_t rlen, char *why, size_t wlen);

/* Mark an entry used, so that it is among the last kept. */
void bisect_cache_touch(const char *dir);

#endif
