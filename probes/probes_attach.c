// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching one program at a time, each counter saying how it counts or
 * why not (probes_set_how): a raw tracepoint, a kprobe on a symbol (and
 * why esp4's are missing), the xmit program on the testbed's devices, and
 * the tracepoints through perf without BPF.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ipsecperf.skel.h"
#include "journal.h"
#include "kcount.h"
#include "ksyms.h"
#include "netns_call.h"
#include "perfcount.h"
#include "probes.h"
#include "probes_int.h"

void probes_set_how(struct probes *p, int c, bool avail, const char *fmt, ...)
{
	va_list ap;
	int n = avail ? 0 : snprintf(p->how[c], sizeof(p->how[c]), "unavailable: ");

	va_start(ap, fmt);
	vsnprintf(p->how[c] + n, sizeof(p->how[c]) - n, fmt, ap);
	va_end(ap);
	p->avail[c] = avail;
}

/* Has the struct or union t a member name, itself or in an anonymous struct or union inside it? */
static bool has_member(const struct btf *btf, const struct btf_type *t, const char *name, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);

		if (m->name_off && !strcmp(btf__name_by_offset(btf, m->name_off), name))
			return true;
		while (mt && (btf_is_mod(mt) || btf_is_typedef(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (!m->name_off && mt && btf_is_composite(mt) && depth < 8 && has_member(btf, mt, name, depth + 1))
			return true;
	}
	return false;
}

int probes_btf_sec_path(const struct btf *btf, char *why, size_t wlen)
{
	int id = btf__find_by_name_kind(btf, "skb_ext_id", BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	bool found = false;

	for (int i = 0; t && i < btf_vlen(t) && !found; i++)
		found = !strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), "SKB_EXT_SEC_PATH");
	if (!found) {
		snprintf(why, wlen, "the kernel's BTF has no SKB_EXT_SEC_PATH in enum skb_ext_id (no XFRM?): a decrypted packet cannot be told from another");
		return -1;
	}
	id = btf__find_by_name_kind(btf, "sk_buff", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || !has_member(btf, t, "active_extensions", 0)) {
		snprintf(why, wlen, "the kernel's BTF has no sk_buff.active_extensions (no CONFIG_SKB_EXTENSIONS): a decrypted packet cannot be told from another");
		return -1;
	}
	return 0;
}

static int keep_link(struct probes *p, struct bpf_link *l)
{
	if (p->nlinks == MAX_LINKS) {
		bpf_link__destroy(l);
		errno = E2BIG;
		return -1;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

int probes_attach_raw_tp(struct probes *p, struct bpf_program *prog, const char *tp, char *why, size_t wlen)
{
	struct bpf_link *l = bpf_program__attach_raw_tracepoint(prog, tp);

	if (!l || keep_link(p, l) < 0) {
		snprintf(why, wlen, "raw tracepoint %s refused: %s", tp, strerror(errno));
		return -1;
	}
	return 0;
}

int probes_attach_kprobe(struct probes *p, struct bpf_program *prog, const char *sym, size_t off,
			 char *why, size_t wlen)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .offset = off);
	struct bpf_link *l = bpf_program__attach_kprobe_opts(prog, sym, &o);

	if (!l || keep_link(p, l) < 0) {
		if (off)
			snprintf(why, wlen, "kprobe at %s+0x%zx refused: %s", sym, off, strerror(errno));
		else
			snprintf(why, wlen, "kprobe on %s refused: %s", sym, strerror(errno));
		return -1;
	}
	return 0;
}

/* A kretprobe on sym; -1 with why. */
int probes_attach_kretprobe(struct probes *p, struct bpf_program *prog, const char *sym, char *why, size_t wlen)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = true);
	struct bpf_link *l = bpf_program__attach_kprobe_opts(prog, sym, &o);

	if (!l || keep_link(p, l) < 0) {
		snprintf(why, wlen, "kretprobe on %s refused: %s", sym, strerror(errno));
		return -1;
	}
	return 0;
}

