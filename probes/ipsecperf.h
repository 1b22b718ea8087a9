/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by ipsecperf.bpf.c and its loader (probes*.c): the counter
 * slots and the per-SA key. Counter names as docs/probes.md gives them are in
 * probes.c, slot for slot.
 */
#ifndef IPSECPERF_PROBES_SHARED_H
#define IPSECPERF_PROBES_SHARED_H

enum ipp_ctr {
	IPP_ESP_OUTPUT,
	IPP_ESP_OUTPUT_TAIL,
	IPP_XFRM_TRANSPORT_OUTPUT,
	IPP_MEMMOVE_TRANSPORT_OUTPUT,
	IPP_MEMMOVE_TRANSPORT_INPUT,
	IPP_KMALLOC_ESP_OUTPUT,
	IPP_KFREE_ESP_OUTPUT,
	/* the receive path */
	IPP_ESP_INPUT,
	IPP_XFRM_INPUT,
	IPP_ESP_GRO_RECEIVE,
	IPP_ESP_GRO_MERGED,
	IPP_KMALLOC_ESP_INPUT,
	IPP_SKB_SEGMENT,
	IPP_TCP_GSO_SEGMENT,
	IPP_XMIT_SKBS,
	IPP_XMIT_SEGS,
	IPP_NR_COUNTERS,
	/* bytes, kept beside the counts */
	IPP_KMALLOC_ESP_OUTPUT_BYTES = IPP_NR_COUNTERS,
	IPP_KFREE_ESP_OUTPUT_BYTES,
	IPP_KMALLOC_ESP_INPUT_BYTES,
	IPP_NR_SLOTS,
};

/* One value of the per-CPU "counts" array (one element). */
struct ipp_counts {
	unsigned long long v[IPP_NR_SLOTS];
};

/* Key of the per-CPU "per_sa" hash: SPI (network order) and counter slot. */
struct ipp_sa_key {
	unsigned int spi;
	unsigned int ctr;
};

/* Code ranges whose kmalloc call sites count as the ESP output path (and as its input path). */
#define IPP_MAX_RANGES 8

#endif
