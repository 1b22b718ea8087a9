/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario's encrypted link ([wireguard], [macsec]: enclink.h) over the
 * two ends of a testbed: the module loaded (in a modules window, kmod.h),
 * a device at each end made with its undo journaled first, keys from
 * getrandom() wiped once the kernel has them, each end the other's peer;
 * the load then runs between the devices' addresses; the devices' own
 * counters over the whole load go into the record, and prove that the
 * load went through them. Written once over the endpoints
 * (endpoint_enclink.h): namespaces here, or here and on the peer.
 */
#ifndef IPSECPERF_ENCLINK_RUN_H
#define IPSECPERF_ENCLINK_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "enclink.h"
#include "endpoint.h"

struct scenario;

/* The addresses of the devices: the link's family, a net of their own. */
#define ENCLINK_ADDR4_TX "198.19.0.1"
#define ENCLINK_ADDR4_RX "198.19.0.2"
#define ENCLINK_ADDR6_TX "2001:2:0:1::1"
#define ENCLINK_ADDR6_RX "2001:2:0:1::2"

/* One scenario's encrypted link: the testbed's own (the matrix's), no state elsewhere. */
struct enclink_run {
	const struct enclink_kind *k; /* NULL: the scenario has none */
	const char *cipher;
	const struct endpoint *link[2]; /* the link's ends, tx and rx */
	struct endpoint ep[2];          /* the same ends at the devices' addresses: the load's */
	struct enclink_dev d[2];
	int mtu;
	struct enclink_counters c0[2];  /* at the load's start */
	int err0;
	char why0[200];
};

/*
 * Make sc's encrypted link between tx and rx into el (nothing without one):
 * 0 done; 1 a kernel cannot (skip, why); -1 failed (why). In dry-run, the
 * commands a person would type, keys as placeholders.
 */
int enclink_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		  struct enclink_run *el, char *why, size_t len);

/* The load's two ends: the devices' with an encrypted link, else the link's own (tx, rx). */
void enclink_load_ends(const struct enclink_run *el, const struct endpoint **tx, const struct endpoint **rx);

/* The devices' counters at the load's start. */
void enclink_begin(struct enclink_run *el);

/*
 * Add "encrypted_link" to rec (a run's record with the load's "bytes"):
 * what each device counted since enclink_begin. -1 with why when they
 * could not be read, or when the devices took in less than the load
 * received (it did not go through them); 0 otherwise, or without a link.
 */
int enclink_record(struct enclink_run *el, json_t *rec, char *why, size_t len);

#endif
