/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device's offload features through ethtool netlink (the generic netlink
 * family "ethtool", ETHTOOL_MSG_FEATURES_GET/SET) with libmnl: what
 * `ethtool -k` reads and `ethtool -K` sets, without starting ethtool.
 * Feature names are the kernel's (tx-tcp-segmentation, rx-gro, ...).
 */
#ifndef IPSECPERF_ETHTOOL_NL_H
#define IPSECPERF_ETHTOOL_NL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETHNL_FEATURES_MAX 128
#define ETHNL_NAME_LEN 32 /* ETH_GSTRING_LEN */

struct ethnl_features {
	int n;                                   /* features the kernel names */
	char name[ETHNL_FEATURES_MAX][ETHNL_NAME_LEN];
	uint32_t hw[ETHNL_FEATURES_MAX / 32];    /* changeable */
	uint32_t wanted[ETHNL_FEATURES_MAX / 32];
	uint32_t active[ETHNL_FEATURES_MAX / 32];
	uint32_t nochange[ETHNL_FEATURES_MAX / 32];
};

static inline bool ethnl_bit(const uint32_t *map, int i)
{
	return i >= 0 && i < ETHNL_FEATURES_MAX && (map[i / 32] >> (i % 32)) & 1;
}

/* Can feature i be changed (`ethtool -k` prints no "[fixed]")? */
static inline bool ethnl_changeable(const struct ethnl_features *f, int i)
{
	return ethnl_bit(f->hw, i) && !ethnl_bit(f->nochange, i);
}

/* Is the family there (cached)? 1 yes, 0 no (use the ethtool program). */
int ethnl_available(void);

/* Read DEV's features in NETNS (NULL: here). 0 or -errno, err says what. */
int ethnl_features_get(const char *netns, const char *dev, struct ethnl_features *f,
		       char *err, size_t errlen);

/* Set the wanted state of n features by name. 0 or -errno. */
int ethnl_features_set(const char *netns, const char *dev, const char *const names[],
		       const bool on[], int n, char *err, size_t errlen);

/* The FEATURES_SET message, built into buf (NLSOCK_BUF bytes): for the unit tests. */
int ethnl_features_set_build(void *buf, uint16_t family, const char *dev,
			     const char *const names[], const bool on[], int n);

/*
 * The journal's record of features to set back:
 * {"kind": "ethtool-features", "netns": NS (absent: here), "dev": DEV,
 *  "wanted": {NAME: true|false, ...}}. Undone by setting them again; a
 * namespace or device that is gone counts as undone. Names are checked
 * (the record is hostile input) before anything is done.
 */
json_t *ethnl_features_record(const char *netns, const char *dev);
int ethnl_undo_features(json_t *r);

#endif
