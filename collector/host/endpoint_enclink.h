/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The encrypted links' operations at an endpoint (endpoint.h), the same
 * calls for both kinds of end: here, the kind's own functions in the
 * end's namespace (enclink.h); on the peer, the requests its agent
 * answers (enclink_agent.c), a key spliced into the request line so that
 * it never sits in a json_t. What the peer answers is read as hostile.
 * -EPIPE: the end was lost; -EOPNOTSUPP: its agent does not know the
 * request (an older ipsecperf there).
 */
#ifndef IPSECPERF_ENDPOINT_ENCLINK_H
#define IPSECPERF_ENDPOINT_ENCLINK_H

#include "enclink.h"
#include "endpoint.h"

/* Is there a device dev at e? 1 (its rtnetlink kind into kind, "" for none), 0, or -errno. */
int ep_enclink_exists(const struct endpoint *e, const char *dev, char *kind, size_t len);

/* Make d at e (k->add): 0 or -errno with why; pub what the other end needs. */
int ep_enclink_add(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
		   const uint8_t *key, size_t klen, struct enclink_pub *pub, char *why, size_t len);

/* Make o the peer of d at e (k->peer): 0 or -errno with why. */
int ep_enclink_peer(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
		    const struct enclink_other *o, char *why, size_t len);

/* d's counters at e (k->counters): 0 or -errno with why. */
int ep_enclink_counters(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
			struct enclink_counters *c, char *why, size_t len);

#endif
