// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a kernel's .config, and the table of what the VM testbed needs
 * from it (docs/vm-testbed.md, "Kernels from source").
 */
#include "kconfig.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "log.h"
#include "scenario.h"

const struct kneed kneeds[] = {
	/* the guest: console and results on the 8250 UARTs, init from an initramfs */
	{ "SERIAL_8250", 'y', KNEED_BOOT, "the UARTs the console and the results travel on", NULL },
	{ "SERIAL_8250_CONSOLE", 'y', KNEED_BOOT, "the console on ttyS0", NULL },
	{ "BLK_DEV_INITRD", 'y', KNEED_BOOT, "the initramfs the guest runs from", NULL },
	{ "DEVTMPFS", 'y', KNEED_BOOT, "the guest's /dev", NULL },
	{ "TMPFS", 'y', KNEED_BOOT, "the guest's /out and /run", NULL },
	{ "PROC_FS", 'y', KNEED_BOOT, "/proc", NULL },
	{ "SYSFS", 'y', KNEED_BOOT, "/sys", NULL },
	{ "BINFMT_ELF", 'y', KNEED_BOOT, "running the guest's programs", NULL },
	{ "BINFMT_SCRIPT", 'y', KNEED_BOOT, "#! scripts in the guest", NULL },
	{ "MODULES", 'y', KNEED_BOOT, "loading esp4_offload and crypto modules", NULL },
	{ "MODULE_UNLOAD", 'y', KNEED_SCENARIO, "unloading esp4_offload before ESP without GSO", NULL },
	{ "CGROUPS", 'y', KNEED_BOOT, "the guest's cgroup2 mount", NULL },
	{ "PVH", 'y', KNEED_SPEED, "the quick boot: qemu starts vmlinux at its PVH entry", NULL },
	{ "IKCONFIG", 'y', KNEED_SPEED, "the config inside the kernel, for meta.json's hash", NULL },
	{ "IKCONFIG_PROC", 'y', KNEED_SPEED, "/proc/config.gz", NULL },
	/* the testbed: two namespaces joined by a veth pair */
	{ "NET", 'y', KNEED_TESTBED, "networking", NULL },
	{ "INET", 'y', KNEED_TESTBED, "TCP/IP", NULL },
	{ "NET_NS", 'y', KNEED_TESTBED, "the two network namespaces", NULL },
	{ "VETH", 'y', KNEED_TESTBED, "the veth pair between them", NULL },
	{ "IPV6", 'y', KNEED_SCENARIO, "TCP-AO depends on it", NULL },
	/* the vm-pair testbed: a virtio-net device on qemu's PCI bus in each guest */
	{ "VIRTIO_PCI", 'y', KNEED_PAIR, "virtio devices on PCI", NULL },
	{ "VIRTIO_NET", 'y', KNEED_PAIR, "the virtio-net link between the vm-pair guests", NULL },
	/* the scenarios */
	{ "XFRM_USER", 'y', KNEED_SCENARIO, "SAs and policies over netlink", NULL },
	{ "XFRM_STATISTICS", 'y', KNEED_SCENARIO, "/proc/net/xfrm_stat, the kernel's IPsec error counters", NULL },
	{ "INET_ESP", 'y', KNEED_SCENARIO, "ESP", NULL },
	{ "INET_ESP_OFFLOAD", 'm', KNEED_SCENARIO,
	  "ESP GSO, loaded for esp-gso = on and unloaded for esp-gso = off", NULL },
	{ "TCP_MD5SIG", 'y', KNEED_SCENARIO, "TCP-MD5 (RFC 2385)", NULL },
	{ "TCP_AO", 'y', KNEED_SCENARIO, "TCP-AO (RFC 5925)", NULL },
	{ "CRYPTO_NULL", 'y', KNEED_SCENARIO, "cipher_null and digest_null", NULL },
	{ "CRYPTO_AUTHENC", 'y', KNEED_SCENARIO, "ESP with a cipher and a digest", NULL },
	{ "CRYPTO_ECHAINIV", 'y', KNEED_SCENARIO, "the IVs of ESP with a cipher and a digest", NULL },
	{ "CRYPTO_SEQIV", 'y', KNEED_SCENARIO, "the IVs of ESP with an AEAD", NULL },
	{ "CRYPTO_ECB", 'y', KNEED_SCENARIO, "ecb()", NULL },
	{ "CRYPTO_CBC", 'y', KNEED_SCENARIO, "cbc()", NULL },
	{ "CRYPTO_GCM", 'y', KNEED_SCENARIO, "gcm() and rfc4106()", NULL },
	{ "CRYPTO_AES", 'y', KNEED_SCENARIO, "aes", NULL },
	{ "CRYPTO_AES_NI_INTEL", 'y', KNEED_SCENARIO, "the AES-NI code Debian's kernels pick on x86", NULL },
	{ "CRYPTO_HMAC", 'y', KNEED_SCENARIO, "hmac()", NULL },
	{ "CRYPTO_SHA1", 'y', KNEED_SCENARIO, "sha1", NULL },
	{ "CRYPTO_SHA256", 'y', KNEED_SCENARIO, "sha256", NULL },
	{ "CRYPTO_CHACHA20POLY1305", 'y', KNEED_SCENARIO, "rfc7539esp(chacha20,poly1305), the cipher of esp-chacha20", NULL },
	{ "WIREGUARD", 'y', KNEED_SCENARIO, "WireGuard, the wireguard scenario", NULL },
	{ "MACSEC", 'y', KNEED_SCENARIO, "MACsec, the macsec scenario", NULL },
	/* the probes */
	{ "BPF", 'y', KNEED_PROBES, "BPF", NULL },
	{ "BPF_SYSCALL", 'y', KNEED_PROBES, "loading the BPF programs", NULL },
	{ "BPF_JIT", 'y', KNEED_PROBES, "running them at native speed", NULL },
	{ "KPROBES", 'y', KNEED_PROBES, "the kprobe counters", NULL },
	{ "KPROBE_EVENTS", 'y', KNEED_PROBES, "kprobes through perf", NULL },
	{ "BPF_EVENTS", 'y', KNEED_PROBES, "BPF on kprobes and tracepoints", NULL },
	{ "FTRACE", 'y', KNEED_PROBES, "tracefs", NULL },
	{ "TRACEPOINTS", 'y', KNEED_PROBES, "the kmem and net tracepoints", NULL },
	{ "PERF_EVENTS", 'y', KNEED_PROBES, "perf events, and --profile", NULL },
	{ "DEBUG_INFO", 'y', KNEED_PROBES, "DWARF: the call sites of inlined functions",
	  "DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT" },
	{ "DEBUG_INFO_BTF", 'y', KNEED_PROBES, "BTF, for CO-RE and the BTF tracepoints", NULL },
	{ "PROC_KCORE", 'y', KNEED_PROBES, "/proc/kcore, to find memmove's call sites", NULL },
	{ "KALLSYMS", 'y', KNEED_PROBES, "/proc/kallsyms", NULL },
	{ "KALLSYMS_ALL", 'y', KNEED_PROBES, "the symbols of static functions", NULL },
	{ "DEBUG_FS", 'y', KNEED_PROBES, "debugfs", NULL },
	{ NULL, 0, 0, NULL, NULL },
};

