/* SPDX-License-Identifier: GPL-2.0 */
/* The time of the program's measurements and time-outs: CLOCK_MONOTONIC. */
#ifndef IPSECPERF_CLOCK_H
#define IPSECPERF_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
double mono_s(void);

/* Nanoseconds on CLOCK_MONOTONIC (one clock for the whole host). */
long long mono_ns(void);

/* Seconds on clock clk (CLOCK_MONOTONIC_RAW to calibrate the TSC, ...). */
double clock_s(clockid_t clk);

#endif
