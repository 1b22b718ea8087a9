/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set-up a measurement ran on, as found: what a netdev mail states
 * beside its figures (meta.json's kernels[].setup, docs/results-format.md).
 * The CPU (model, sockets, cores, SMT, NUMA), its frequency policy, boost
 * and idle driver, the mitigations, the kernel's command line and the
 * CONFIG_ options that decide what IPsec costs, TCP congestion control,
 * irqbalance, how busy the host was, and each NIC named: driver, firmware,
 * speed, MTU, rings, coalescing, channels, offloads and IRQ affinity.
 * Read from /proc and /sys (and ethtool's ioctls); nothing is changed.
 *
 * A façade of setup.c (the host), setup_nic.c (a NIC) and setup_crypto.c
 * (/proc/crypto: the driver bound to an SA's algorithm).
 */
#ifndef IPSECPERF_SETUP_H
#define IPSECPERF_SETUP_H

#include <jansson.h>

/* The CONFIG_ options recorded, in the order they are shown. */
extern const char *const setup_config_names[];

/*
 * This host's set-up, with the NICs devs[0..ndevs) (in this host's own
 * namespace). Never NULL but out of memory.
 */
json_t *setup_collect(const char *const *devs, int ndevs);

/* A kernel's config as text, from /proc/config.gz or /boot/config-RELEASE; NULL if neither. */
char *setup_config_text(const char *release);

/*
 * The "config" object of a kernel config's text: each of
 * setup_config_names as "y", "m", a value, or "n" when not set.
 */
json_t *setup_config_options(const char *text);

/* One NIC: {"dev", "driver", "firmware", "speed_mbps", "mtu", "rings", ...}. */
json_t *setup_nic(const char *dev);

/*
 * The /proc/crypto entries of text that serve alg (an SA's algorithm, as
 * ESP asks for it: "rfc4106(gcm(aes))", "authenc(digest_null,ecb(cipher_null))"):
 * the entries whose name holds alg, in use (refcnt above 1), the outermost
 * first, as [{"name", "driver", "module", "priority"}]; empty when none.
 */
json_t *setup_crypto_parse(const char *text, const char *alg);

/* The same from this host's /proc/crypto. */
json_t *setup_crypto(const char *alg);

/*
 * A copy of v, another host's set-up (the peer's agent answered it), that
 * is safe to keep: objects, arrays, strings, numbers, booleans and null,
 * at most 8 deep and 512 members each, every string and key made one
 * printable line (msg_clean) of at most 4 KiB. NULL for anything else.
 */
json_t *setup_sanitize(const json_t *v);

/*
 * The conditions of a set-up that make figures vary, as one warning line
 * each ("the CPU frequency governor is powersave ..."), with the command
 * that sets them right. cpu_a and cpu_b: two CPUs that measure side by
 * side (the netns sender and receiver), -1 when not known. where: "" for
 * this host, else " on HOST". Returns a JSON array of strings.
 */
json_t *setup_conditions(const json_t *setup, int cpu_a, int cpu_b, const char *where);

#endif
