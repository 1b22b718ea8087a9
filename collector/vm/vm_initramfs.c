// SPDX-License-Identifier: GPL-2.0
/*
 * The VM testbed's initramfs, written as an uncompressed cpio (newc) archive
 * directly, without a staging copy of its files: this program as /bin/ipsecperf
 * (its init, `ipsecperf guest`), the tools the netns testbed runs (iperf3,
 * ethtool, iproute2's ip, kmod) with the shared libraries ldd names, busybox,
 * the scenario files, the kernel's config, and the kernel modules the
 * scenarios may need with their dependencies from modules.dep, indexed
 * for the guest's modprobe by `depmod -b` (the kernel itself asks
 * /sbin/modprobe for crypto templates and xfrm types on demand).
 */
#include "vm_initramfs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "anchors.h"
#include "cpio.h"
#include "files.h"
#include "exec.h"
#include "kdwarf.h"
#include "loads.h"
#include "options.h"
#include "testbed_ops.h"
#include "log.h"
#include "vm_guest.h"
#include "vm_pair.h"

/* The first of paths that exists (and is not busybox, unless may_be_busybox), or NULL. */
static const char *first_real(const char *const *paths, bool may_be_busybox)
{
	for (; *paths; paths++) {
		char real[PATH_MAX];
		const char *b;

		if (!realpath(*paths, real) || !is_file(real))
			continue;
		b = strrchr(real, '/');
		if (may_be_busybox || strcmp(b + 1, "busybox"))
			return *paths;
	}
	return NULL;
}

struct tool {
	const char *guest;       /* where it goes in the guest */
	const char *host[5];     /* where to look on the host */
	bool required;
};

/* Besides the programs the loads start (loads.h), each put in usr/bin. */
static const struct tool tools[] = {
	{ "usr/sbin/ethtool", { "/usr/sbin/ethtool", "/sbin/ethtool", "/usr/bin/ethtool" }, true },
	{ "usr/sbin/ip", { "/usr/sbin/ip", "/sbin/ip", "/bin/ip", "/usr/bin/ip" }, true },
	{ "usr/sbin/tc", { "/usr/sbin/tc", "/sbin/tc", "/bin/tc", "/usr/bin/tc" }, false },
	{ "usr/bin/kmod", { "/usr/bin/kmod", "/bin/kmod" }, true },
	{ "bin/busybox", { "/bin/busybox", "/usr/bin/busybox" }, true },
};

/* busybox applets that would shadow the real tools the collector calls */
static const char *const shadowed[] = {
	"ip", "ipaddr", "iplink", "iproute", "iprule", "iptunnel", "ipneigh", "tc",
	"modprobe", "insmod", "rmmod", "lsmod", "modinfo", "depmod", "init", "linuxrc",
	NULL,
};

static int add_busybox_applets(struct cpio *c)
{
	char *out = NULL, *line, *save = NULL;

	if (exec_in_dir(NULL, (char *[]){ "/bin/busybox", "--list", NULL }, &out) != 0) {
		free(out);
		return 0;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		bool skip = false;

		for (int i = 0; shadowed[i]; i++)
			skip |= !strcmp(line, shadowed[i]);
		if (skip || strchr(line, '/') || strlen(line) > 64)
			continue;
		fmt_buf(name, sizeof(name), "bin/%s", line);
		cpio_symlink(c, name, "busybox");
	}
	free(out);
	return 0;
}

/* One tool, found on the host; a required one missing is an error. */
static int add_tool(struct cpio *c, const struct tool *t)
{
	const char *src = first_real(t->host, !strcmp(t->guest, "bin/busybox"));

	if (src)
		return add_elf(c, t->guest, src);
	if (!t->required)
		return 0;
	pr_warn("vm: initramfs: %s is not installed on this host; `make deps` installs it", strrchr(t->guest, '/') + 1);
	return -1;
}

