// SPDX-License-Identifier: GPL-2.0
/*
 * The probes placed by reading the kernel's code: kprobes at the calls to
 * memmove in the transport output and input, and the ranges of ESP's
 * allocator calls that the kmem tracepoints' call_site is matched against.
 * Where a function was inlined and has no symbol, the kernel's DWARF (its
 * anchors) says where its instances lie.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ipsecperf.skel.h"
#include "anchors.h"
#include "files.h"
#include "kdwarf.h"
#include "ksyms.h"
#include "probes.h"
#include "probes_int.h"

/* Append to the string in buf (of len bytes), truncating. */
static void appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * Where the functions that were inlined lie, from the kernel's own DWARF:
 * a VM guest has no vmlinux, so the host read it and put the anchors'
 * text form in the initramfs, named by $IPSECPERF_PROBE_ANCHORS; on a
 * host, Debian's -dbg package has /usr/lib/debug/boot/vmlinux-RELEASE.
 * Used only when they match the running kernel's build id. Looked for
 * only when a function the probes need has no symbol, and once.
 */
static const struct anchors *dwarf_anchors(struct probes *p)
{
	const char *env = getenv("IPSECPERF_PROBE_ANCHORS");
	uint8_t id[ANCHOR_BUILD_ID_MAX];
	char why[256], hex[2 * ANCHOR_BUILD_ID_MAX + 1], path[200];
	struct anchors *a;
	size_t idlen;

	if (p->anc_tried)
		return p->anc;
	p->anc_tried = true;
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(p->anc_why, sizeof(p->anc_why), "out of memory");
		return NULL;
	}
	if (env && *env) {
		char *text = file_read_regular(env, 1 << 20, NULL, why, sizeof(why));

		if (!text) {
			snprintf(p->anc_why, sizeof(p->anc_why), "$IPSECPERF_PROBE_ANCHORS: %s: %s", env, why);
			goto out_free;
		}
		if (anchors_parse(text, a, why, sizeof(why)) < 0) {
			snprintf(p->anc_why, sizeof(p->anc_why), "$IPSECPERF_PROBE_ANCHORS: %s: %s", env, why);
			free(text);
			goto out_free;
		}
		free(text);
	} else {
		struct utsname u;

		if (uname(&u) < 0)
			snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux");
		else
			snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux-%.150s", u.release);
		if (!is_file(path)) {
			snprintf(p->anc_why, sizeof(p->anc_why),
				 "no DWARF of this kernel to find it inlined (no %s, the -dbg package's)", path);
			goto out_free;
		}
		if (kdwarf_probe_anchors(path, a, why, sizeof(why)) < 0) {
			snprintf(p->anc_why, sizeof(p->anc_why), "%s", why);
			goto out_free;
		}
	}
	idlen = anchors_kernel_build_id(NULL, id, sizeof(id), why, sizeof(why));
	if (!idlen) {
		snprintf(p->anc_why, sizeof(p->anc_why), "DWARF of %s not used: %s", a->source, why);
		goto out_free;
	}
	if (idlen != a->build_id_len || memcmp(id, a->build_id, idlen)) {
		anchors_hex(a->build_id, a->build_id_len, hex, sizeof(hex));
		snprintf(p->anc_why, sizeof(p->anc_why),
			 "DWARF of %s not used: its build id %.40s is not the running kernel's", a->source, hex);
		goto out_free;
	}
	p->anc = a;
	return a;
out_free:
	free(a);
	return NULL;
}

/* The address of sym+off in the running kernel, if sym is there and off is within it. */
static int anchor_addr(const struct ksyms *ks, const char *sym, uint64_t off, uint64_t len, uint64_t *addr)
{
	uint64_t lo, hi;

	if (ksyms_range(ks, sym, &lo, &hi) < 0 || off + len > hi - lo)
		return -1;
	*addr = lo + off;
	return 0;
}

/*
 * The direct calls to targets[] inside the ranges of the inlined
 * instances of name (and, if in is not NULL, only those in the functions
 * in[]), as sym+offset into sites (at most max); how many, or -1 with why.
 */
struct site {
	char sym[ANCHOR_NAME_MAX];
	size_t off;
};

