// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of ipsecperf.bpf.c: open, load, then attach program by
 * program, each where the running kernel shows it can go (kallsyms,
 * kcore, the kprobe PMU), so that a probe the kernel refuses leaves its
 * counter "unavailable: <why>" and the others count.
 *
 * This file: the entry points, and which program attaches where for the
 * probe set and the scenario (probes_attach_ns). The BPF object is opened
 * and loaded in probes_load.c, one program attached in probes_attach.c,
 * the probes placed by the kernel's code and DWARF in probes_sites.c; the
 * window's snapshots are taken in probes_snap.c and made a record in
 * probes_record.c.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipsecperf.skel.h"
#include "files.h"
#include "kcount.h"
#include "ksyms.h"
#include "perfcount.h"
#include "probes.h"
#include "probes_int.h"

const char *const probe_set_names[PROBE_SET_N + 1] = {
	[PROBE_SET_DEFAULT] = "default",
	[PROBE_SET_ESP] = "esp",
	[PROBE_SET_ALL] = "all",
	[PROBE_SET_TRACEPOINTS] = "tracepoints",
	[PROBE_SET_KERNEL] = "kernel",
};

int probe_set_parse(const char *s)
{
	for (int i = 0; s && i < PROBE_SET_N; i++)
		if (!strcmp(s, probe_set_names[i]))
			return i;
	return -1;
}

/* Why there are no kprobes here, or NULL: decided by looking for the kprobe PMU. */
static const char *no_kprobes(void)
{
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0)
		return NULL;
	return "this kernel has no kprobes (no kprobe PMU in /sys/bus/event_source/devices: CONFIG_KPROBES unset)";
}

int probes_attach(struct probes *p, const char *const *devs)
{
	return probes_attach_ns(p, devs, NULL);
}

/* Each loaded module's name and address (/proc/modules without its use counts). */
static char *modules_key(void)
{
	char *text = file_read("/proc/modules", NULL), *key, *line, *save = NULL;
	size_t len = 0;

	if (!text && errno == ENOENT) /* a kernel without modules: its symbols never change */
		return strdup("");
	if (!text || !(key = malloc(strlen(text) + 1))) {
		free(text);
		return NULL;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64] = "", addr[32] = "";

		sscanf(line, "%63s %*s %*s %*s %*s %31s", name, addr);
		len += sprintf(key + len, "%s@%s ", name, addr);
	}
	key[len] = '\0';
	free(text);
	return key;
}

/*
 * kallsyms, read again only when a module came or went (a scenario loads
 * esp4) since the last time: reading and sorting it takes ~0.2 s, which
 * every scenario paid. *ks is a shallow copy of the cache: not freed.
 */
static struct ksyms cache_ks;
static char *cache_key;

static int ksyms_cached(struct ksyms *ks, char *why, size_t wlen)
{
	char *key = modules_key();

	if (!key || !cache_key || strcmp(key, cache_key)) {
		ksyms_free(&cache_ks);
		free(cache_key);
		cache_key = NULL;
		if (ksyms_load(&cache_ks, NULL, why, wlen) < 0) {
			free(key);
			return -1;
		}
		cache_key = key;
	} else {
		free(key);
	}
	*ks = cache_ks;
	return 0;
}

/*
 * Whether GRO merged the decrypted packets: skb_gro_receive's entry notes
 * a sec_path, its return counts the merges (ipsecperf.bpf.c). Attached
 * whether or not esp4_offload is loaded: without it, no decrypted packet
 * reaches GRO, and 0 is the count. A kernel whose BTF cannot show a
 * sec_path would count 0 too: unavailable there, saying why.
 */
static void attach_gro_merged(struct probes *p, const struct ksyms *ks, int c)
{
	struct btf *btf;
	char why[256];
	int rc;

	if (!ksyms_find(ks, "skb_gro_receive")) {
		probes_set_how(p, c, false, "skb_gro_receive is not in /proc/kallsyms");
		return;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		probes_set_how(p, c, false, "cannot read the kernel's BTF: %s", strerror(errno));
		return;
	}
	rc = probes_btf_sec_path(btf, why, sizeof(why));
	btf__free(btf);
	if (rc < 0) {
		probes_set_how(p, c, false, "%s", why);
		return;
	}
	if (probes_attach_kprobe(p, p->skel->progs.gro_merge_entry, "skb_gro_receive", 0, why, sizeof(why)) < 0 ||
	    probes_attach_kretprobe(p, p->skel->progs.gro_merge_return, "skb_gro_receive", why, sizeof(why)) < 0) {
		probes_set_how(p, c, false, "%s", why);
		return;
	}
	probes_set_how(p, c, true, "kprobe and kretprobe skb_gro_receive (packets with a sec_path)");
}

