/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load: one TCP stream from the sender to the receiver. iperf3 by
 * default; the built-in stream where a socket option is needed (TCP-MD5/AO).
 * The measured window (after the warm-up) is opened and closed through
 * callbacks, so that CPU accounting and probes count the same interval.
 *
 * Which loads there are is one table, load_kinds[] (loads.h).
 *
 * A façade of load.c (the scenario's load, the window), load_iperf3.c,
 * load_stream.c (the stream's sockets) and load_stream_run.c (the stream
 * as a load).
 */
#ifndef IPSECPERF_LOAD_H
#define IPSECPERF_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "endpoint.h"
#include "loads.h"
#include "scenario.h"

/* Who sends (--direction): the sending end (tx), the receiving end (rx), or each flow both ways. */
enum load_direction { LOAD_TX, LOAD_RX, LOAD_BOTH };
extern const char *const load_direction_names[4]; /* NULL last: --direction's choices */

/* The most flows one load runs at once (--flows; twice as many with --direction both). */
#define LOAD_MAX_FLOWS 16

/* One flow of a load of several (--flows). */
struct load_flow {
	int port;
	int cpu_tx, cpu_rx;    /* where its sender and receiver were pinned, -1: not */
	uint64_t bytes;
	double throughput_bps;
	bool back;             /* sent by the receiving end (--direction rx, both) */
};

struct load_result {
	double duration_s;     /* measured seconds, as the receiver counted them */
	uint64_t bytes;        /* bytes received in the measured seconds */
	double throughput_bps; /* receiver bits per second */
	double sender_bps;
	long long retransmits; /* -1: unknown */
	char congestion[16];   /* the sender's TCP congestion control, where the load says it; "" */
	int nflows;            /* flows[] filled: 0 for a load of one flow */
	int direction;         /* enum load_direction: who sent */
	struct load_flow flows[LOAD_MAX_FLOWS];
	json_t *extra;         /* the load's own keys for the record (record_load adds them), or NULL */
	char error[256];       /* why the load failed, when it did */
};

struct load_params {
	const struct endpoint *tx, *rx; /* the sender's and the receiver's ends */
	int duration_s, omit_s;
	int port;
	const char *raw_prefix; /* raw/<run> prefix for what the tools print */
	void (*window)(void *arg, int open); /* open = 1 after warm-up, 0 at the end */
	void (*tick)(void *arg);             /* about every 200 ms while running */
	void *arg;
	const struct scenario *sc; /* which load, and its [tcp-auth]; NULL: iperf3 */
	int flows;                 /* --flows: TCP flows at once, on ports port.. port + flows - 1 (0 or 1: one) */
	enum load_direction direction; /* --direction: who sends (both: each flow each way) */
	const char *congestion;    /* --congestion: the sender's TCP congestion control, or NULL (the default) */
};

/* Jain's fairness index of the flows' throughputs (1: all equal, 1/n: one took all). Unit-tested. */
double load_fairness(const struct load_flow *f, int n);

/* The scenario's load (the default when sc is NULL or names none). */
const struct load_kind *load_of(const struct scenario *sc);

/*
 * A load's raw file, PREFIX SUFFIX (e.g. raw/clear-r1- iperf3-client.json):
 * opened for writing (-1 without a prefix, as in dry-run), or read whole.
 */
int raw_open(const char *prefix, const char *suffix);
char *raw_read(const char *prefix, const char *suffix);

/* The seconds a run of the scenario's load takes beyond --omit and --duration (0 for most). */
int load_extra_s(const struct scenario *sc);

/* The scenario's load (load_of(p->sc)->run). */
int load_run(const struct load_params *p, struct load_result *r);


/*
 * Can endpoint e's kernel run the scenario's load (TCP-MD5, TCP-AO)? 0 yes;
 * 1 no, with the reason in why; -1 e was lost (why). Here by trying with a
 * throwaway socket, on the peer by its agent; changes nothing.
 */
int load_check_at(const struct endpoint *e, const struct scenario *sc, char *why, size_t len);

/*
 * Put a TCP-MD5 or TCP-AO ("md5", "ao") key for the address peer on socket
 * fd (also the peer testbed's agent). 0, or -1 with errno.
 */
int set_tcp_key(int fd, const char *method, const char *ao_alg, const char *peer,
		const uint8_t *key, size_t keylen);

/* What a stream receiver shares with its parent, in a MAP_SHARED page. */
struct stream_rx {
	_Atomic uint64_t bytes; /* received so far */
	_Atomic int listening, done, stop;
	char err[200];          /* why it failed */
};

/*
 * The built-in stream's receiver, in a child (also the peer agent's): listen
 * on addr:port with the TCP-MD5/AO key for peer when method is "md5" or "ao"
 * (the key is wiped once set), count one connection's bytes into rx until it
 * closes or rx->stop is set, then _exit.
 */
_Noreturn void stream_receive(struct stream_rx *rx, const char *addr, int port, const char *peer,
			      const char *method, const char *ao_alg, uint8_t *key, size_t keylen);

/* What a stream sender shares with its parent, in a MAP_SHARED page. */
struct stream_tx {
	char congestion[16];     /* in: the congestion control to set, or ""; out: the one the socket has */
	_Atomic uint64_t bytes;  /* sent so far */
	_Atomic int64_t retrans; /* TCP_INFO's total retransmits */
	_Atomic int snd_mss;     /* smaller by the MD5/AO option's size: proof the option is on */
	_Atomic int connected, done, stop;
	char err[200];
};

/*
 * The built-in stream's sender, in a child (also the peer testbed's): from
 * src to dst:port with the TCP-MD5/AO key when method is "md5" or "ao" (the
 * key is wiped once set), send until tx->stop is set, then _exit.
 */
_Noreturn void stream_send(struct stream_tx *tx, const char *src, const char *dst, int port,
			   const char *method, const char *ao_alg, uint8_t *key, size_t keylen);

/* addr and port as a socket address: AF_INET or AF_INET6, or -1. */
int stream_sockaddr(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len);

/* Probe one TCP authentication method ("md5", "ao"): 0 works, else why. */
int tcp_auth_probe(const char *method, const char *ao_alg, char *why, size_t len);

/* Fill r from iperf3 -J client output; -1 with r->error set. Unit-tested. */
int iperf3_parse_result(const char *json, struct load_result *r);

/*
 * The result of an iperf3 client that exited with wait status `status`,
 * from its JSON in raw/ (PREFIX iperf3-client.json); -1 with r->error set.
 */
int iperf3_client_result(const char *prefix, int status, struct load_result *r);

/* Is there a TCP socket listening on port in pid's namespace? Parses /proc/PID/net/tcp. */
int tcp_listening(const char *proc_net_tcp_text, int port);

#endif