/* The programs every load starts (iperf3), from the host's usr/local/bin, usr/bin or bin. */
static int add_load_tools(struct cpio *c)
{
	for (int k = 0; load_kinds[k]; k++)
		for (const struct load_need *n = load_kinds[k]->needs; n->program; n++) {
			char guest[128], in[3][128];
			struct tool t = { guest, { in[0], in[1], in[2] }, true };

			fmt_buf(guest, sizeof(guest), "usr/bin/%s", n->program);
			fmt_buf(in[0], sizeof(in[0]), "/usr/bin/%s", n->program);
			fmt_buf(in[1], sizeof(in[1]), "/usr/local/bin/%s", n->program);
			fmt_buf(in[2], sizeof(in[2]), "/bin/%s", n->program);
			if (add_tool(c, &t) < 0)
				return -1;
		}
	return 0;
}

static int add_tools(struct cpio *c, const char *workdir)
{
	char self[64], stripped[PATH_MAX + 32], *out = NULL;
	const char *exe = self;

	/*
	 * This very program, through /proc: it may have been rebuilt (or
	 * removed) since it started, and the file behind /proc/PID/exe is
	 * still the one running. Not /proc/self: ldd and strip open it.
	 */
	fmt_buf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	/* built with -g, this program is three times its size: less to unpack */
	fmt_buf(stripped, sizeof(stripped), "%s/ipsecperf", workdir);
	if (exec_in_dir(NULL, (char *[]){ "strip", "--strip-debug", "-o", stripped, self, NULL },
		      &out) == 0)
		exe = stripped;
	free(out);
	if (add_elf(c, GUEST_EXE + 1, exe) < 0 || add_load_tools(c) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (add_tool(c, &tools[i]) < 0)
			return -1;
	/*
	 * Not /sbin/modprobe, the kernel's default modprobe path: while it
	 * boots, the kernel asks for crypto and other modules it can do
	 * without, and loading them all under TCG took 8 of 14 s. The guest's
	 * init points /proc/sys/kernel/modprobe here once the kernel is up.
	 */
	for (const char *const *p = (const char *const[]){ "usr/sbin/modprobe", "usr/sbin/insmod",
			"usr/sbin/rmmod", "usr/sbin/lsmod", "usr/sbin/modinfo", NULL };
	     *p; p++)
		cpio_symlink(c, *p, "/usr/bin/kmod");
	cpio_symlink(c, "sbin/ip", "/usr/sbin/ip");
	return add_busybox_applets(c);
}

/* ---- kernel modules ---- */

/*
 * What the scenarios may ask for: the IPsec stack, every crypto module,
 * IPv4's extras (tunnels, congestion controls), veth, WireGuard and MACsec. Dependencies come
 * from modules.dep. Netfilter and qdiscs are left out, nothing in the
 * matrix uses them, and every megabyte costs boot time under TCG;
 * IPSECPERF_VM_MODULES=name,name adds more.
 */
static const char *const module_prefixes[] = {
	"kernel/crypto/", "kernel/arch/x86/crypto/", "kernel/lib/crypto/",
	"kernel/net/ipv4/", "kernel/net/ipv6/esp6", "kernel/net/ipv6/ah6",
	"kernel/net/ipv6/ipcomp6", "kernel/net/ipv6/xfrm6", "kernel/net/ipv6/tunnel6",
	"kernel/net/xfrm/", "kernel/net/key/",
	"kernel/drivers/net/veth.", "kernel/drivers/net/dummy.",
	"kernel/drivers/net/wireguard/", "kernel/drivers/net/macsec.", /* the encrypted links (enclink.h) */
	NULL,
};

struct module {
	char *rel;  /* path under lib/modules/<release>, as in modules.dep */
	char *src;  /* the file on the host */
	char **deps;
	int ndeps;
	bool want;
};

struct modset {
	struct module *m;
	int n, cap;
};

static struct module *modset_add(struct modset *s, const char *rel, const char *src)
{
	if (s->n == s->cap) {
		int ncap = s->cap ? s->cap * 2 : 1024;
		struct module *nm = realloc(s->m, ncap * sizeof(*nm));

		if (!nm)
			return NULL;
		s->m = nm;
		s->cap = ncap;
	}
	s->m[s->n] = (struct module){ .rel = strdup(rel), .src = strdup(src) };
	return &s->m[s->n++];
}

static struct module *modset_find(struct modset *s, const char *rel)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].rel, rel))
			return &s->m[i];
	return NULL;
}

