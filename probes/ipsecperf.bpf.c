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
__u64 esp_in_lo[IPP_MAX_RANGES], esp_in_hi[IPP_MAX_RANGES]; /* esp_input, esp6_input */
__u32 nr_esp_in_ranges;
__u32 gate_transport_output; /* attached to xfrm_outer_mode_output: IPv4 transport states only */
__u32 xmit_ifindex[2]; /* count only skbs handed to these devices; none set = all */
__u32 xmit_ns[2];      /* ... in these network namespaces (ns.inum) */
/*
 * Buffers in esp_allocs not freed yet (an upper bound: an LRU eviction
 * leaves it high). kfree runs for every free in the system; while this is
 * 0, which is nearly always (the tmp buffer lives inside one call of
 * esp_output_tail), it costs one load and no map lookup.
 */
__u64 esp_outstanding;

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

/*
 * One map update per call: the SA's own slot. The counter's total is
 * the sum over the SAs, taken in user space (probes_snap.c).
 */
static __always_inline void add_sa(struct xfrm_state *x, int slot)
{
	struct ipp_sa_key k = { .spi = BPF_CORE_READ(x, id.spi), .ctr = slot };
	__u64 one = 1, *v;

	v = bpf_map_lookup_elem(&per_sa, &k);
	if (v)
		*v += 1;
	else
		bpf_map_update_elem(&per_sa, &k, &one, BPF_NOEXIST);
}

static __always_inline int xmit_wanted(int ifindex, __u32 ns)
{
	for (int d = 0; d < 2; d++)
		if (xmit_ifindex[d] && xmit_ifindex[d] == ifindex && xmit_ns[d] == ns)
			return 1;
	return 0;
}

/* With BTF: plain loads of the device's fields; its namespace only for a matching index. */
static __always_inline int xmit_skip_btf(struct net_device *dev)
{
	int i = dev->ifindex;

	return xmit_ifindex[0] && ((i != xmit_ifindex[0] && i != xmit_ifindex[1]) ||
				   !xmit_wanted(i, dev->nd_net.net->ns.inum));
}

static __always_inline void xmit_add(__u16 gso_size, __u16 gso_segs)
{
	struct ipp_counts *c = slots();

	if (c) {
		c->v[IPP_XMIT_SKBS] += 1;
		c->v[IPP_XMIT_SEGS] += gso_size && gso_segs ? gso_segs : 1;
	}
}

/* skb_shinfo(skb) as a typed pointer: plain loads, no helper call (6.2+) */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * Called once per skb handed to a driver: a million times a second on
 * no-gso, so its cost is the probes' overhead there (docs/probes.md).
 * Three variants of one program, the loader takes the first the kernel
 * accepts: BTF-typed tracepoint with skb_shinfo() read through
 * bpf_rdonly_cast; the same reading it with bpf_probe_read_kernel (5.5+;
 * about 18 ns more per call); a raw tracepoint. The filter is one or two
 * integer compares (xmit_skip_btf).
 */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(xmit_cast, struct sk_buff *skb, struct net_device *dev)
{
	struct skb_shared_info *sh;

	if (xmit_skip_btf(dev))
		return 0;
	sh = bpf_rdonly_cast(skb->head + skb->end, bpf_core_type_id_kernel(struct skb_shared_info));
	xmit_add(sh->gso_size, sh->gso_segs);
	return 0;
}