static int inline_call_sites(const struct anchors *a, const struct ksyms *ks, const char *name,
			     const char *const *in, const uint64_t *targets, size_t nt, struct site *sites,
			     int max, char *why, size_t wlen)
{
	int n = 0;

	for (int i = 0; i < a->n; i++) {
		const struct anchor_inst *ai = &a->inst[i];
		bool ok = !in;

		for (const char *const *f = in; f && *f; f++)
			ok |= !strcmp(ai->func, *f);
		if (strcmp(ai->name, name) || !ok)
			continue;
		for (int r = 0; r < ai->nr; r++) {
			uint64_t len = ai->r[r].hi - ai->r[r].lo, base;
			size_t offs[MAX_SITES], k;
			uint8_t *code;

			if (anchor_addr(ks, ai->r[r].sym, ai->r[r].lo, len, &base) < 0) {
				snprintf(why, wlen, "%s+0x%llx (DWARF of %s) is not in /proc/kallsyms", ai->r[r].sym,
					 (unsigned long long)ai->r[r].lo, a->source);
				return -1;
			}
			code = malloc(len);
			if (!code || kcore_read(NULL, base, code, len, why, wlen) < 0) {
				if (!code)
					snprintf(why, wlen, "out of memory");
				free(code);
				return -1;
			}
			k = find_call_sites(code, len, base, targets, nt, offs, MAX_SITES);
			for (size_t j = 0; j < k && j < MAX_SITES; j++) {
				/* a call, not a jump: a jump leaves no return address in the range */
				if (code[offs[j]] != 0xe8 || n == max)
					continue;
				snprintf(sites[n].sym, sizeof(sites[n].sym), "%s", ai->r[r].sym);
				sites[n++].off = ai->r[r].lo + offs[j];
			}
			free(code);
		}
	}
	return n;
}

/* "a, b" of the functions the instances of name are inlined into, into out. */
static void inline_hosts(const struct anchors *a, const char *name, char *out, size_t len)
{
	*out = '\0';
	for (int i = 0; i < a->n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(a->inst[j].name, name) && !strcmp(a->inst[j].func, a->inst[i].func);
		if (strcmp(a->inst[i].name, name) || seen)
			continue;
		appendf(out, len, "%s%s", *out ? ", " : "", a->inst[i].func);
	}
}

static bool has_inline(const struct anchors *a, const char *name)
{
	for (int i = 0; a && i < a->n; i++)
		if (!strcmp(a->inst[i].name, name))
			return true;
	return false;
}

/* memmove's addresses (memmove, __memmove) into targets; how many. */
static size_t memmove_targets(const struct ksyms *ks, uint64_t targets[2])
{
	const struct ksym *s;
	size_t nt = 0;

	if ((s = ksyms_find(ks, "memmove")))
		targets[nt++] = s->addr;
	if ((s = ksyms_find(ks, "__memmove")) && (!nt || s->addr != targets[0]))
		targets[nt++] = s->addr;
	return nt;
}

/*
 * The transport output inlined where no symbol names it: probe the calls
 * to memmove inside its inlined instances, as the kernel's DWARF places
 * them (xfrm4_transport_output's, else xfrm_outer_mode_output's).
 */
static void attach_call_sites_dwarf(struct probes *p, const struct ksyms *ks, int c, struct bpf_program *prog,
				    const char *const *cands, int ncands)
{
	const struct anchors *a = dwarf_anchors(p);
	struct site sites[MAX_SITES];
	uint64_t targets[2];
	size_t nt = memmove_targets(ks, targets);
	char why[256] = "", list[160] = "", hosts[128];
	int n = 0, ok = 0;
	const char *name = NULL;

	if (!a) {
		probes_set_how(p, c, false, "none of %s is in /proc/kallsyms (inlined further), and %s", cands[0], p->anc_why);
		return;
	}
	for (int i = 0; i < ncands && !name; i++)
		if (has_inline(a, cands[i]))
			name = cands[i];
	if (!name) {
		probes_set_how(p, c, false, "none of %s is in /proc/kallsyms, nor inlined anywhere by the DWARF of %s",
			cands[0], a->source);
		return;
	}
	if (!nt) {
		probes_set_how(p, c, false, "memmove is not in /proc/kallsyms");
		return;
	}
	n = inline_call_sites(a, ks, name, NULL, targets, nt, sites, MAX_SITES, why, sizeof(why));
	if (n < 0) {
		probes_set_how(p, c, false, "cannot read the code of %s, inlined: %s", name, why);
		return;
	}
	inline_hosts(a, name, hosts, sizeof(hosts));
	if (!n) {
		probes_set_how(p, c, false, "no call to memmove found in %s, inlined into %s (DWARF of %s)", name, hosts,
			a->source);
		return;
	}
	for (int j = 0; j < n; j++) {
		if (probes_attach_kprobe(p, prog, sites[j].sym, sites[j].off, why, sizeof(why)) < 0)
			continue;
		ok++;
		appendf(list, sizeof(list), "%s%.63s+0x%zx", *list ? "," : "",
			 sites[j].sym, sites[j].off);
	}
	if (!ok)
		probes_set_how(p, c, false, "%s", why);
	else
		probes_set_how(p, c, true, "call-site kprobe at %s (calls to memmove in %s, inlined into %s; DWARF of %s)",
			list, name, hosts, a->source);
}

