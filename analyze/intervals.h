/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Throughput over time inside one run: the 1 s intervals that iperf3 -J
 * (raw/...-iperf3-server.json, else -client.json) or the built-in stream
 * load (raw/...-stream.json) wrote, read as hostile input through
 * results_read() and checked number by number.
 */
#ifndef IPSECPERF_INTERVALS_H
#define IPSECPERF_INTERVALS_H

#include <stdio.h>

#include "results.h"

#define INTERVALS_MAX 3600          /* at most this many intervals are read */
#define INTERVALS_MAX_FILE (16L << 20) /* a larger raw file is left out */
#define INTERVAL_CV_WARN 0.25       /* a run whose 1 s intervals vary more gets a warning */

struct run_intervals {
	double t[INTERVALS_MAX];    /* each interval's end, s from the start of the measurement */
	double gbps[INTERVALS_MAX]; /* its throughput, Gbit/s */
	int n;
	const char *source;         /* "iperf3 receiver", "iperf3 sender", "stream" (static) */
};

/*
 * The measured (not omitted) intervals of rec, a run of results directory
 * dir. 0 when read, -1 when there are none or the file is not usable.
 */
int run_intervals_read(const char *dir, const struct run_record *rec, struct run_intervals *iv);

/* The CV of the intervals (NAN for fewer than 3). */
double run_intervals_cv(const struct run_intervals *iv);

#endif