/*
 * What `kernel config` starts from besides kneeds[]: allnoconfig sets every
 * option it can see to n, so the options the needs depend on, and the
 * guest's own machine (qemu's pc: a PCI bus, SMP, a paravirtual clock),
 * are named here. Nothing else: no GPU, USB, sound, wireless, storage
 * drivers or disk file systems; the guest runs from its initramfs.
 */
const struct kbase kbase[] = {
	{ "64BIT", "x86_64" },
	{ "SMP", "the vm testbed's guest has one vCPU per host CPU" },
	{ "HYPERVISOR_GUEST", "PVH and the paravirtual clock depend on it" },
	{ "PARAVIRT", "KVM_GUEST depends on it" },
	{ "KVM_GUEST", "kvmclock and paravirtual spinlocks under KVM" },
	{ "PCI", "virtio-net sits on qemu's PCI bus (vm-pair)" },
	{ "PCI_MSI", "virtio-net's interrupts: without ACPI, INTx is not routed and the link crawls" },
	{ "VIRTIO_MENU", "VIRTIO_PCI is inside it" },
	{ "NETDEVICES", "VETH and VIRTIO_NET are inside it" },
	{ "NET_CORE", "VETH and VIRTIO_NET are inside it" },
	{ "UNIX", "sshd and ssh's shared connection (vm-pair)" },
	{ "ETHTOOL_NETLINK", "offloads switched over netlink, not by the ethtool program (0.6 s a call under TCG)" },
	{ "TTY", "the serial console" },
	{ "PRINTK", "the console's messages: a panic says why" },
	{ "DEBUG_KERNEL", "DEBUG_INFO and KALLSYMS_ALL depend on it" },
	{ NULL, NULL },
};