/*
 * xfrm4_transport_output inlined where no symbol names it: a kprobe at
 * the entry of each inlined instance, which runs only for the states
 * that take it (no gate; the arguments are not in their registers there).
 */
void probes_attach_transport_output_dwarf(struct probes *p, const struct ksyms *ks)
{
	const struct anchors *a = dwarf_anchors(p);
	const int c = IPP_XFRM_TRANSPORT_OUTPUT;
	char why[256] = "", list[160] = "", hosts[128];
	int ok = 0, n = 0;

	if (!a) {
		probes_set_how(p, c, false,
			"neither xfrm4_transport_output nor xfrm_outer_mode_output is in /proc/kallsyms (inlined further), and %s",
			p->anc_why);
		return;
	}
	p->skel->bss->gate_transport_output = 0;
	for (int i = 0; i < a->n; i++) {
		const struct anchor_inst *ai = &a->inst[i];
		uint64_t addr;

		if (strcmp(ai->name, "xfrm4_transport_output"))
			continue;
		n++;
		if (anchor_addr(ks, ai->entry_sym, ai->entry_off, 1, &addr) < 0) {
			snprintf(why, sizeof(why), "%s+0x%llx (DWARF of %s) is not in /proc/kallsyms", ai->entry_sym,
				 (unsigned long long)ai->entry_off, a->source);
			continue;
		}
		if (probes_attach_kprobe(p, p->skel->progs.transport_output, ai->entry_sym, ai->entry_off, why,
					 sizeof(why)) < 0)
			continue;
		ok++;
		appendf(list, sizeof(list), "%s%s+0x%llx", *list ? "," : "",
			 ai->entry_sym, (unsigned long long)ai->entry_off);
	}
	if (!n) {
		probes_set_how(p, c, false, "xfrm4_transport_output is neither in /proc/kallsyms nor inlined anywhere by the DWARF of %s",
			a->source);
		return;
	}
	inline_hosts(a, "xfrm4_transport_output", hosts, sizeof(hosts));
	if (ok < n)
		probes_set_how(p, c, false, "%s", why);
	else
		probes_set_how(p, c, true, "kprobe at %s (the entry of xfrm4_transport_output, inlined into %s; DWARF of %s)",
			list, hosts, a->source);
}

/*
 * memmove accepts no kprobe (and is noinstr from about 6.3): probe the
 * calls to it inside the first candidate function that has any.
 */
void probes_attach_call_sites(struct probes *p, const struct ksyms *ks, int c, struct bpf_program *prog,
			      const char *const *cands, int ncands)
{
	uint64_t targets[2];
	size_t nt = memmove_targets(ks, targets), offs[MAX_SITES];
	char why[256] = "", tried[128] = "";

	if (!nt) {
		probes_set_how(p, c, false, "memmove is not in /proc/kallsyms");
		return;
	}
	for (int i = 0; i < ncands; i++) {
		uint64_t lo, hi;
		uint8_t *code;
		size_t n;

		if (ksyms_range(ks, cands[i], &lo, &hi) < 0)
			continue;
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s", *tried ? ", " : "", cands[i]);
		code = malloc(hi - lo);
		if (!code || kcore_read(NULL, lo, code, hi - lo, why, sizeof(why)) < 0) {
			free(code);
			if (!*why)
				snprintf(why, sizeof(why), "out of memory");
			probes_set_how(p, c, false, "cannot read the code of %s to find its memmove calls: %s", cands[i], why);
			return;
		}
		n = find_call_sites(code, hi - lo, lo, targets, nt, offs, MAX_SITES);
		free(code);
		if (!n)
			continue;
		if (n > MAX_SITES)
			n = MAX_SITES;
		char list[160] = "";
		int ok = 0;

		for (size_t j = 0; j < n; j++) {
			if (probes_attach_kprobe(p, prog, cands[i], offs[j], why, sizeof(why)) < 0)
				continue;
			ok++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s+0x%zx",
				 *list ? "," : "", cands[i], offs[j]);
		}
		if (!ok)
			probes_set_how(p, c, false, "%s", why);
		else
			probes_set_how(p, c, true, "call-site kprobe at %s (calls to memmove)", list);
		return;
	}
	if (!*tried)
		attach_call_sites_dwarf(p, ks, c, prog, cands, ncands);
	else
		probes_set_how(p, c, false, "no call to memmove found in %s", tried);
}

