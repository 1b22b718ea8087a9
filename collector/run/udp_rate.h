/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet-rate engine's two ends, each a loop for a forked child that
 * shares one page with its parent (MAP_SHARED): a sender of small UDP
 * datagrams at an offered rate (or as fast as it can), and a receiver that
 * counts them. The parent runs the search in steps; every datagram carries
 * its step's number in its first four bytes, so that the receiver counts
 * each step apart and a late datagram of one step is never counted in the
 * next.
 */
#ifndef IPSECPERF_UDP_RATE_H
#define IPSECPERF_UDP_RATE_H

#include <stdatomic.h>
#include <stdint.h>

#define UDP_RATE_SLOTS 64      /* steps counted apart (a step's number mod this) */
#define UDP_RATE_MIN_SIZE 4    /* a datagram holds at least its step's number */
#define UDP_RATE_MAX_SIZE 65507

/* What the sender does, as its parent sets it. */
enum udp_go { UDP_PAUSE, UDP_SEND, UDP_QUIT };

struct udp_tx {
	_Atomic int go;            /* enum udp_go */
	_Atomic int step;          /* the step being sent (set while paused) */
	_Atomic uint64_t pps;      /* its offered rate, datagrams/s; 0: as fast as it can */
	_Atomic int ready, done;
	/*
	 * The pause's handshake: the parent sets go to UDP_PAUSE, then adds 1
	 * to cmd; the sender, between two batches, copies cmd into ack once it
	 * has seen the pause. ack == cmd: that step's counts are final.
	 */
	_Atomic unsigned int cmd, ack;
	_Atomic uint64_t sent[UDP_RATE_SLOTS];   /* datagrams handed to the kernel, a step's */
	_Atomic uint64_t failed[UDP_RATE_SLOTS]; /* of those, refused by it (ENOBUFS ...) */
	char err[200];
};

struct udp_rx {
	_Atomic int listening, stop, done;
	_Atomic uint64_t received[UDP_RATE_SLOTS];
	_Atomic uint64_t total;
	/*
	 * Times the receiver found its socket's queue empty (a read that
	 * took less than a batch, or none within its 50 ms time-out): once
	 * this moves after a step's last datagram was sent, the step drained
	 * from the socket, however long the receiver waited for a CPU.
	 */
	_Atomic uint64_t empty_seq;
	char err[200];
};

/* Pause the sender and wait (up to timeout_ms) until its counts are final: 0, or -1. */
int udp_rate_pause(struct udp_tx *tx, int timeout_ms);

/* The sender: size-byte datagrams from src to dst:port, as tx->go says, until UDP_QUIT; then _exit. */
_Noreturn void udp_rate_send(struct udp_tx *tx, const char *src, const char *dst, int port, int size);

/* The receiver: count datagrams to addr:port by their step until rx->stop; then _exit. */
_Noreturn void udp_rate_receive(struct udp_rx *rx, const char *addr, int port);

#endif
