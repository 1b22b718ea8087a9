/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MACsec (IEEE 802.1AE) in the kernel's software implementation: a macsec
 * device on a link device through rtnetlink, its transmit SA and, for the
 * other end, a receive channel and SA through the generic netlink family
 * "macsec" (linux/if_macsec.h), with libmnl; and the SecY's own counters.
 * Static keys, one SA a direction, association number 0: what `ip macsec`
 * makes by hand, no MKA. Keys pass only through wiped buffers.
 */
#ifndef IPSECPERF_MACSEC_H
#define IPSECPERF_MACSEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MACSEC_KEY_MAX 32
#define MACSEC_SCI_BYTES 8

/* A cipher suite the scenario may name: "gcm-aes-128" (the default) or "gcm-aes-256". */
struct macsec_cipher {
	const char *name;
	uint64_t id;        /* MACSEC_CIPHER_ID_* */
	size_t key_bytes;
};
/* The suite called name, or NULL. */
const struct macsec_cipher *macsec_cipher(const char *name);

/* What a macsec device says of itself (macsec_get): its SCI and its SecY's counters. */
struct macsec_state {
	uint8_t sci[MACSEC_SCI_BYTES]; /* as the kernel keeps it (network order) */
	bool have_sci;
	int rxscs;
	uint64_t out_pkts_encrypted, out_octets_encrypted; /* its transmit channel's */
	uint64_t in_pkts_ok, in_octets_decrypted;          /* its receive channels', summed */
	uint64_t in_pkts_delayed; /* taken, but with a packet number below the last (out of order) */
	uint64_t in_pkts_bad; /* invalid, not valid, late, not using an SA, unused SA: summed */
};

/*
 * `ip -n NETNS link add DEV link LOWER type macsec cipher C icvlen 16
 * encrypt on`: 0 or -errno with why in err (-EEXIST: there is one).
 */
int macsec_add(const char *netns, const char *dev, const char *lower, const struct macsec_cipher *c, char *err,
	       size_t len);
/* DEV's transmit SA (AN 0, from PN 1, on), its key key. 0 or -errno with why. */
int macsec_set_tx(const char *netns, const char *dev, const uint8_t *key, size_t klen, char *err, size_t len);
/* A receive channel for the other end's SCI, and its SA (AN 0) with the other end's transmit key. */
int macsec_set_rx(const char *netns, const char *dev, const uint8_t sci[MACSEC_SCI_BYTES], const uint8_t *key,
		  size_t klen, char *err, size_t len);
/* What DEV says of itself: 0, or -errno with why (-ENODEV: no such macsec device). */
int macsec_get(const char *netns, const char *dev, struct macsec_state *st, char *err, size_t len);

/* The requests, built into buf (NLSOCK_BUF bytes); for the unit tests. -1: bad input. */
int macsec_link_build(void *buf, const char *dev, unsigned int lower, const struct macsec_cipher *c);
int macsec_txsa_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t *key, size_t klen);
int macsec_rxsc_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t sci[MACSEC_SCI_BYTES]);
int macsec_rxsa_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t sci[MACSEC_SCI_BYTES],
		      const uint8_t *key, size_t klen);

#endif