/* The allocators kmalloc() may call, by kernel version; their addresses into targets; how many. */
static size_t kmalloc_targets(const struct ksyms *ks, uint64_t targets[8])
{
	static const char *const allocs[] = { "__kmalloc", "__kmalloc_noprof", "__kmalloc_node",
					      "__kmalloc_node_noprof", "__kmalloc_cache_noprof",
					      "kmalloc_trace", "kmalloc_trace_noprof" };
	size_t nt = 0;

	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++) {
		const struct ksym *s = ksyms_find(ks, allocs[i]);

		if (s)
			targets[nt++] = s->addr;
	}
	return nt;
}

/*
 * Does fn call an allocator itself (1), only tail-jump to one (0), or can
 * its code not be read (-1)? A tail jump leaves fn's caller as kmalloc's
 * call_site; an ordinary call makes the call_site fn's own.
 */
static int calls_kmalloc(const struct ksyms *ks, const char *fn)
{
	uint64_t lo, hi, targets[8];
	size_t nt = kmalloc_targets(ks, targets), offs[16], n;
	char why[256];
	uint8_t *code;
	int rc = 0;

	if (!nt || ksyms_range(ks, fn, &lo, &hi) < 0 || !(code = malloc(hi - lo)))
		return -1;
	if (kcore_read(NULL, lo, code, hi - lo, why, sizeof(why)) < 0) {
		free(code);
		return -1;
	}
	n = find_call_sites(code, hi - lo, lo, targets, nt, offs, 16);
	for (size_t i = 0; i < n && i < 16; i++)
		if (code[offs[i]] == 0xe8)
			rc = 1;
	free(code);
	return rc;
}

/*
 * esp_alloc_tmp has no symbol: it was inlined. Where into esp_output_tail,
 * that function's range holds its allocator call already; where into
 * esp_output (or esp_output_tail itself was, a copy of it), the kernel's
 * DWARF places the call: the return address right after each call to the
 * allocator inside those instances is one more range, of one byte.
 * Returns the new number of ranges; where says what was added.
 */
static int kmem_dwarf(struct probes *p, const struct ksyms *ks, int n, char *where, size_t wlen)
{
	static const char *const names[] = { "esp_alloc_tmp", "esp_output_tail" };
	static const char *const in[] = { "esp_output", NULL };
	const struct anchors *a = dwarf_anchors(p);
	struct site sites[2 * MAX_SITES];
	uint64_t targets[8], added[IPP_MAX_RANGES];
	size_t nt = kmalloc_targets(ks, targets);
	char why[256], hosts[128];
	int ns = 0, nadded = 0;

	if (!a || !nt)
		return n;
	inline_hosts(a, "esp_alloc_tmp", hosts, sizeof(hosts));
	if (*hosts)
		appendf(where, wlen, " (esp_alloc_tmp inlined into %s; DWARF of %s)",
			 hosts, a->source);
	for (int i = 0; i < 2; i++) {
		int k = inline_call_sites(a, ks, names[i], in, targets, nt, sites + ns, MAX_SITES, why, sizeof(why));

		if (k < 0) {
			snprintf(where + strlen(where), wlen - strlen(where),
				 " (not esp_output's inlined allocator calls: %.200s)", why);
			return n;
		}
		ns += k;
	}
	for (int i = 0; i < ns && n < IPP_MAX_RANGES; i++) {
		uint64_t ret;
		bool dup = false;

		if (anchor_addr(ks, sites[i].sym, sites[i].off + 5, 1, &ret) < 0)
			continue;
		for (int j = 0; j < nadded; j++)
			dup |= added[j] == ret;
		if (dup) /* esp_alloc_tmp inlined into an esp_output_tail inlined into esp_output */
			continue;
		added[nadded++] = ret;
		p->skel->bss->esp_lo[n] = ret;
		p->skel->bss->esp_hi[n] = ret + 1;
		n++;
		appendf(where, wlen, ", %s+0x%zx (a call of the allocator inlined there)",
			 sites[i].sym, sites[i].off);
	}
	return n;
}

/*
 * The receiver's allocations: kmalloc called from esp_input or esp6_input,
 * where esp_alloc_tmp was inlined. Where it is a function of its own that
 * calls the allocator, esp_input's buffers count in kmalloc_esp_output
 * (probes_attach_kmem), and not here. Returns the number of ranges.
 */