static void modset_free(struct modset *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->m[i].rel);
		free(s->m[i].src);
		for (int j = 0; j < s->m[i].ndeps; j++)
			free(s->m[i].deps[j]);
		free(s->m[i].deps);
	}
	free(s->m);
}

static bool is_module_name(const char *p)
{
	const char *k = strstr(p, ".ko");

	return k && (!k[3] || !strcmp(k + 3, ".xz") || !strcmp(k + 3, ".zst") ||
		     !strcmp(k + 3, ".gz"));
}

static struct modset *walk_set;
static size_t walk_base;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	/* a regular file of its own: a link (to a host file), a device or a FIFO is no module */
	if (flag == FTW_F && S_ISREG(st->st_mode) && is_module_name(path) &&
	    !modset_add(walk_set, path + walk_base, path))
		return -1;
	return 0;
}

/* Every module file under an installed lib/modules/<release>. */
static int modules_from_moddir(const char *moddir, struct modset *s)
{
	walk_set = s;
	walk_base = strlen(moddir) + 1;
	return nftw(moddir, walk_one, 32, FTW_PHYS);
}

/* Every module a build tree made, as modules_install would lay them out. */
static int modules_from_tree(const char *tree, struct modset *s)
{
	char path[PATH_MAX], line[PATH_MAX];
	struct stat st;
	FILE *f;

	fmt_buf(path, sizeof(path), "%s/modules.order", tree);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char rel[PATH_MAX + 16], src[PATH_MAX * 2];
		size_t n;

		line[strcspn(line, "\r\n")] = '\0';
		n = strlen(line);
		if (n > 2 && !strcmp(line + n - 2, ".o"))
			line[n - 2] = '\0';
		else if (n > 3 && !strcmp(line + n - 3, ".ko"))
			line[n - 3] = '\0';
		else
			continue;
		fmt_buf(src, sizeof(src), "%s/%s.ko", tree, line);
		fmt_buf(rel, sizeof(rel), "kernel/%s.ko", line);
		if (lstat(src, &st) == 0 && S_ISREG(st.st_mode) && !strstr(line, "..") && !modset_add(s, rel, src)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* Read modules.dep into the set's deps. */
static int read_modules_dep(const char *path, struct modset *s)
{
	char *buf = file_read(path, NULL), *line, *save = NULL;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *tok, *s2 = NULL;
		struct module *m;

		if (!colon)
			continue;
		*colon = '\0';
		m = modset_find(s, line);
		if (!m)
			continue;
		for (tok = strtok_r(colon + 1, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
			char **nd = realloc(m->deps, (m->ndeps + 1) * sizeof(*nd));

			if (!nd)
				break;
			m->deps = nd;
			m->deps[m->ndeps++] = strdup(tok);
		}
	}
	free(buf);
	return 0;
}

/*
 * Symlink the modules of s (all, or the wanted ones) into
 * stage/lib/modules/<release> with the kernel's module lists, and run
 * depmod -b there.
 */
static int stage_modules(struct modset *s, bool only_wanted, const char *srcdir,
			 const char *stage, const char *release)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], *out = NULL;
	FILE *order;
	int st;

	fmt_buf(dir, sizeof(dir), "%s/lib/modules/%s", stage, release);
	if (mkdir_p(dir, 0755) < 0)
		return -1;
	fmt_buf(path, sizeof(path), "%s/modules.order", dir);
	order = fopen(path, "w");
	if (!order)
		return -1;
	for (int i = 0; i < s->n; i++) {
		char *slash;

		if (only_wanted && !s->m[i].want)
			continue;
		fmt_buf(path, sizeof(path), "%s/%s", dir, s->m[i].rel);
		slash = strrchr(path, '/');
		*slash = '\0';
		mkdir_p(path, 0755);
		*slash = '/';
		if (symlink(s->m[i].src, path) < 0 && errno != EEXIST) {
			fclose(order);
			return -1;
		}
		fprintf(order, "%s\n", s->m[i].rel);
	}
	if (fclose(order) != 0)
		return -1;
	for (const char *const *f = (const char *const[]){ "modules.builtin",
			"modules.builtin.modinfo", NULL }; *f; f++) {
		char src[PATH_MAX * 2];

		fmt_buf(src, sizeof(src), "%s/%s", srcdir, *f);
		fmt_buf(path, sizeof(path), "%s/%s", dir, *f);
		if (is_file(src) && copy_file(src, path) < 0)
			return -1;
	}
	st = exec_in_dir(NULL, (char *[]){ "depmod", "-b", (char *)stage, (char *)release, NULL },
		       &out);
	if (st != 0)
		pr_warn("vm: depmod -b %s %s failed: %s", stage, release, out ? out : "no message");
	free(out);
	return st == 0 ? 0 : -1;
}

