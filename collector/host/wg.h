/* SPDX-License-Identifier: GPL-2.0 */
/*
 * WireGuard through the kernel's generic netlink family ("wireguard",
 * linux/wireguard.h), with libmnl as the rest of the project's netlink: a
 * device's private key, its one peer, and what it says of itself (public
 * key, listen port, the peer's byte counters). The device is made and
 * deleted with rtnetlink (rtnl_link.h); the wireguard module must be
 * loaded for the family to exist. Keys pass only through netlink buffers
 * that are wiped (NLSOCK_SECRET): the device's answer holds its private
 * key too.
 */
#ifndef IPSECPERF_WG_H
#define IPSECPERF_WG_H

#include <stddef.h>
#include <stdint.h>

#define WG_KEY_BYTES 32

/* What a WireGuard device says of itself (wg_get). */
struct wg_state {
	uint8_t pub[WG_KEY_BYTES]; /* its public key (not a secret) */
	int port;                  /* the UDP port it listens on */
	int peers;
	uint64_t rx_bytes, tx_bytes; /* its peers' counters, summed: WireGuard's messages, not the inner packets */
};

/*
 * Set DEV's private key in NETNS (NULL: here); the kernel clamps it and
 * derives the public key. Its listen port is left to the kernel (a free
 * one). 0 or -errno with why in err.
 */
int wg_set_key(const char *netns, const char *dev, const uint8_t key[WG_KEY_BYTES], char *err, size_t len);

/*
 * Give DEV one peer (replacing any): its public key, its endpoint
 * (address and UDP port), and the one address it may send from and to,
 * allowed (a /32 or /128). 0 or -errno with why in err.
 */
int wg_set_peer(const char *netns, const char *dev, const uint8_t pub[WG_KEY_BYTES], const char *endpoint,
		int port, const char *allowed, char *err, size_t len);

/* What DEV says of itself: 0, or -errno with why in err (-ENODEV: no such WireGuard device). */
int wg_get(const char *netns, const char *dev, struct wg_state *st, char *err, size_t len);

/* The requests, built into buf (NLSOCK_BUF bytes) for family fam; for the unit tests. -1: bad input. */
int wg_set_key_build(void *buf, uint16_t fam, const char *dev, const uint8_t key[WG_KEY_BYTES]);
int wg_set_peer_build(void *buf, uint16_t fam, const char *dev, const uint8_t pub[WG_KEY_BYTES],
		      const char *endpoint, int port, const char *allowed);
int wg_get_build(void *buf, uint16_t fam, const char *dev);

#endif