int kconfig_read(const char *path, struct kconfig *kc, char *why, size_t wlen)
{
	char *text, *save = NULL;
	size_t len = 0, cap = 0;

	memset(kc, 0, sizeof(*kc));
	if (!(text = file_read(path, &len))) {
		snprintf(why, wlen, "%s: cannot read it", path);
		return -1;
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq;

		if (strncmp(l, "CONFIG_", 7) || !(eq = strchr(l, '=')))
			continue; /* comments, "# CONFIG_X is not set" */
		if (kc->n == cap) {
			cap = cap ? 2 * cap : 1024;
			kc->names = realloc(kc->names, cap * sizeof(char *));
			kc->values = realloc(kc->values, cap * sizeof(char *));
			if (!kc->names || !kc->values)
				abort();
		}
		*eq = '\0';
		kc->names[kc->n] = strdup(l + 7);
		kc->values[kc->n] = strdup(eq + 1);
		kc->n++;
	}
	free(text);
	return 0;
}

void kconfig_free(struct kconfig *kc)
{
	for (size_t i = 0; i < kc->n; i++) {
		free(kc->names[i]);
		free(kc->values[i]);
	}
	free(kc->names);
	free(kc->values);
	memset(kc, 0, sizeof(*kc));
}

const char *kconfig_get(const struct kconfig *kc, const char *name)
{
	for (size_t i = 0; i < kc->n; i++)
		if (!strcmp(kc->names[i], name))
			return kc->values[i];
	return NULL;
}

/* Is tok one of the names in the algorithm string alg ("authenc(hmac(sha256),cbc(aes))")? */
static bool alg_has(const char *alg, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = alg; (p = strstr(p, tok)); p += n)
		if ((p == alg || strchr("(),", p[-1])) && (!p[n] || strchr("(),", p[n])))
			return true;
	return false;
}

static bool sc_uses_alg(const struct scenario *sc, const char *tok)
{
	const struct ipsec_config *ip = &sc->ipsec;

	if (ip->on && (alg_has(ip->enc, tok) || alg_has(ip->auth, tok) || alg_has(ip->aead, tok)))
		return true;
	return !strcmp(sc->tcp_auth.method, "ao") && alg_has(sc->tcp_auth.ao_alg[0] ? sc->tcp_auth.ao_alg
										    : "hmac(sha1)", tok);
}

/* A scenario option: which algorithm names or features need it. */
static const struct {
	const char *name;
	const char *algs[3];
} crypto_uses[] = {
	{ "CRYPTO_NULL", { "cipher_null", "digest_null", "ecb(cipher_null)" } },
	{ "CRYPTO_ECB", { "ecb" } },
	{ "CRYPTO_CBC", { "cbc" } },
	{ "CRYPTO_GCM", { "gcm", "rfc4106" } },
	{ "CRYPTO_SEQIV", { "rfc4106" } },
	{ "CRYPTO_AES", { "aes" } },
	{ "CRYPTO_AES_NI_INTEL", { "aes" } },
	{ "CRYPTO_HMAC", { "hmac" } },
	{ "CRYPTO_SHA1", { "sha1" } },
	{ "CRYPTO_SHA256", { "sha256" } },
};