static void want_closure(struct modset *s, struct module *m)
{
	if (m->want)
		return;
	m->want = true;
	for (int i = 0; i < m->ndeps; i++) {
		struct module *d = modset_find(s, m->deps[i]);

		if (d)
			want_closure(s, d);
	}
}

/* A large unstripped module from a build tree: strip its debug info. */
static const char *maybe_strip(const struct module *m, const char *workdir, char *buf,
			       size_t len)
{
	struct stat st;
	const char *b = strrchr(m->rel, '/');
	char *out = NULL;

	if (stat(m->src, &st) < 0 || st.st_size < (1 << 20) ||
	    strcmp(m->src + strlen(m->src) - 3, ".ko"))
		return m->src;
	fmt_buf(buf, len, "%s/strip-%s", workdir, b ? b + 1 : m->rel);
	if (exec_in_dir(NULL, (char *[]){ "strip", "--strip-debug", "-o", buf, m->src, NULL },
		      &out) != 0) {
		free(out);
		return m->src;
	}
	free(out);
	return buf;
}

/*
 * Every module of k with its dependencies (modules.dep; for a build tree,
 * or a package without one, from depmod over the whole set first); its
 * source folder in srcdir. 1 when k has no modules, -1 on error.
 */
static int gather_modules(const struct vm_kernel *k, const char *workdir, struct modset *s,
			  char *srcdir, size_t srclen)
{
	char dep[PATH_MAX * 2], stage[PATH_MAX * 2];

	if (*k->tree) {
		fmt_buf(srcdir, srclen, "%s", k->tree);
		if (modules_from_tree(k->tree, s) < 0)
			return -1;
	} else if (*k->moddir) {
		fmt_buf(srcdir, srclen, "%s", k->moddir);
		if (modules_from_moddir(k->moddir, s) < 0)
			return -1;
	} else {
		return 1; /* a kernel without modules: what it has is built in */
	}
	fmt_buf(dep, sizeof(dep), "%s/modules.dep", srcdir);
	if (*k->tree || !is_file(dep)) {
		/* no index yet: make one for the whole set first */
		fmt_buf(stage, sizeof(stage), "%s/modules-all", workdir);
		if (stage_modules(s, false, srcdir, stage, k->release) < 0)
			return -1;
		fmt_buf(dep, sizeof(dep), "%s/lib/modules/%s/modules.dep", stage, k->release);
	}
	if (read_modules_dep(dep, s) < 0) {
		pr_warn("vm: cannot read %s", dep);
		return -1;
	}
	return 0;
}

