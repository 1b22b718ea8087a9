/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPsec SAs and policies through the kernel's xfrm netlink interface
 * (NETLINK_XFRM, <linux/xfrm.h>) with libmnl. Every call takes the network
 * namespace to act in (a name under /run/netns, or NULL for our own): the
 * socket is opened inside it, and a socket keeps the namespace it was made in.
 *
 * Keys are passed in by the caller (getrandom()), copied only into the
 * netlink message, which is zeroed after it is sent. NETLINK_CAP_ACK keeps
 * the kernel from echoing the message (and its key) back in an error.
 *
 * A façade of xfrm.c (the requests, through a socket; the commands a
 * person would type) and xfrm_msg.c (the messages, built and parsed without
 * one: unit-tested, fuzzed through the peer agent).
 */
#ifndef IPSECPERF_XFRM_H
#define IPSECPERF_XFRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XFRM_ALG_NAME_MAX 64
#define XFRM_KEY_MAX 64 /* bytes, for one algorithm */
#define XFRM_MSG_BUF 8192 /* one message of ours (a few hundred bytes); dumps are not used */

struct xfrm_sa_spec {
	int family;              /* AF_INET or AF_INET6 */
	char src[64], dst[64];   /* the SA's outer addresses */
	uint32_t spi;            /* host order */
	int proto;               /* IPPROTO_ESP */
	bool tunnel;             /* mode tunnel, else transport */
	char enc[XFRM_ALG_NAME_MAX];
	int enc_key_bits;
	char auth[XFRM_ALG_NAME_MAX];
	int auth_key_bits, auth_icv_bits;
	char aead[XFRM_ALG_NAME_MAX];
	int aead_key_bits;       /* key and salt, as the kernel takes it */
	int aead_icv_bits;
	uint32_t reqid;          /* 0: none; several SA pairs (ipsec.h): the policies' templates name it */
	/* per-CPU SAs (xfrm_pcpu.h): 0, as always, or with its direction (XFRMA_SA_DIR) */
	int sa_dir;              /* 0: none; 1 in, 2 out (an out SA's replay window is then 0) */
	bool pcpu_set;           /* an out SA bound to CPU pcpu (XFRMA_SA_PCPU) */
	uint32_t pcpu;
};

/*
 * The largest priority and reqid the run gives (several SA pairs, ipsec.c),
 * and all the peer's agent takes in a request (peer_agent_host.c).
 */
#define XFRM_RUN_PRIO_MAX 200
#define XFRM_RUN_REQID_MAX 16

struct xfrm_pol_spec {
	int family;
	char src[64], dst[64];   /* selector: host addresses, full prefix */
	int dir;                 /* XFRM_POLICY_IN, _OUT or _FWD */
	int proto;               /* the template's: IPPROTO_ESP */
	bool tunnel;             /* template mode; tunnel endpoints = src, dst */
	/* several SA pairs (ipsec.h): a flow's ports pick its SA; all 0 otherwise */
	int l4proto;             /* selector: IPPROTO_TCP with a port, 0: any */
	uint16_t sport, dport;   /* selector: one port each (host order), 0: any */
	uint32_t priority;       /* lower wins: the ports' policies before the catch-all */
	uint32_t reqid;          /* the template's: the SA of that reqid, 0: any */
	uint8_t flags;           /* the policy's: XFRM_POLICY_CPU_ACQUIRE for per-CPU SAs, else 0 */
};

/* What the kernel counts for one SA. */
struct xfrm_sa_counters {
	uint64_t packets, bytes; /* curlft */
	uint64_t oseq, seq;      /* replay state: sent and highest received */
};

/*
 * Are the spec's bit counts (keys and ICVs) each a multiple of 8 from 0 to
 * XFRM_KEY_MAX * 8? The builder refuses others (a spec may come from the
 * peer agent's request).
 */
bool xfrm_sa_bits_ok(const struct xfrm_sa_spec *s);

/* Key bytes an SA needs (enc, then auth; or aead alone); 0 when its bits are not xfrm_sa_bits_ok. */
size_t xfrm_sa_key_len(const struct xfrm_sa_spec *s);

/*
 * Build an XFRM_MSG_NEWSA request into buf (len bytes, XFRM_MSG_BUF
 * is enough); key holds xfrm_sa_key_len(s) bytes. Returns the message length
 * or -1 (bad address, or bits not xfrm_sa_bits_ok). Exposed for the unit tests.
 */
int xfrm_sa_build(void *buf, size_t len, const struct xfrm_sa_spec *s, const uint8_t *key,
		  uint32_t seq);
/* What xfrm_policy_build asks: an add, a delete or a look-up (by selector and direction). */
enum xfrm_pol_op { XFRM_POL_ADD, XFRM_POL_DEL, XFRM_POL_GET };
int xfrm_policy_build(void *buf, size_t len, const struct xfrm_pol_spec *p, int op, uint32_t seq);

/* An XFRM_MSG_GETSA or XFRM_MSG_DELSA (type) of one SA into buf (XFRM_MSG_BUF bytes); its length or -1. */
int xfrm_sa_id_build(void *buf, int family, const char *dst, uint32_t spi, int proto, int type);

/* Parse an XFRM_MSG_NEWSA message (a GETSA reply) into c. 0 or -1. */
int xfrm_sa_parse(const void *msg, size_t len, struct xfrm_sa_counters *c);

/*
 * Add an SA. Returns 0 or -errno; err gets the kernel's extended ack
 * message when there is one ("Requested type not found").
 */
int xfrm_sa_add(const char *netns, const struct xfrm_sa_spec *s, const uint8_t *key,
		char *err, size_t errlen);
/* Delete an SA; a missing SA or namespace counts as deleted. 0 or -errno. */
int xfrm_sa_del(const char *netns, int family, const char *dst, uint32_t spi, int proto);
int xfrm_sa_get(const char *netns, int family, const char *dst, uint32_t spi, int proto,
		struct xfrm_sa_counters *c);

int xfrm_policy_add(const char *netns, const struct xfrm_pol_spec *p, char *err, size_t errlen);

/*
 * Is there a policy with p's selector and direction, or an SA with this
 * dst, SPI and protocol (whoever made it)? 1 yes, 0 no, or -errno. Adds
 * are exclusive (NLM_F_EXCL; the kernel's NEWPOLICY and NEWSA never
 * replace), so what is there already is never ours.
 */
int xfrm_policy_exists(const char *netns, const struct xfrm_pol_spec *p);
int xfrm_sa_exists(const char *netns, int family, const char *dst, uint32_t spi, int proto);
int xfrm_policy_del(const char *netns, const struct xfrm_pol_spec *p);

/*
 * The `ip xfrm` commands a person could type for the same change, with the
 * keys replaced by shell variables (never the key itself).
 */
void xfrm_sa_print(FILE *f, const char *netns, const struct xfrm_sa_spec *s);
void xfrm_policy_print(FILE *f, const char *netns, const struct xfrm_pol_spec *p);

#endif
