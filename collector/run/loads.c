// SPDX-License-Identifier: GPL-2.0
/*
 * The table of loads (loads.h). Each entry is defined beside its load:
 * iperf3 in load_iperf3.c, the built-in stream in load_stream_run.c, the
 * request/response loads in load_rr.c, the packet rate in load_rate.c.
 * The lookups are loads_find.c's, so that the scenario reader's fuzz
 * target can link them on a table of its own.
 */
#include "loads.h"

/* The first is the default. */
const struct load_kind *const load_kinds[] = { &load_kind_iperf3, &load_kind_stream, &load_kind_tcp_rr,
					       &load_kind_tcp_crr, &load_kind_udp_rr, &load_kind_udp_rate, NULL };
