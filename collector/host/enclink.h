/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Encrypted links beside IPsec: a device of the kernel's own at each end,
 * over the testbed's link, that encrypts what goes through it, and the
 * load over the devices' addresses. One table entry a kind (the scenario's
 * section of the same name): WireGuard (wg.h, ChaCha20-Poly1305) and
 * MACsec (macsec.h, GCM-AES). An entry says its module, the ciphers it
 * takes, its secret a direction, and makes one end's device, makes the
 * other end its peer, and reads the kernel's counters of the device.
 * Nothing here journals: the caller journals the device's undo
 * (enclink_undo_record) before it is made.
 *
 * A façade of enclink.c (the kinds and their counters), enclink_find.c
 * (the lookups in the table) and enclink_agent.c (the journal's undo of a
 * device, and the peer agent's requests).
 */
#ifndef IPSECPERF_ENCLINK_H
#define IPSECPERF_ENCLINK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ENCLINK_KEY_MAX 32 /* a secret a direction, at most */
#define ENCLINK_ID_MAX 32  /* what an end tells the other of itself, at most */
#define ENCLINK_COUNTERS 10

/* One end's device: where it is made and on what. */
struct enclink_dev {
	const char *netns;     /* this host's namespace (NULL: its own) */
	const char *dev;       /* the device to make */
	const char *lower;     /* the link device under it */
	const char *cipher;    /* one the kind takes */
	int mtu;               /* its MTU; 0: the kernel's */
	const char *addr;      /* its address (no prefix length) */
	int plen;
	const char *link_addr; /* its end's address on the link under it */
};

/* What one end tells the other once its device is made: no secret. */
struct enclink_pub {
	uint8_t id[ENCLINK_ID_MAX]; /* WireGuard: its public key; MACsec: its SCI */
	size_t id_len;
	int port;                   /* WireGuard: the UDP port it listens on */
};

/* The other end, as the peer of one: what it told, its addresses, and its key where the kind shares keys. */
struct enclink_other {
	const struct enclink_pub *pub;
	const char *link_addr, *addr;
	const uint8_t *key;
	size_t klen;
};

/* A device's counters over the crypto: the kernel's own, named by the kind. */
struct enclink_counters {
	uint64_t v[ENCLINK_COUNTERS];
};

struct enclink_kind {
	const char *name;     /* "wireguard": the scenario's section, the record's "kind" */
	const char *title;    /* "WireGuard", in messages */
	const char *link;     /* its rtnetlink kind (IFLA_INFO_KIND) */
	const char *module;   /* its kernel module */
	const char *config;   /* its kernel option, for messages */
	const char *dev;      /* the device it makes at each end */
	const char *const *ciphers; /* those it takes, NULL-ended; the first is the default */
	/*
	 * The bytes it adds to a packet, the device's MTU being the link's less
	 * this; 0: the kernel sets the device's MTU from the link's itself.
	 */
	int overhead;
	/* Its secret, one a direction, for cipher. */
	size_t (*key_len)(const char *cipher);
	/* The other end takes this end's secret too (MACsec's receive SA); else it stays here. */
	bool shares_keys;
	/* Make d with key, address it and set it up: 0 or -errno (why); pub what the other end needs. */
	int (*add)(const struct enclink_dev *d, const uint8_t *key, size_t klen, struct enclink_pub *pub,
		   char *why, size_t len);
	/* Make o the peer of d's end: 0 or -errno (why). */
	int (*peer)(const struct enclink_dev *d, const struct enclink_other *o, char *why, size_t len);
	/* The counters of d's device (the names below): 0 or -errno (why). */
	int (*counters)(const struct enclink_dev *d, struct enclink_counters *c, char *why, size_t len);
	const char *const *counter_names; /* NULL-ended, at most ENCLINK_COUNTERS */
	/*
	 * Dry-run: the commands a person would type at end i (0 the sender, 1
	 * the receiver) for add (step 0) and peer (step 1), o being the other
	 * end's device; keys as "$KEY_TX"-style placeholders.
	 */
	void (*print)(FILE *f, const struct enclink_dev *d, const struct enclink_dev *o, int i, int step);
};

/* The kinds, NULL-ended; one by its name (NULL: none). */
extern const struct enclink_kind *const enclink_kinds[];
const struct enclink_kind *enclink_find(const char *name);
/* "wireguard or macsec": the kinds' names, for messages. */
const char *enclink_names(char *buf, size_t len);
/* Does kind k take cipher c? */
bool enclink_takes(const struct enclink_kind *k, const char *c);

/* The counters as an object of their names (the record's); NULL on allocation failure. */
json_t *enclink_counters_json(const struct enclink_kind *k, const struct enclink_counters *c);
/* The same read back (from the peer: hostile); -1 when a name is missing or not a count. */
int enclink_counters_from(const struct enclink_kind *k, json_t *o, struct enclink_counters *c);

/*
 * The journal's record of a device made (netns NULL: this host's own, or
 * on the peer the agent's), and its undo: the device deleted, only when
 * it is there and of the record's kind (the record is read back as
 * hostile input). A row in collector/cmd/undo_kinds.c.
 */
json_t *enclink_undo_record(const struct enclink_kind *k, const char *netns, const char *dev);
int enclink_undo(json_t *r);

/* The peer agent's requests (enclink-add, -peer, -get, -exists), answered for this host. */
bool enclink_agent_op(const char *op);
json_t *enclink_agent_answer(json_t *req);

#endif