static __always_inline void xmit_read_add(unsigned char *head, __u32 end)
{
	struct skb_shared_info *sh = (void *)(head + end);
	__u16 size = 0, segs = 1;

	bpf_probe_read_kernel(&size, sizeof(size), &sh->gso_size);
	if (size)
		bpf_probe_read_kernel(&segs, sizeof(segs), &sh->gso_segs);
	xmit_add(size, segs);
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(xmit_btf, struct sk_buff *skb, struct net_device *dev)
{
	if (xmit_skip_btf(dev))
		return 0;
	xmit_read_add(skb->head, skb->end);
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(xmit, struct sk_buff *skb, struct net_device *dev)
{
	if (xmit_ifindex[0] && !xmit_wanted(BPF_CORE_READ(dev, ifindex), BPF_CORE_READ(dev, nd_net.net, ns.inum)))
		return 0;
	xmit_read_add(BPF_CORE_READ(skb, head), BPF_CORE_READ(skb, end));
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

static __always_inline int in_esp_input(__u64 ip)
{
	for (int i = 0; i < IPP_MAX_RANGES; i++) {
		if (i >= nr_esp_in_ranges)
			break;
		if (ip >= esp_in_lo[i] && ip < esp_in_hi[i])
			return 1;
	}
	return 0;
}

/* kmalloc(call_site, ptr, bytes_req, bytes_alloc, ...): the same first four since 4.x */
SEC("raw_tp/kmalloc")
int BPF_PROG(kmalloc, unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc)
{
	__u64 p = (__u64)ptr, b = bytes_alloc;
	struct ipp_counts *c;

	/* every kmalloc of the system comes here: the call site first, nothing else read before */
	if (!nr_esp_ranges || !in_esp_output(call_site)) {
		/* the receiver's: counted, not followed to their kfree */
		if (nr_esp_in_ranges && in_esp_input(call_site)) {
			c = slots();
			if (c) {
				c->v[IPP_KMALLOC_ESP_INPUT] += 1;
				c->v[IPP_KMALLOC_ESP_INPUT_BYTES] += b;
			}
		}
		return 0;
	}
	c = slots();
	if (c) {
		c->v[IPP_KMALLOC_ESP_OUTPUT] += 1;
		c->v[IPP_KMALLOC_ESP_OUTPUT_BYTES] += b;
	}
	if (bpf_map_update_elem(&esp_allocs, &p, &b, BPF_ANY) == 0)
		__sync_fetch_and_add(&esp_outstanding, 1);
	return 0;
}

/* A free counts when its buffer was allocated on the ESP output path, wherever it is freed. */
SEC("raw_tp/kfree")
int BPF_PROG(kfree, unsigned long call_site, const void *ptr)
{
	__u64 p = (__u64)ptr, *b;
	struct ipp_counts *c;

	if (!esp_outstanding || !ptr)
		return 0;
	b = bpf_map_lookup_elem(&esp_allocs, &p);
	if (!b)
		return 0;
	c = slots();
	if (c) {
		c->v[IPP_KFREE_ESP_OUTPUT] += 1;
		c->v[IPP_KFREE_ESP_OUTPUT_BYTES] += *b;
	}
	if (bpf_map_delete_elem(&esp_allocs, &p) == 0)
		__sync_fetch_and_add(&esp_outstanding, -1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(esp_output, struct xfrm_state *x)
{
	add_sa(x, IPP_ESP_OUTPUT);
	return 0;
}

/* esp_input and esp6_input: per SA, as the receiving SA counts its packets */
SEC("kprobe")
int BPF_KPROBE(esp_input, struct xfrm_state *x)
{
	add_sa(x, IPP_ESP_INPUT);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(xfrm_input)
{
	add(IPP_XFRM_INPUT, 1);
	return 0;
}

/* esp4_gro_receive and esp6_gro_receive (esp4_offload, esp6_offload): every ESP packet GRO is offered */
SEC("kprobe")
int BPF_KPROBE(esp_gro_receive)
{
	add(IPP_ESP_GRO_RECEIVE, 1);
	return 0;
}

/*
 * skb_gro_receive(p, skb) merges skb into the packet GRO holds, p, and
 * returns 0 when it did. A decrypted ESP packet comes here when GRO
 * decrypted it (esp4_gro_receive hands it to xfrm_input, which gives the
 * inner packet to GRO again through gro_cells); it is the one that
 * carries a sec_path. The entry notes, per CPU, whether skb carries one
 * (GRO runs in softirq, one skb_gro_receive at a time on a CPU); the
 * return counts the merges of those. Kernels without sec_path extensions
 * (no XFRM) count nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gro_decrypted SEC(".maps");

static __always_inline __u32 *gro_flag(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gro_decrypted, &zero);
}

static __always_inline __u32 has_sec_path(struct sk_buff *skb)
{
	if (!bpf_core_field_exists(skb->active_extensions) ||
	    !bpf_core_enum_value_exists(enum skb_ext_id, SKB_EXT_SEC_PATH))
		return 0;
	return !!(BPF_CORE_READ(skb, active_extensions) & (1u << bpf_core_enum_value(enum skb_ext_id, SKB_EXT_SEC_PATH)));
}

SEC("kprobe")
int BPF_KPROBE(gro_merge_entry, struct sk_buff *p, struct sk_buff *skb)
{
	__u32 *f = gro_flag();

	if (f)
		*f = has_sec_path(skb);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(gro_merge_return, int ret)
{
	__u32 *f = gro_flag();

	if (f && *f) {
		if (ret == 0)
			add(IPP_ESP_GRO_MERGED, 1);
		*f = 0;
	}
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