static int kmem_input_ranges(struct probes *p, const struct ksyms *ks, char *where, size_t wlen)
{
	static const char *const fns[] = { "esp_input", "esp6_input" };
	int n = 0;

	if (ksyms_find(ks, "esp_alloc_tmp") && calls_kmalloc(ks, "esp_alloc_tmp") != 0) {
		probes_set_how(p, IPP_KMALLOC_ESP_INPUT, false,
			"esp_alloc_tmp is a function of its own here: esp_input's buffers count in kmalloc_esp_output");
		return 0;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]) && n < IPP_MAX_RANGES; i++) {
		uint64_t lo, hi;

		if (ksyms_range(ks, fns[i], &lo, &hi) < 0)
			continue;
		p->skel->bss->esp_in_lo[n] = lo;
		p->skel->bss->esp_in_hi[n] = hi;
		n++;
		appendf(where, wlen, "%s%s", n > 1 ? ", " : "", fns[i]);
	}
	if (!n)
		probes_set_how(p, IPP_KMALLOC_ESP_INPUT, false, "%s", probes_esp_missing("esp_input"));
	return n;
}

void probes_attach_kmem(struct probes *p, const struct ksyms *ks)
{
	static const char *const fns[] = { "esp_output_tail", "esp_alloc_tmp" };
	char where[300] = "", why[256], in_where[100] = "";
	int n = 0, nin = kmem_input_ranges(p, ks, in_where, sizeof(in_where));

	/* esp_output_done frees, never allocates: kfree is matched by pointer, wherever it is */
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]) && n < IPP_MAX_RANGES; i++) {
		const char *note = "";
		uint64_t lo, hi;

		if (ksyms_range(ks, fns[i], &lo, &hi) < 0)
			continue;
		if (i == 1) {
			/* esp_input allocates through esp_alloc_tmp too */
			int c = calls_kmalloc(ks, fns[i]);

			if (c == 0) {
				snprintf(where + strlen(where), sizeof(where) - strlen(where),
					 " (esp_alloc_tmp tail-calls the allocator: the call site is its caller's)");
				continue;
			}
			note = c > 0 ? " (which calls the allocator itself, so esp_input's tmp buffers count too)"
				     : " (its code unreadable: if it calls the allocator itself, esp_input's tmp buffers count too)";
		}
		p->skel->bss->esp_lo[n] = lo;
		p->skel->bss->esp_hi[n] = hi;
		n++;
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s%s%s",
			 *where && where[0] != ' ' ? ", " : "", fns[i], note);
	}
	if (n && !ksyms_find(ks, "esp_alloc_tmp"))
		n = kmem_dwarf(p, ks, n, where, sizeof(where));
	if (!n) {
		probes_set_how(p, IPP_KMALLOC_ESP_OUTPUT, false, "%s", probes_esp_missing("esp_output_tail"));
		probes_set_how(p, IPP_KFREE_ESP_OUTPUT, false, "%s", probes_esp_missing("esp_output_tail"));
		if (!nin)
			return;
	}
	if (probes_attach_raw_tp(p, p->skel->progs.kmalloc, "kmalloc", why, sizeof(why)) < 0) {
		probes_set_how(p, IPP_KMALLOC_ESP_OUTPUT, false, "%s", n ? why : probes_esp_missing("esp_output_tail"));
		probes_set_how(p, IPP_KFREE_ESP_OUTPUT, false, "kfree is counted by the pointers kmalloc_esp_output saw");
		if (nin)
			probes_set_how(p, IPP_KMALLOC_ESP_INPUT, false, "%s", why);
		return;
	}
	if (nin) {
		probes_set_how(p, IPP_KMALLOC_ESP_INPUT, true, "raw tracepoint kmem:kmalloc, call_site in %s", in_where);
		p->skel->bss->nr_esp_in_ranges = nin;
	}
	if (!n)
		return;
	if (probes_attach_raw_tp(p, p->skel->progs.kfree, "kfree", why, sizeof(why)) < 0)
		probes_set_how(p, IPP_KFREE_ESP_OUTPUT, false, "%s", why);
	else
		probes_set_how(p, IPP_KFREE_ESP_OUTPUT, true,
			"raw tracepoint kmem:kfree, of the buffers kmalloc_esp_output counted");
	probes_set_how(p, IPP_KMALLOC_ESP_OUTPUT, true, "raw tracepoint kmem:kmalloc, call_site in %s", where);
	p->skel->bss->nr_esp_ranges = n; /* last: the programs read the ranges only once it is set */
}