/* Is the module file base (name.ko...) one of IPSECPERF_VM_MODULES=name,name? */
static bool asked_by_name(const char *extra, const char *base)
{
	char name[128];

	if (!extra || !base)
		return false;
	fmt_buf(name, sizeof(name), "%s", base);
	name[strcspn(name, ".")] = '\0';
	for (const char *p = extra; *p;) {
		size_t l = strcspn(p, ",");

		if (l == strlen(name) && !strncmp(p, name, l))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* Want the modules under module_prefixes (no netfilter) and those asked for, with their deps. */
static void want_modules(struct modset *s, bool pair)
{
	const char *extra = getenv("IPSECPERF_VM_MODULES");

	for (int i = 0; i < s->n; i++) {
		const char *base = strrchr(s->m[i].rel, '/');
		bool want = false;

		for (int j = 0; module_prefixes[j]; j++)
			want |= !strncmp(s->m[i].rel, module_prefixes[j], strlen(module_prefixes[j]));
		want &= !strstr(s->m[i].rel, "/netfilter/");
		want |= pair && vm_pair_module(s->m[i].rel);
		want |= asked_by_name(extra, base ? base + 1 : NULL);
		if (want)
			want_closure(s, &s->m[i]);
	}
}

/* The wanted modules and the guest's index of exactly these (staged in stage). */
static int write_modules(struct cpio *c, struct modset *s, const struct vm_kernel *k,
			 const char *workdir, const char *stage, int *nmods)
{
	char dir[PATH_MAX * 3];

	for (int i = 0; i < s->n; i++) {
		char name[PATH_MAX * 2], stripped[PATH_MAX * 2];

		if (!s->m[i].want)
			continue;
		fmt_buf(name, sizeof(name), "lib/modules/%s/%s", k->release, s->m[i].rel);
		if (cpio_file(c, name, maybe_strip(&s->m[i], workdir, stripped, sizeof(stripped))) < 0)
			return -1;
		(*nmods)++;
	}
	fmt_buf(dir, sizeof(dir), "%s/lib/modules/%s", stage, k->release);
	for (const char *const *f = (const char *const[]){ "modules.dep", "modules.dep.bin",
			"modules.alias", "modules.alias.bin", "modules.softdep", "modules.symbols",
			"modules.symbols.bin", "modules.builtin", "modules.builtin.bin",
			"modules.builtin.alias.bin", "modules.builtin.modinfo", "modules.devname",
			"modules.order", NULL }; *f; f++) {
		char src[PATH_MAX * 4], name[PATH_MAX];

		fmt_buf(src, sizeof(src), "%s/%s", dir, *f);
		fmt_buf(name, sizeof(name), "lib/modules/%s/%s", k->release, *f);
		if (is_file(src) && cpio_file(c, name, src) < 0)
			return -1;
	}
	return 0;
}

static int add_modules(struct cpio *c, const struct vm_kernel *k, const char *workdir,
		       bool pair, int *nmods)
{
	char srcdir[PATH_MAX], stage[PATH_MAX * 2];
	struct modset s = { 0 };
	int err = gather_modules(k, workdir, &s, srcdir, sizeof(srcdir));

	*nmods = 0;
	if (err == 0) {
		want_modules(&s, pair);
		/* the guest's index covers exactly the modules it has */
		fmt_buf(stage, sizeof(stage), "%s/modules", workdir);
		err = stage_modules(&s, true, srcdir, stage, k->release);
		if (err == 0)
			err = write_modules(c, &s, k, workdir, stage, nmods);
	}
	if (err < 0)
		pr_warn("vm: cannot gather the modules of %s", k->spec);
	modset_free(&s);
	return err < 0 ? -1 : 0;
}

/* ---- the guest's configuration ---- */

/*
 * The host's run options, as given, go to the guest's run (so every option,
 * --no-probes or one added later, means the same inside), those the option
 * table marks OPT_GUEST; the others (the testbed, the output, the kernels,
 * the repeats) the host handles, and guest_config() gives the guest its own.
 */
static int forward(const struct opt_def *d, const char *val, void *arg)
{
	json_t *argv = arg;
	char opt[80];

	if (!(d->marks & OPT_GUEST))
		return 0;
	fmt_buf(opt, sizeof(opt), "--%s", d->name);
	json_array_append_new(argv, json_string(opt));
	if (val)
		json_array_append_new(argv, json_string(val));
	return 0;
}

static void forward_options(const struct run_config *cfg, json_t *argv)
{
	if (cfg->opts)
		options_each(cfg->opts, 0, cfg->argc, cfg->argv, forward, argv);
}

static json_t *guest_config(const struct run_config *cfg, const struct vm_kernel *k, const struct vm_pair_guest *pg)
{
	json_t *argv = json_array(), *scen = json_array();

	json_array_append_new(argv, json_string(GUEST_EXE));
	/* the guest's own debug lines on the console with -v -v; its commands too with -v -v -v */
	for (int v = 2; v <= log_verbose && v <= 3; v++)
		json_array_append_new(argv, json_string("-v"));
	json_array_append_new(argv, json_string("run"));
	forward_options(cfg, argv);
	/* the testbed the (sending) guest runs, as the entry names it */
	json_array_append_new(argv, json_string("--testbed"));
	json_array_append_new(argv, json_string(cfg->tb_entry->in_guest));
	if (pg)
		vm_pair_sender_args(argv);
	json_array_append_new(argv, json_string("-o"));
	json_array_append_new(argv, json_string(GUEST_OUT "/" GUEST_RUNDIR));
	json_array_append_new(argv, json_string("--quiet"));
	json_array_append_new(argv, json_string("--repeat"));
	json_array_append_new(argv, json_sprintf("%d", cfg->repeat));
	json_array_append_new(argv, json_string("--repeat-from"));
	json_array_append_new(argv, json_sprintf("%d", cfg->repeat_from));
	json_array_append_new(argv, json_string("--count-repeats"));
	json_array_append_new(argv, json_sprintf("%d", cfg->count_repeats));
	json_array_append_new(argv, json_string("--"));
	for (int i = 0; i < cfg->nscenarios; i++) {
		json_array_append_new(argv, json_string(cfg->scenarios[i].name));
		json_array_append_new(scen, json_string(cfg->scenarios[i].name));
	}
	return json_pack("{s:o, s:o, s:s, s:s}", "argv", argv, "scenarios", scen,
			 "release", k->release, "spec", k->spec);
}

/*
 * The guest has no vmlinux: where the kernel's has DWARF, the probes'
 * anchors in the functions it inlined are read here and go into the
 * initramfs for the guest's probes (probes/anchors.h). Without them the
 * probes anchor as they can; only a failed write fails the build.
 */
static int add_anchors(struct cpio *c, const struct vm_kernel *k)
{
	struct anchors *a;
	char why[256], *text;
	int n;

	if (!*k->vmlinux)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	n = kdwarf_probe_anchors(k->vmlinux, a, why, sizeof(why));
	if (n <= 0) {
		pr_debug("vm: no probe anchors from %s: %s", k->vmlinux, n < 0 ? why : "nothing inlined there");
		free(a);
		return 0;
	}
	text = anchors_format(a);
	free(a);
	if (!text)
		return -1;
	pr_debug("vm: %d probe anchors from the DWARF of %s", n, k->vmlinux);
	cpio_mem(c, GUEST_ANCHORS + 1, 0644, text, strlen(text));
	free(text);
	return 0;
}

/* The scenario files (as the host read them), the kernel's config, /etc's protocols and services. */
static int add_data(struct cpio *c, const struct run_config *cfg, const struct vm_kernel *k)
{
	for (int i = 0; i < cfg->nscenarios; i++) {
		char name[PATH_MAX];
		const char *t = cfg->scenarios[i].text ? cfg->scenarios[i].text : "";

		fmt_buf(name, sizeof(name), "scenarios/%s.ini", cfg->scenarios[i].name);
		cpio_mem(c, name, 0644, t, strlen(t));
	}
	/* where the collector looks for the running kernel's config */
	if (*k->config) {
		char name[PATH_MAX];

		fmt_buf(name, sizeof(name), "boot/config-%s", k->release);
		if (cpio_file(c, name, k->config) < 0)
			return -1;
	}
	for (const char *const *f = (const char *const[]){ "/etc/protocols", "/etc/services", NULL }; *f; f++)
		if (is_file(*f))
			cpio_file(c, *f + 1, *f);
	return 0;
}

/* --dry-run: what the guest will run, as its config says (the receiver of a pair runs sshd and the agent). */
static void print_guest(json_t *gc, const struct vm_kernel *k, const struct vm_pair_guest *pg)
{
	json_t *a = json_object_get(gc, "argv"), *v;
	char *argv[128];
	size_t i, n = 0;

	if (!json_is_array(a)) {
		printf("# the receiving guest (%s) runs sshd, for the sending guest's ipsecperf peer-agent\n", k->release);
		return;
	}
	json_array_foreach(a, i, v)
		if (n < sizeof(argv) / sizeof(argv[0]) - 1 && json_is_string(v))
			argv[n++] = (char *)json_string_value(v);
	argv[n] = NULL;
	printf("# the %sguest (%s) runs: ", pg ? "sending " : "", k->release);
	exec_print(stdout, NULL, argv);
}

int vm_initramfs_build(const struct run_config *cfg, const struct vm_kernel *k,
		       const struct vm_pair_guest *pg, const char *workdir, const char *path)
{
	struct cpio c = { 0 };
	json_t *gc;
	char *text;
	int nmods = 0;

	c.f = fopen(path, "wb");
	if (!c.f) {
		pr_warn("vm: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	for (const char *const *d = (const char *const[]){ "dev", "proc", "sys", "tmp", "run",
			"root", "etc", "out", "var", "var/run", "usr/lib", "lib", NULL }; *d; d++)
		cpio_dir(&c, *d);
	cpio_node(&c, "dev/console", 020600, 5, 1);
	cpio_node(&c, "dev/null", 020666, 1, 3);
	if (add_tools(&c, workdir) < 0)
		goto fail;
	/* --profile: perf and its libraries (some 30 MB), only when asked for */
	if (cfg->profile_hz) {
		const char *perf = first_real((const char *const[]){ "/usr/bin/perf", "/usr/local/bin/perf", NULL }, false);

		if (!perf) {
			pr_warn("vm: initramfs: --profile needs perf on this host; `make deps` installs it (linux-perf)");
			goto fail;
		}
		if (add_elf(&c, "usr/bin/perf", perf) < 0)
			goto fail;
	}
	if (add_modules(&c, k, workdir, pg != NULL, &nmods) < 0)
		goto fail;
	pr_debug("vm: initramfs: %d modules for %s", nmods, k->release);

	if (add_data(&c, cfg, k) < 0)
		goto fail;
	gc = guest_config(cfg, k, pg);
	if (pg && vm_initramfs_pair(&c, cfg, pg, gc) < 0) {
		json_decref(gc);
		goto fail;
	}
	if (cfg->dry_run)
		print_guest(gc, k, pg);
	cpio_mem(&c, "etc/passwd", 0644, "root:x:0:0:root:/root:/bin/sh\n", 30);
	cpio_mem(&c, "etc/group", 0644, "root:x:0:\n", 10);
	cpio_mem(&c, "etc/hostname", 0644, "ipsecperf-vm\n", 13);

	if (add_anchors(&c, k) < 0) {
		json_decref(gc);
		goto fail;
	}
	text = json_dumps(gc, JSON_INDENT(1));
	json_decref(gc);
	if (!text)
		goto fail;
	cpio_mem(&c, GUEST_CONFIG + 1, 0644, text, strlen(text));
	free(text);
	/* the kernel runs /init when no rdinit= is given; keep that working too */
	cpio_mem(&c, "init", 0755, "#!/bin/sh\nexec " GUEST_EXE " guest\n",
		 strlen("#!/bin/sh\nexec " GUEST_EXE " guest\n"));
	if (cpio_finish(&c) < 0) {
		pr_warn("vm: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
fail:
	cpio_finish(&c);
	return -1;
}