bool kneed_needed_by(const struct kneed *n, const struct scenario *sc)
{
	const struct ipsec_config *ip = &sc->ipsec;
	bool esp = ip->on, split = esp && !ip->aead[0]; /* a cipher and a digest: authenc */

	if (n->who != KNEED_SCENARIO)
		return false;
	for (size_t i = 0; i < sizeof(crypto_uses) / sizeof(crypto_uses[0]); i++)
		if (!strcmp(n->name, crypto_uses[i].name)) {
			for (int j = 0; j < 3 && crypto_uses[i].algs[j]; j++)
				if (sc_uses_alg(sc, crypto_uses[i].algs[j]))
					return true;
			return false;
		}
	if (!strcmp(n->name, "XFRM_USER") || !strcmp(n->name, "XFRM_STATISTICS") ||
	    !strcmp(n->name, "INET_ESP"))
		return esp;
	if (!strcmp(n->name, "CRYPTO_AUTHENC") || !strcmp(n->name, "CRYPTO_ECHAINIV"))
		return split;
	if (!strcmp(n->name, "INET_ESP_OFFLOAD"))
		return esp; /* on: to load it; off: to unload it (it must not be built in) */
	if (!strcmp(n->name, "MODULE_UNLOAD"))
		return esp && !ip->esp_gso;
	if (!strcmp(n->name, "TCP_MD5SIG"))
		return !strcmp(sc->tcp_auth.method, "md5");
	if (!strcmp(n->name, "TCP_AO") || !strcmp(n->name, "IPV6"))
		return !strcmp(sc->tcp_auth.method, "ao");
	return false;
}

bool kneed_ok(const struct kconfig *kc, const struct kneed *n, const struct scenario *sc,
	      char *why, size_t wlen)
{
	const char *v = kconfig_get(kc, n->name);
	bool on = v && (!strcmp(v, "y") || !strcmp(v, "m"));

	if (n->want == 'm' && v && !strcmp(v, "y") && (!sc || !sc->ipsec.esp_gso)) {
		/* esp4_offload built in: GSO over ESP cannot be switched off */
		snprintf(why, wlen, "is built in (=y), so it cannot be unloaded; build it as a module (=m)");
		return false;
	}
	if (n->want == 'm' && sc && !sc->ipsec.esp_gso)
		return true; /* unloading needs it absent or a module */
	if (!on)
		snprintf(why, wlen, "not set");
	return on;
}

/* Does a Kconfig file in dir (recursively) hold "config NAME"? */
static bool kconfig_dir_has(const char *dir, const char *line, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char p[4096];

		if (e->d_name[0] == '.' || (depth == 0 && (!strcmp(e->d_name, "Documentation") ||
							   !strcmp(e->d_name, "tools"))))
			continue;
		if (fmt_buf(p, sizeof(p), "%s/%s", dir, e->d_name) < 0)
			continue;
		if (e->d_type == DT_DIR)
			found = kconfig_dir_has(p, line, depth + 1);
		else if (!strncmp(e->d_name, "Kconfig", 7)) {
			size_t len;
			char *text = file_read(p, &len);

			if (text) {
				for (const char *q = text; !found && (q = strstr(q, line)); q++)
					found = (q == text || q[-1] == '\n') &&
						(q[strlen(line)] == '\n' || q[strlen(line)] == ' ' ||
						 q[strlen(line)] == '\0');
				free(text);
			}
		}
	}
	closedir(d);
	return found;
}

bool kconfig_tree_has(const char *tree, const char *name)
{
	char line[128];

	snprintf(line, sizeof(line), "config %s", name);
	return kconfig_dir_has(tree, line, 0);
}