/* esp_input in its IPv4 and IPv6 function (the IPv6 one where its module is loaded). */
static void attach_esp_input(struct probes *p, const struct ksyms *ks, int c)
{
	char why[256];

	probes_attach_simple_kprobe(p, ks, c, p->skel->progs.esp_input, "esp_input", true);
	if (p->avail[c] && ksyms_find(ks, "esp6_input") &&
	    probes_attach_kprobe(p, p->skel->progs.esp_input, "esp6_input", 0, why, sizeof(why)) == 0)
		probes_set_how(p, c, true, "kprobes esp_input and esp6_input");
}

/* The GRO over ESP, IPv4 and IPv6, where esp4_offload is loaded. */
static void attach_esp_gro_receive(struct probes *p, const struct ksyms *ks, int c)
{
	char why[256];

	if (!ksyms_find(ks, "esp4_gro_receive")) {
		probes_set_how(p, c, false, "%s",
			access("/sys/module/esp4_offload", F_OK) == 0
				? "esp4_gro_receive is not in /proc/kallsyms although esp4_offload is loaded"
				: "esp4_gro_receive is not in /proc/kallsyms: esp4_offload is not loaded (no GRO over ESP)");
		return;
	}
	probes_attach_simple_kprobe(p, ks, c, p->skel->progs.esp_gro_receive, "esp4_gro_receive", false);
	if (p->avail[c] && ksyms_find(ks, "esp6_gro_receive") &&
	    probes_attach_kprobe(p, p->skel->progs.esp_gro_receive, "esp6_gro_receive", 0, why, sizeof(why)) == 0)
		probes_set_how(p, c, true, "kprobes esp4_gro_receive and esp6_gro_receive");
}

/* The calls to memmove in the transport output and input: in the first of the functions that has any. */
static void attach_memmove_out(struct probes *p, const struct ksyms *ks, int c)
{
	static const char *const fns[] = { "xfrm4_transport_output", "xfrm_outer_mode_output" };

	probes_attach_call_sites(p, ks, c, p->skel->progs.memmove_out, fns, 2);
}

static void attach_memmove_in(struct probes *p, const struct ksyms *ks, int c)
{
	static const char *const fns[] = { "xfrm4_transport_input", "xfrm_inner_mode_input", "xfrm_input" };

	probes_attach_call_sites(p, ks, c, p->skel->progs.memmove_in, fns, 3);
}

/* The IPv4 transport output: a function of its own, inlined into xfrm_outer_mode_output, or found by DWARF. */
static void attach_transport_output(struct probes *p, const struct ksyms *ks, int c)
{
	if (ksyms_find(ks, "xfrm4_transport_output")) {
		p->skel->bss->gate_transport_output = 0;
		probes_attach_simple_kprobe(p, ks, c, p->skel->progs.transport_output, "xfrm4_transport_output", false);
	} else if (ksyms_find(ks, "xfrm_outer_mode_output")) {
		p->skel->bss->gate_transport_output = 1;
		probes_attach_simple_kprobe(p, ks, c, p->skel->progs.transport_output, "xfrm_outer_mode_output", false);
		if (p->avail[c])
			probes_set_how(p, c, true,
				"kprobe xfrm_outer_mode_output (xfrm4_transport_output is inlined into it; only IPv4 transport-mode states count)");
	} else {
		probes_attach_transport_output_dwarf(p, ks);
	}
}

/*
 * The counters, by slot (ipsecperf.h), each counted by a program of
 * ipsecperf.bpf.c: the names the records, `probe --list` and
 * docs/probes.md give, how each attaches, and what it is checked against.
 * A new counter is its slot, its program and its line here
 * (docs/architecture.md, "A new counter"). Why a counter is left out
 * comes from its flags (not in the probe set, no SAs, no kprobes) or from
 * its attach, which says what the kernel lacks (probes_set_how).
 */
