// SPDX-License-Identifier: GPL-2.0
/*
 * ipsecperf's kernel-side counters. Every program only adds to a per-CPU
 * slot (no atomics, no locks), so that the probes cost as little as the
 * kernel allows; user space sums the CPUs and takes differences between
 * the open and the close of the measured window.
 *
 * Tracepoints are attached as raw tracepoints: they need no tracefs and
 * their arguments (sk_buff, net_device; call_site, ptr, sizes) have not
 * changed since 4.x. kprobes are attached by the loader to the symbols it
 * finds in the running kernel, or at call sites (symbol+offset).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ipsecperf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ipp_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, struct ipp_sa_key);
	__type(value, __u64);
} per_sa SEC(".maps");

/* Buffers kmalloc'd on the ESP output path, until their kfree: ptr -> bytes. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} esp_allocs SEC(".maps");

/* Set by the loader after load, before attach (the .bss is mmap'd). */
__u64 esp_lo[IPP_MAX_RANGES], esp_hi[IPP_MAX_RANGES];
__u32 nr_esp_ranges;
__u32 gate_transport_output; /* attached to xfrm_outer_mode_output: IPv4 transport states only */
char xmit_dev[2][16]; /* count only skbs handed to these devices; none set = all */
__u32 xmit_ns[2];     /* ... in these network namespaces (inode numbers; 0 = any) */

static __always_inline struct ipp_counts *slots(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline void add(int slot, __u64 n)
{
	struct ipp_counts *c = slots();

	if (c && slot >= 0 && slot < IPP_NR_SLOTS)
		c->v[slot] += n;
}

static __always_inline void add_sa(struct xfrm_state *x, int slot)
{
	struct ipp_sa_key k = { .spi = BPF_CORE_READ(x, id.spi), .ctr = slot };
	__u64 one = 1, *v;

	add(slot, 1);
	v = bpf_map_lookup_elem(&per_sa, &k);
	if (v)
		*v += 1;
	else
		bpf_map_update_elem(&per_sa, &k, &one, BPF_NOEXIST);
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(xmit, struct sk_buff *skb, struct net_device *dev)
{
	struct skb_shared_info *sh;
	char name[16];
	__u16 segs = 1;

	if (xmit_dev[0][0]) {
		int match = 0;

		__u32 ns = BPF_CORE_READ(dev, nd_net.net, ns.inum);

		BPF_CORE_READ_STR_INTO(&name, dev, name);
		for (int d = 0; d < 2 && !match; d++) {
			match = xmit_dev[d][0] != 0 && (!xmit_ns[d] || xmit_ns[d] == ns);
			for (int i = 0; i < 16 && match; i++) {
				if (name[i] != xmit_dev[d][i])
					match = 0;
				else if (!name[i])
					break;
			}
		}
		if (!match)
			return 0;
	}
	sh = (struct skb_shared_info *)(BPF_CORE_READ(skb, head) + BPF_CORE_READ(skb, end));
	if (BPF_CORE_READ(sh, gso_size)) {
		segs = BPF_CORE_READ(sh, gso_segs);
		if (!segs)
			segs = 1;
	}
	add(IPP_XMIT_SKBS, 1);
	add(IPP_XMIT_SEGS, segs);
	return 0;
}

static __always_inline int in_esp_output(__u64 ip)
{
	for (int i = 0; i < IPP_MAX_RANGES; i++) {
		if (i >= nr_esp_ranges)
			break;
		if (ip >= esp_lo[i] && ip < esp_hi[i])
			return 1;
	}
	return 0;
}

/* kmalloc(call_site, ptr, bytes_req, bytes_alloc, ...): the same first four since 4.x */
SEC("raw_tp/kmalloc")
int BPF_PROG(kmalloc, unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc)
{
	__u64 p = (__u64)ptr, b = bytes_alloc;

	if (!nr_esp_ranges || !in_esp_output(call_site))
		return 0;
	add(IPP_KMALLOC_ESP_OUTPUT, 1);
	add(IPP_KMALLOC_ESP_OUTPUT_BYTES, b);
	bpf_map_update_elem(&esp_allocs, &p, &b, BPF_ANY);
	return 0;
}

/* A free counts when its buffer was allocated on the ESP output path, wherever it is freed. */
SEC("raw_tp/kfree")
int BPF_PROG(kfree, unsigned long call_site, const void *ptr)
{
	__u64 p = (__u64)ptr, *b;

	if (!nr_esp_ranges || !ptr)
		return 0;
	b = bpf_map_lookup_elem(&esp_allocs, &p);
	if (!b)
		return 0;
	add(IPP_KFREE_ESP_OUTPUT, 1);
	add(IPP_KFREE_ESP_OUTPUT_BYTES, *b);
	bpf_map_delete_elem(&esp_allocs, &p);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(esp_output, struct xfrm_state *x)
{
	add_sa(x, IPP_ESP_OUTPUT);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(esp_output_tail, struct xfrm_state *x)
{
	add_sa(x, IPP_ESP_OUTPUT_TAIL);
	return 0;
}

/*
 * Attached to xfrm4_transport_output where it is a function of its own,
 * else to xfrm_outer_mode_output, into which it is inlined: there only
 * the states that take its IPv4 transport branch count (the same test as
 * the kernel's switch: props.mode and props.family).
 */
SEC("kprobe")
int BPF_KPROBE(transport_output, struct xfrm_state *x)
{
	if (gate_transport_output &&
	    (BPF_CORE_READ(x, props.mode) != 0 /* XFRM_MODE_TRANSPORT */ ||
	     BPF_CORE_READ(x, props.family) != 2 /* AF_INET */))
		return 0;
	add(IPP_XFRM_TRANSPORT_OUTPUT, 1);
	return 0;
}

/* Attached at each call of memmove found inside the transport-mode output. */
SEC("kprobe")
int BPF_KPROBE(memmove_out)
{
	add(IPP_MEMMOVE_TRANSPORT_OUTPUT, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(memmove_in)
{
	add(IPP_MEMMOVE_TRANSPORT_INPUT, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(skb_segment)
{
	add(IPP_SKB_SEGMENT, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(tcp_gso_segment)
{
	add(IPP_TCP_GSO_SEGMENT, 1);
	return 0;
}
