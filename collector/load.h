/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load: one TCP stream from the sender to the receiver. iperf3 by
 * default; the built-in stream where a socket option is needed (TCP-MD5/AO).
 * The measured window (after the warm-up) is opened and closed through
 * callbacks, so that CPU accounting and probes count the same interval.
 */
#ifndef IPSECPERF_LOAD_H
#define IPSECPERF_LOAD_H

#include <stdint.h>

#include "testbed.h"

struct load_result {
	double duration_s;     /* measured seconds, as the receiver counted them */
	uint64_t bytes;        /* bytes received in the measured seconds */
	double throughput_bps; /* receiver bits per second */
	double sender_bps;
	long long retransmits; /* -1: unknown */
	char error[256];       /* why the load failed, when it did */
};

struct load_params {
	const struct testbed *tb;
	int duration_s, omit_s;
	int port;
	const char *raw_prefix; /* raw/<run> prefix for what the tools print */
	void (*window)(void *arg, int open); /* open = 1 after warm-up, 0 at the end */
	void (*tick)(void *arg);             /* about every 200 ms while running */
	void *arg;
};

int load_iperf3(const struct load_params *p, struct load_result *r);

/* Fill r from iperf3 -J client output; -1 with r->error set. Unit-tested. */
int iperf3_parse_result(const char *json, struct load_result *r);

/* Is there a TCP socket listening on port in pid's namespace? Parses /proc/PID/net/tcp. */
int tcp_listening(const char *proc_net_tcp_text, int port);

#endif
