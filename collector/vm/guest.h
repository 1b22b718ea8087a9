/* SPDX-License-Identifier: GPL-2.0 */
/* The VM testbed guest's init (guest.c); `ipsecperf guest` (collector/cmd/cmd_guest.c) starts it. */
#ifndef IPSECPERF_GUEST_H
#define IPSECPERF_GUEST_H

/*
 * As PID 1 of the guest: mount, run the matrix of GUEST_CONFIG, send the
 * results back and reboot. Does not return.
 */
int guest_main(void);

#endif