/* Is there an esp4 this kernel could load? modules.dep and modules.builtin say; 1 yes, 0 no, -1 cannot tell. */
static int esp4_exists(void)
{
	static const char *const lists[] = { "modules.dep", "modules.builtin" };
	struct utsname u;
	char path[512], line[1024];
	bool found = false, read = false;

	if (uname(&u) < 0)
		return -1;
	for (size_t i = 0; i < 2 && !found; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, lists[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		read = true;
		while (!found && fgets(line, sizeof(line), f))
			found = strstr(line, "/esp4.ko") != NULL;
		fclose(f);
	}
	return found ? 1 : read ? 0 : -1;
}

const char *probes_esp_missing(const char *sym)
{
	static char why[300];
	struct utsname u;
	int e;

	uname(&u);
	if (access("/sys/module/esp4", F_OK) == 0)
		snprintf(why, sizeof(why), "%s is not in /proc/kallsyms although esp4 is loaded", sym);
	else if ((e = esp4_exists()) > 0)
		snprintf(why, sizeof(why), "%s is not in /proc/kallsyms: esp4 is not loaded (ESP scenarios load it)", sym);
	else if (e < 0)
		snprintf(why, sizeof(why), "%s is not in /proc/kallsyms: esp4 is not loaded (and there is no /lib/modules/%s/modules.dep to tell whether it exists)",
			 sym, u.release);
	else
		snprintf(why, sizeof(why), "%s is not in /proc/kallsyms: this kernel has no esp4 (CONFIG_INET_ESP unset; not in modules.dep or modules.builtin)", sym);
	return why;
}

void probes_attach_simple_kprobe(struct probes *p, const struct ksyms *ks, int c, struct bpf_program *prog,
				 const char *sym, bool esp)
{
	char why[256];

	if (!ksyms_find(ks, sym)) {
		if (esp)
			probes_set_how(p, c, false, "%s", probes_esp_missing(sym));
		else
			probes_set_how(p, c, false, "%s is not in /proc/kallsyms", sym);
		return;
	}
	if (probes_attach_kprobe(p, prog, sym, 0, why, sizeof(why)) < 0) {
		probes_set_how(p, c, false, "%s", why);
		return;
	}
	probes_set_how(p, c, true, "kprobe %s%s", sym,
		ksyms_count(ks, sym) > 1 ? " (the first of several symbols of that name)" : "");
}

/*
 * Without BPF: the tracepoints through perf_event_open, counted, filtered
 * by tracefs; what needs kprobes stays unavailable.
 */
static int perf_open(struct probes *p, const char *tracefs, const char *const *devs, bool xmit, bool esp);

int probes_attach_perf(struct probes *p, const char *const *devs, bool xmit, bool esp)
{
	const char *tracefs;
	char why[256];

	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		probes_set_how(p, c, false, "%s; kprobes are not used without BPF", p->nobpf);
	if (!xmit && !esp) /* nothing to count here: the kernel's counters give skbs and segments */
		return 0;
	/*
	 * tracefs is read here only (the events' ids and formats): mounted if
	 * need be and unmounted again at once, under the host-wide lock, so
	 * that no other run's end unmounts it while this one reads it.
	 */
	int mark = journal_mark(), rc;

	if (!p->list && journal_hostwide("mount:tracefs", why, sizeof(why)) < 0)
		tracefs = NULL;
	else
		tracefs = perfcount_tracefs(!p->list, why, sizeof(why));
	rc = tracefs ? perf_open(p, tracefs, devs, xmit, esp) : -1;
	if (!tracefs)
		for (int c = 0; c < IPP_NR_COUNTERS; c++)
			probes_set_how(p, c, false, "%s; and %s", p->nobpf, why);
	if (!p->list)
		journal_undo_to(mark);
	return rc;
}

/* The tracepoints through perf_event_open, their ids and formats read in tracefs. */
static int perf_open(struct probes *p, const char *tracefs, const char *const *devs, bool xmit, bool esp)
{
	static const char *const fns[] = { "esp_output_tail", "esp_alloc_tmp" };
	uint64_t lo[2], hi[2];
	int n = 0;
	char why[256], esp_why[256] = "";
	struct ksyms ks;

	if (!esp) {
		snprintf(esp_why, sizeof(esp_why), "%s", p->esp ? NOT_IN_SET_WHY : NO_ESP_WHY);
	} else if (ksyms_load(&ks, NULL, why, sizeof(why)) == 0) {
		for (int i = 0; i < 2; i++)
			if (ksyms_range(&ks, fns[i], &lo[n], &hi[n]) == 0)
				n++;
		if (!n)
			snprintf(esp_why, sizeof(esp_why), "%s", probes_esp_missing("esp_output_tail"));
		ksyms_free(&ks);
	} else {
		snprintf(esp_why, sizeof(esp_why), "%s", why);
	}
	p->pc = perfcount_open(tracefs, xmit, devs, lo, hi, n, p->avail, p->how);
	if (!p->pc)
		return -1;
	if (*esp_why) {
		probes_set_how(p, IPP_KMALLOC_ESP_OUTPUT, false, "%s", esp_why);
		probes_set_how(p, IPP_KFREE_ESP_OUTPUT, false, "%s", esp_why);
	}
	return 0;
}

/*
 * net_dev_start_xmit, filtered to the testbed's devices by interface index
 * and namespace (another run on this host may have devices of the same
 * names in namespaces of its own). No devices: every device counts.
 */
void probes_attach_xmit(struct probes *p, const char *const *devs, const char *const *netns)
{
	struct bpf_program *prog = p->xmit == XMIT_CAST ? p->skel->progs.xmit_cast
				   : p->xmit == XMIT_BTF ? p->skel->progs.xmit_btf : p->skel->progs.xmit;
	const char *kind = p->xmit == XMIT_RAW ? "raw tracepoint" : "BTF tracepoint";
	const char *read = p->xmit == XMIT_CAST ? "bpf_rdonly_cast" : "bpf_probe_read_kernel";
	char why[256] = "", on[128] = "";
	struct bpf_link *l;

	memset(p->skel->bss->xmit_ifindex, 0, sizeof(p->skel->bss->xmit_ifindex));
	memset(p->skel->bss->xmit_ns, 0, sizeof(p->skel->bss->xmit_ns));
	for (int i = 0; devs && devs[i] && i < 2 && !why[0]; i++) {
		const char *ns = netns ? netns[i] : NULL;

		if (netns_ifindex(ns, devs[i], &p->skel->bss->xmit_ifindex[i], &p->skel->bss->xmit_ns[i]) < 0)
			snprintf(why, sizeof(why), "no device %s%s%s: %s", devs[i], ns ? " in namespace " : "",
				 ns ? ns : "", strerror(errno));
	}
	if (!why[0]) {
		l = bpf_program__attach(prog);
		if (!l || keep_link(p, l) < 0)
			snprintf(why, sizeof(why), "%s net:net_dev_start_xmit refused: %s", kind, strerror(errno));
	}
	if (why[0]) {
		probes_set_how(p, IPP_XMIT_SKBS, false, "%s", why);
		probes_set_how(p, IPP_XMIT_SEGS, false, "%s", why);
		return;
	}
	if (devs && devs[0])
		snprintf(on, sizeof(on), " on %s%s%s%s", devs[0], devs[1] ? " and " : "", devs[1] ? devs[1] : "",
			 netns ? " in the testbed's namespaces" : "");
	probes_set_how(p, IPP_XMIT_SKBS, true, "%s net:net_dev_start_xmit%s", kind, on);
	probes_set_how(p, IPP_XMIT_SEGS, true, "%s net:net_dev_start_xmit%s, skb_shinfo(skb)->gso_segs (1 if not GSO; %s)",
		kind, on, read);
}

int probes_nattached(const struct probes *p)
{
	return p->nlinks + (p->pc != NULL) + kcount_active(&p->kc);
}
