/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fallback where BPF is unavailable altogether: tracefs events
 * counted through perf_event_open (counting mode, with tracefs filters),
 * and the one value a count cannot give (gso_segs of GSO skbs) from
 * sampled raw records decoded with libtraceevent.
 */
#ifndef IPSECPERF_PERFCOUNT_H
#define IPSECPERF_PERFCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipsecperf.h"

struct perfcount;

/*
 * Where tracefs is, or NULL; with mount set, mount it (journaled, undone
 * at the end of the run) when it is not mounted.
 */
const char *perfcount_tracefs(bool mount, char *why, size_t wlen);

/*
 * Open the events on every CPU: net:net_dev_start_xmit when xmit is set
 * (devs: at most two device names, or none for all), and kmem:kmalloc/kfree with call_site in
 * [lo[i], hi[i]) when nranges > 0. avail[] and how[] are filled per slot.
 */
struct perfcount *perfcount_open(const char *tracefs, bool xmit, const char *const *devs, const uint64_t *lo,
				 const uint64_t *hi, int nranges, bool avail[IPP_NR_COUNTERS],
				 char how[IPP_NR_COUNTERS][256]);
/* Drain the sample buffers (call often: every tick). */
void perfcount_drain(struct perfcount *pc);
/* The running totals, by slot (IPP_NR_SLOTS), as the BPF counters would give them. */
void perfcount_read(struct perfcount *pc, uint64_t v[IPP_NR_SLOTS]);
/* Samples lost so far (xmit_segs is then short). */
uint64_t perfcount_lost(const struct perfcount *pc);
void perfcount_close(struct perfcount *pc);

/* Build the tracefs filter for the device names. Unit-tested. */
int perfcount_dev_filter(char *buf, size_t len, const char *const *devs, const char *extra);

#endif