const struct probe_counter probe_counters[IPP_NR_COUNTERS] = {
	[IPP_ESP_OUTPUT] = { "esp_output", PC_ESP | PC_KPROBE | PC_ESP4 | PC_PER_SA | PC_PER_CPU, .prog = "esp_output",
			     .check = "the SAs' packets, off the GSO path (ipsec_path_check)" },
	[IPP_ESP_OUTPUT_TAIL] = { "esp_output_tail", PC_ESP | PC_KPROBE | PC_ESP4 | PC_PER_SA | PC_PER_CPU,
				  .prog = "esp_output_tail",
				  .check = "the SAs' packets; ran without esp_output: the GSO path (ipsec_path_check)" },
	[IPP_XFRM_TRANSPORT_OUTPUT] = { "xfrm_transport_output", PC_ESP | PC_KPROBE, .attach = attach_transport_output },
	[IPP_MEMMOVE_TRANSPORT_OUTPUT] = { "memmove_transport_output", PC_ESP | PC_KPROBE | PC_READS_CODE,
					   .attach = attach_memmove_out },
	[IPP_MEMMOVE_TRANSPORT_INPUT] = { "memmove_transport_input", PC_ESP | PC_KPROBE | PC_READS_CODE,
					  .attach = attach_memmove_in },
	[IPP_KMALLOC_ESP_OUTPUT] = { "kmalloc_esp_output", PC_ESP | PC_KMEM, .bytes = IPP_KMALLOC_ESP_OUTPUT_BYTES },
	[IPP_KFREE_ESP_OUTPUT] = { "kfree_esp_output", PC_ESP | PC_KMEM, .bytes = IPP_KFREE_ESP_OUTPUT_BYTES },
	[IPP_ESP_INPUT] = { "esp_input", PC_ESP | PC_KPROBE | PC_PER_SA | PC_PER_CPU, .attach = attach_esp_input },
	[IPP_XFRM_INPUT] = { "xfrm_input", PC_ESP | PC_KPROBE | PC_PER_CPU, .prog = "xfrm_input" },
	[IPP_ESP_GRO_RECEIVE] = { "esp_gro_receive", PC_ESP | PC_KPROBE, .attach = attach_esp_gro_receive },
	[IPP_ESP_GRO_MERGED] = { "esp_gro_merged", PC_ESP | PC_KPROBE, .attach = attach_gro_merged },
	[IPP_KMALLOC_ESP_INPUT] = { "kmalloc_esp_input", PC_ESP | PC_KMEM | PC_BYTES_ALWAYS,
				    .bytes = IPP_KMALLOC_ESP_INPUT_BYTES },
	[IPP_SKB_SEGMENT] = { "skb_segment", PC_KPROBE, .prog = "skb_segment" },
	[IPP_TCP_GSO_SEGMENT] = { "tcp_gso_segment", PC_KPROBE, .prog = "tcp_gso_segment" },
	[IPP_XMIT_SKBS] = { "xmit_skbs", PC_XMIT, .check = "the kernel's own count of skbs (\"kernel\")" },
	[IPP_XMIT_SEGS] = { "xmit_segs", PC_XMIT, .check = "the kernel's own count of segments (\"kernel\")" },
};

/* Counters with every flag of flags left out, saying why. */
static void leave_out(struct probes *p, unsigned flags, const char *why)
{
	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		if ((probe_counters[c].flags & flags) == flags)
			probes_set_how(p, c, false, "%s", why);
}

/* One kprobe counter: its own attach, or a kprobe on the function its program is named for. */
static void attach_counter(struct probes *p, const struct ksyms *ks, int c)
{
	const struct probe_counter *pc = &probe_counters[c];

	if (pc->attach)
		pc->attach(p, ks, c);
	else
		probes_attach_simple_kprobe(p, ks, c, bpf_object__find_program_by_name(p->skel->obj, pc->prog),
					    pc->prog, pc->flags & PC_ESP4);
}

/*
 * The kprobes, the ESP ones in ESP scenarios only; those that read the
 * kernel's code first, before any kprobe of ours patches it.
 */
static void attach_kprobes(struct probes *p, const struct ksyms *ks, bool esp)
{
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < IPP_NR_COUNTERS; c++) {
			unsigned f = probe_counters[c].flags;

			if ((f & PC_KPROBE) && (esp || !(f & PC_ESP)) && ((f & PC_READS_CODE) != 0) == (pass == 0))
				attach_counter(p, ks, c);
		}
}

/* xmit_skbs and xmit_segs from the kernel's counters, where no program counts them. */
static void xmit_from_kernel(struct probes *p)
{
	if (p->xmit_bpf)
		return;
	probes_set_how(p, IPP_XMIT_SKBS, p->kc.skbs_ok, "%s", p->kc.skbs_how);
	probes_set_how(p, IPP_XMIT_SEGS, p->kc.segs_ok, "%s", p->kc.segs_how);
}

