/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario files: scenarios/NAME.ini, read with inih. Format (docs/scenarios.md):
 *
 *   [scenario]
 *   description = one line for `ipsecperf list`
 *   load = iperf3            ; or "stream", the built-in sender
 *
 *   [offload]                ; ethtool -K features, set on both ends
 *   tso = off
 *   gso = on
 *
 *   [ipsec]                  ; SAs and policies in both namespaces, both directions
 *   proto = esp
 *   mode = transport         ; or tunnel
 *   encryption = ecb(cipher_null)
 *   encryption-key-bits = 0
 *   authentication = digest_null
 *   authentication-key-bits = 0
 *   authentication-icv-bits = 0
 *   ; or: aead = rfc4106(gcm(aes)), aead-key-bits = 128, aead-icv-bits = 128
 *   esp-gso = off            ; on: esp4_offload/esp6_offload loaded before the SAs
 *   sas = 2                  ; SA pairs, flow k (port --port + k) through pair k mod 2 (run --sas)
 *   pcpu = no                ; yes: per-CPU SAs (RFC 9611) where the kernel has them, else skipped (docs/scenarios.md)
 *
 *   [link]                   ; the link itself, on both ends
 *   mtu = 9000               ; set before the runs, put back after (journaled)
 *
 *   [wireguard]              ; or [macsec]: an encrypted link of the kernel's (enclink.h)
 *   cipher = chacha20-poly1305 ; required: it names the cipher ([macsec]: gcm-aes-128, -256)
 *
 *   [tcp-auth]               ; needs load = stream
 *   method = md5             ; or ao
 *   ao-algorithm = hmac(sha1)
 *
 *   [load]                   ; the load's own settings, checked by its entry (loads.h)
 *   request = 1              ; e.g. tcp-rr's request and response sizes
 *
 * An unknown section or key is an error naming file:line.
 */
#ifndef IPSECPERF_SCENARIO_H
#define IPSECPERF_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "offload.h"

#define SCENARIO_MAX_OFFLOADS OFFLOAD_MAX
#define SCENARIO_MAX_LOAD_KEYS 8
#define SCENARIO_MAX_SAS 16  /* [ipsec] sas, run --sas: SA pairs, each carrying its own flows */


struct ipsec_config {
	bool on;             /* an [ipsec] section was given */
	bool tunnel;
	char enc[64], auth[64], aead[64]; /* kernel crypto names */
	int enc_key_bits, auth_key_bits, auth_icv_bits;
	int aead_key_bits, aead_salt_bits, aead_icv_bits;
	bool esp_gso;        /* the ESP GSO module loaded (on) or unloaded (off) */
	int sas;             /* sas = N: SA pairs, flow k through pair k mod N (0: not given, one) */
	bool pcpu;           /* pcpu = yes: one outbound SA per CPU and the fallback (RFC 9611) */
};

/* An encrypted link beside IPsec: the section [KIND] of an enclink kind (enclink.h). */
struct enclink_config {
	char kind[16];       /* "" none; else the kind's name, its section */
	char cipher[32];     /* one the kind takes */
};

struct tcp_auth_config {
	char method[8];      /* "", "md5" or "ao" */
	char ao_alg[64];     /* TCP-AO MAC algorithm, default hmac(sha1) */
};

struct scenario {
	char name[64];       /* file name without .ini */
	char path[PATH_MAX];
	char description[160];
	char load[16];       /* "iperf3" (default) or "stream" */
	struct offload_setting offloads[SCENARIO_MAX_OFFLOADS];
	int noffloads;
	struct ipsec_config ipsec;
	struct tcp_auth_config tcp_auth;
	struct enclink_config enclink;
	int mtu;             /* [link] mtu, both ends; 0: as the link is */
	/* [load]: the load's settings as written; its entry checks them (loads.h, check_keys) */
	struct {
		char key[32], value[64];
	} load_keys[SCENARIO_MAX_LOAD_KEYS];
	int nload_keys;
	char *text;          /* the file as read, for meta.json */
};

/*
 * Parse one scenario file. On error returns -1 and writes one line
 * "FILE:LINE: why" into err.
 */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
void scenario_free(struct scenario *sc);

/* Where scenario files are looked up ($IPSECPERF_SCENARIOS, or installed). */
const char *scenario_dir(void);

/* --scenario-dir DIR of run and list: use DIR from now on, as IPSECPERF_SCENARIOS=DIR; -1 (one line said) when it is not a folder. */
int scenario_dir_option(const char *cmd, const char *dir);

/*
 * Resolve a name (or a path with '/' or ending in .ini) to a file and load it.
 * Unknown names get an error listing what exists.
 */
int scenario_find(const char *name, struct scenario *sc, char *err, size_t errlen);

/* All scenario files in scenario_dir(), sorted by name; caller frees. */
int scenario_load_all(struct scenario **out, int *n, char *err, size_t errlen);

/*
 * The algorithm ESP asks the crypto API for with these SAs, as
 * /proc/crypto names it: the AEAD ("rfc4106(gcm(aes))") or
 * "authenc(AUTH,ENC)"; "" without IPsec.
 */
void scenario_esp_alg(const struct scenario *sc, char *buf, size_t len);

/* Parse "on"/"off" (also yes/no, true/false, 1/0); -1 if neither. */
int parse_bool(const char *s);

/* The scenario's offloads, as offload.c takes them. */
static inline struct offload_list scenario_offloads(const struct scenario *sc)
{
	return (struct offload_list){ sc->offloads, sc->noffloads };
}

#endif
