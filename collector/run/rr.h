/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request/response engine's two ends, each a loop for a forked child
 * that shares one page with its parent (MAP_SHARED): the responder at the
 * receiving end (also run by the peer agent), the requester at the
 * sending end. One transaction in flight, as netperf's TCP_RR, TCP_CRR
 * and UDP_RR:
 *   tcp-rr   one connection, TCP_NODELAY; a request, then its response;
 *   tcp-crr  a new connection a transaction: connect, request, response,
 *            close (the responder closes first, so TIME_WAIT stays on its
 *            side and the requester's ports never run out);
 *   udp-rr   one datagram each way; an answer not back within
 *            RR_UDP_TIMEOUT_MS is a lost transaction, and the next begins.
 * The first byte of each request is its number (mod 256) and the responder
 * sends it back as its first byte, so a late answer to a lost UDP request
 * is never taken for the next one's.
 */
#ifndef IPSECPERF_RR_H
#define IPSECPERF_RR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

enum rr_kind { RR_TCP, RR_TCP_CRR, RR_UDP };
extern const char *const rr_kind_names[3]; /* "tcp-rr", "tcp-crr", "udp-rr" */
/* The kind named s, or -1. */
int rr_kind_of(const char *s);

#define RR_MAX_SIZE (1 << 20)      /* the largest request or response, bytes */
#define RR_MAX_UDP_SIZE 65507      /* a UDP datagram's largest payload over IPv4 */
#define RR_UDP_TIMEOUT_MS 500

/* What the requester does, as its parent sets it. */
enum rr_phase { RR_WARMUP, RR_MEASURE, RR_STOP };

/* The requester's page. */
struct rr_client {
	_Atomic int phase;         /* enum rr_phase, set by the parent */
	_Atomic int ready, done;   /* connected (tcp-rr) or bound; out of its loop */
	_Atomic uint64_t transactions; /* every transaction completed */
	_Atomic uint64_t measured;     /* those begun and ended while measuring */
	_Atomic uint64_t lost;         /* udp-rr: answers not back in time, while measuring */
	_Atomic uint64_t lost_all;     /* the same, in all */
	struct histogram hist;     /* the measured transactions' latency, ns */
	char err[200];
};

/* The responder's page. */
struct rr_server {
	_Atomic int listening, stop, done;
	_Atomic uint64_t served;   /* responses sent */
	char err[200];
};

/* What one run asks of both ends. */
struct rr_spec {
	enum rr_kind kind;
	int req, resp;             /* request and response sizes, bytes (>= 1) */
};

/* Are the sizes usable for kind? 0, or -1 with why. */
int rr_spec_check(const struct rr_spec *s, char *why, size_t len);

/* The responder: on addr:port, answer until sv->stop is set, then _exit. */
_Noreturn void rr_serve(struct rr_server *sv, const struct rr_spec *s, const char *addr, int port);

/* The requester: from src to dst:port, transactions until cl->phase is RR_STOP, then _exit. */
_Noreturn void rr_request(struct rr_client *cl, const struct rr_spec *s, const char *src, const char *dst, int port);

#endif