int probes_attach_ns(struct probes *p, const char *const *devs, const char *const *netns)
{
	bool xmit = p->set == PROBE_SET_ALL || p->set == PROBE_SET_TRACEPOINTS;
	bool want_esp = p->set == PROBE_SET_ESP || p->set == PROBE_SET_ALL || p->set == PROBE_SET_TRACEPOINTS;
	/* a scenario without SAs: no probe set would count its ESP (the true cause first) */
	const char *no_esp = !p->esp ? NO_ESP_WHY : !want_esp ? NOT_IN_SET_WHY : NULL;
	struct ksyms ks;
	char why[256];
	const char *nokp;

	probes_detach(p);
	kcount_open(&p->kc, devs, netns);
	if (p->set == PROBE_SET_KERNEL) {
		for (int c = 0; c < IPP_NR_COUNTERS; c++)
			probes_set_how(p, c, false, "not asked for (--probe-set kernel: the kernel's own counters only)");
		xmit_from_kernel(p);
		return 0;
	}
	if (!p->skel) {
		int rc = probes_attach_perf(p, devs, xmit, !no_esp);

		p->xmit_bpf = xmit && p->pc;
		xmit_from_kernel(p);
		return rc;
	}
	if (xmit || p->list) {
		probes_attach_xmit(p, devs, netns);
		p->xmit_bpf = true;
	}
	if (p->list) /* the default's source, and the program --probe-set all adds */
		for (int c = IPP_XMIT_SKBS; c <= IPP_XMIT_SEGS; c++) {
			char prog[256];

			snprintf(prog, sizeof(prog), "%s", p->how[c]);
			probes_set_how(p, c, true, "%.200s; --probe-set all: %.200s",
				c == IPP_XMIT_SKBS ? p->kc.skbs_how : p->kc.segs_how, prog);
		}
	xmit_from_kernel(p);
	if (ksyms_cached(&ks, why, sizeof(why)) < 0) {
		for (int c = 0; c < IPP_NR_COUNTERS; c++)
			if (!(probe_counters[c].flags & PC_XMIT))
				probes_set_how(p, c, false, "%s", why);
		return 0;
	}
	nokp = p->set == PROBE_SET_TRACEPOINTS ? "kprobes not asked for (--probe-set tracepoints)" : no_kprobes();
	if (nokp)
		leave_out(p, PC_KPROBE, nokp);
	if (!no_esp)
		probes_attach_kmem(p, &ks);
	else if (p->set == PROBE_SET_TRACEPOINTS) /* its kprobe ones say "kprobes not asked for" */
		leave_out(p, PC_ESP | PC_KMEM, no_esp);
	else
		leave_out(p, PC_ESP, no_esp);
	if (!nokp)
		attach_kprobes(p, &ks, !no_esp);
	return 0;
}

/* Empty a hash map between scenarios: its keys (SPIs, pointers) were the last scenario's. */
static void map_clear(struct bpf_map *m, size_t klen)
{
	char key[16], next[16];

	while (klen <= sizeof(key) && bpf_map__get_next_key(m, NULL, next, klen) == 0) {
		memcpy(key, next, klen);
		if (bpf_map__delete_elem(m, key, klen, 0) < 0)
			break;
	}
}

void probes_detach(struct probes *p)
{
	perfcount_close(p->pc);
	p->pc = NULL;
	if (p->skel)
		p->skel->bss->nr_esp_ranges = p->skel->bss->nr_esp_in_ranges = 0;
	for (int i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	if (p->skel && p->nlinks) {
		map_clear(p->skel->maps.per_sa, sizeof(struct ipp_sa_key));
		map_clear(p->skel->maps.esp_allocs, sizeof(__u64));
		p->skel->bss->esp_outstanding = 0;
	}
	p->nlinks = 0;
	p->xmit_bpf = false;
	kcount_close(&p->kc);
	p->have_window = p->have_load = false;
	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		probes_set_how(p, c, false, "not attached");
}

void probes_need_esp(struct probes *p, bool esp)
{
	if (p)
		p->esp = esp;
}

void probes_tick(struct probes *p)
{
	if (p && p->pc)
		perfcount_drain(p->pc);
}

int probes_list(FILE *f, bool as_json)
{
	struct probes *p = probes_open();

	if (!p)
		return -1;
	p->list = true;
	p->esp = true; /* how the ESP programs would attach in an ESP scenario */
	probes_set_set(p, PROBE_SET_ESP);
	probes_attach(p, NULL);
	if (as_json) {
		json_t *o = json_object();

		/* unavailable: no symbol, and the reason apart (the table says "unavailable: why") */
		for (int c = 0; c < IPP_NR_COUNTERS; c++) {
			const char *why = p->how[c];

			if (!strncmp(why, "unavailable: ", 13))
				why += 13;
			json_object_set_new(o, probe_counters[c].name,
					    json_pack("{s:b, s:s?, s:s?}", "available", p->avail[c], "symbol",
						      p->avail[c] ? p->how[c] : NULL, "reason",
						      p->avail[c] ? NULL : *why ? why : "not attached"));
		}
		json_dumpf(o, f, JSON_INDENT(2));
		fputc('\n', f);
		json_decref(o);
	} else {
		fprintf(f, "%-26s %s\n", "counter", "how it attaches on this kernel");
		for (int c = 0; c < IPP_NR_COUNTERS; c++)
			fprintf(f, "%-26s %s\n", probe_counters[c].name, p->how[c]);
	}
	probes_close(p);
	return 0;
}

void probes_close(struct probes *p)
{
	if (!p)
		return;
	probes_detach(p);
	ksyms_free(&cache_ks);
	free(cache_key);
	cache_key = NULL;
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	ipsecperf_bpf__destroy(p->skel);
	free(p->anc);
	free(p);
}
