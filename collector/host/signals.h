/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT, SIGTERM and SIGHUP only set a flag (no SA_RESTART, so blocking
 * calls return EINTR); long waits poll stop_requested() and the run unwinds
 * through the journal, so the host is restored after Ctrl-C too.
 */
#ifndef IPSECPERF_SIGNALS_H
#define IPSECPERF_SIGNALS_H

#include <stdbool.h>

void signals_install(void);
bool stop_requested(void);
int stop_signal(void); /* the signal that asked us to stop, or 0 */

/* Sleep ms milliseconds unless a stop is requested; returns stop_requested(). */
bool sleep_ms_or_stop(int ms);

#endif
