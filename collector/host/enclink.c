// SPDX-License-Identifier: GPL-2.0
/* The encrypted links' kinds: WireGuard and MACsec (enclink.h). */
#include "enclink.h"

#include <errno.h>
#include <linux/if_link.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macsec.h"
#include "netns_call.h"
#include "nlsock.h"
#include "rtnl.h"
#include "rtnl_link.h"
#include "wg.h"

/* ---- what every kind shares: the device's own counters, its address, up ---- */

/* The device's packets and bytes as its stack counted them (inner, in clear): counters 0-3. */
static int dev_stats(const struct enclink_dev *d, struct enclink_counters *c, char *why, size_t len)
{
	struct rtnl_link_stats64 st;
	unsigned int ifindex, inum;
	struct mnl_socket *nl;
	int rc;

	if (netns_ifindex(d->netns, d->dev, &ifindex, &inum) < 0) {
		msg_err(why, len, "cannot find %s: %s", d->dev, strerror(errno));
		return -ENODEV;
	}
	nl = nlsock_open(d->netns, NETLINK_ROUTE);
	if (!nl) {
		msg_err(why, len, "netlink: %s", strerror(errno));
		return -EIO;
	}
	rc = rtnl_link_stats(nl, ifindex, &st, NULL, 0);
	mnl_socket_close(nl);
	if (rc < 0) {
		msg_err(why, len, "cannot read %s's counters: %s", d->dev, strerror(-rc));
		return rc;
	}
	c->v[0] = st.tx_packets;
	c->v[1] = st.tx_bytes;
	c->v[2] = st.rx_packets;
	c->v[3] = st.rx_bytes;
	return 0;
}

/* The device made: its address, its MTU (0: the kernel's), up. */
static int address_up(const struct enclink_dev *d, char *why, size_t len)
{
	int rc = rtnl_addr_add(d->netns, d->dev, d->addr, d->plen, why, len);

	if (rc == 0)
		rc = rtnl_link_master_up(d->netns, d->dev, NULL, d->mtu, why, len);
	return rc;
}

/* ---- WireGuard: ChaCha20-Poly1305, keys by Curve25519 (the kernel's noise handshake) ---- */

static size_t wg_key_len(const char *cipher)
{
	(void)cipher;
	return WG_KEY_BYTES; /* the device's private key: the session keys come from the handshake */
}

static int wg_add(const struct enclink_dev *d, const uint8_t *key, size_t klen, struct enclink_pub *pub,
		  char *why, size_t len)
{
	struct wg_state st;
	int rc;

	if (klen != WG_KEY_BYTES) {
		msg_err(why, len, "a WireGuard key is %d bytes", WG_KEY_BYTES);
		return -EINVAL;
	}
	rc = rtnl_link_add(d->netns, d->dev, "wireguard", NULL, NULL, NULL, why, len);
	if (rc == 0)
		rc = wg_set_key(d->netns, d->dev, key, why, len);
	if (rc == 0)
		rc = address_up(d, why, len);
	/* up, it listens: on a port the kernel chose, which the other end needs */
	if (rc == 0)
		rc = wg_get(d->netns, d->dev, &st, why, len);
	if (rc == 0 && !st.port) {
		msg_err(why, len, "%s listens on no port", d->dev);
		rc = -EIO;
	}
	if (rc == 0) {
		memcpy(pub->id, st.pub, WG_KEY_BYTES);
		pub->id_len = WG_KEY_BYTES;
		pub->port = st.port;
	}
	return rc;
}

static int wg_peer(const struct enclink_dev *d, const struct enclink_other *o, char *why, size_t len)
{
	if (o->pub->id_len != WG_KEY_BYTES) {
		msg_err(why, len, "the other end's public key is not %d bytes", WG_KEY_BYTES);
		return -EINVAL;
	}
	return wg_set_peer(d->netns, d->dev, o->pub->id, o->link_addr, o->pub->port, o->addr, why, len);
}

static int wg_counters(const struct enclink_dev *d, struct enclink_counters *c, char *why, size_t len)
{
	struct wg_state st = { .port = 0 };
	int rc = dev_stats(d, c, why, len);

	if (rc == 0)
		rc = wg_get(d->netns, d->dev, &st, why, len);
	c->v[4] = st.tx_bytes;
	c->v[5] = st.rx_bytes;
	return rc;
}

/* "ip netns exec NS " where d is in a namespace of this host. */
static const char *in_ns(const struct enclink_dev *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", d->netns ? "ip netns exec " : "", d->netns ? d->netns : "", d->netns ? " " : "");
	return buf;
}

static void wg_print(FILE *f, const struct enclink_dev *d, const struct enclink_dev *o, int i, int step)
{
	char ns[96], ons[96];

	in_ns(d, ns, sizeof(ns));
	in_ns(o, ons, sizeof(ons));
	if (!step) {
		fprintf(f, "%sip link add %s type wireguard\n", ns, d->dev);
		fprintf(f, "%swg set %s private-key <(printf '%%s\\n' \"$KEY_%s\")    # KEY_%s=$(wg genkey)\n", ns,
			d->dev, i ? "RX" : "TX", i ? "RX" : "TX");
		fprintf(f, "%sip addr add %s/%d dev %s\n", ns, d->addr, d->plen, d->dev);
		fprintf(f, "%sip link set %s mtu %d up\n", ns, d->dev, d->mtu);
		return;
	}
	fprintf(f, "%swg set %s peer \"$(%swg show %s public-key)\" endpoint %s%s%s:$(%swg show %s listen-port) allowed-ips %s\n",
		ns, d->dev, ons, o->dev, strchr(o->link_addr, ':') ? "[" : "", o->link_addr,
		strchr(o->link_addr, ':') ? "]" : "", ons, o->dev, o->addr);
}

static const char *const wg_names[] = { "tx_packets", "tx_bytes", "rx_packets", "rx_bytes",
					"peer_tx_bytes", "peer_rx_bytes", NULL };

static const struct enclink_kind enclink_wireguard = {
	.name = "wireguard",
	.title = "WireGuard",
	.link = "wireguard",
	.module = "wireguard",
	.config = "CONFIG_WIREGUARD",
	.dev = "ipp-wg",
	.ciphers = (const char *const[]){ "chacha20-poly1305", NULL },
	.overhead = 80, /* outer IPv6 40, UDP 8, WireGuard's header 16 and tag 16: what wg-quick takes off */
	.key_len = wg_key_len,
	.add = wg_add,
	.peer = wg_peer,
	.counters = wg_counters,
	.counter_names = wg_names,
	.print = wg_print,
};

/* ---- MACsec: GCM-AES on the Ethernet link itself, static SAs ---- */

static size_t macsec_key_len(const char *cipher)
{
	const struct macsec_cipher *c = macsec_cipher(cipher);

	return c ? c->key_bytes : 0;
}

static int macsec_add_end(const struct enclink_dev *d, const uint8_t *key, size_t klen, struct enclink_pub *pub,
			  char *why, size_t len)
{
	const struct macsec_cipher *c = macsec_cipher(d->cipher);
	struct macsec_state st;
	int rc;

	if (!c || klen != c->key_bytes) {
		msg_err(why, len, "no MACsec cipher suite '%s' with a %zu-byte key", d->cipher, klen);
		return -EINVAL;
	}
	rc = macsec_add(d->netns, d->dev, d->lower, c, why, len);
	if (rc == 0)
		rc = macsec_set_tx(d->netns, d->dev, key, klen, why, len);
	if (rc == 0)
		rc = address_up(d, why, len);
	if (rc == 0)
		rc = macsec_get(d->netns, d->dev, &st, why, len);
	if (rc == 0) {
		memcpy(pub->id, st.sci, MACSEC_SCI_BYTES);
		pub->id_len = MACSEC_SCI_BYTES;
		pub->port = 0;
	}
	return rc;
}

static int macsec_peer(const struct enclink_dev *d, const struct enclink_other *o, char *why, size_t len)
{
	if (o->pub->id_len != MACSEC_SCI_BYTES) {
		msg_err(why, len, "the other end's SCI is not %d bytes", MACSEC_SCI_BYTES);
		return -EINVAL;
	}
	return macsec_set_rx(d->netns, d->dev, o->pub->id, o->key, o->klen, why, len);
}

static int macsec_counters(const struct enclink_dev *d, struct enclink_counters *c, char *why, size_t len)
{
	struct macsec_state st = { .rxscs = 0 };
	int rc = dev_stats(d, c, why, len);

	if (rc == 0)
		rc = macsec_get(d->netns, d->dev, &st, why, len);
	c->v[4] = st.out_pkts_encrypted;
	c->v[5] = st.out_octets_encrypted;
	c->v[6] = st.in_pkts_ok;
	c->v[7] = st.in_octets_decrypted;
	c->v[8] = st.in_pkts_delayed;
	c->v[9] = st.in_pkts_bad;
	return rc;
}

static void macsec_print(FILE *f, const struct enclink_dev *d, const struct enclink_dev *o, int i, int step)
{
	char ns[96], ons[96], mac[160];

	in_ns(d, ns, sizeof(ns));
	in_ns(o, ons, sizeof(ons));
	if (!step) {
		fprintf(f, "%sip link add link %s %s type macsec cipher %s icvlen 16 encrypt on\n", ns, d->lower, d->dev,
			d->cipher);
		fprintf(f, "%sip macsec add %s tx sa 0 pn 1 on key 01 \"$KEY_%s\"    # KEY_%s: %zu bytes in hex\n", ns,
			d->dev, i ? "RX" : "TX", i ? "RX" : "TX", macsec_key_len(d->cipher));
		fprintf(f, "%sip addr add %s/%d dev %s\n", ns, d->addr, d->plen, d->dev);
		fprintf(f, "%sip link set %s up\n", ns, d->dev);
		return;
	}
	/* the other end's SCI: its link device's MAC address, port 1 */
	snprintf(mac, sizeof(mac), "$(%scat /sys/class/net/%s/address)", ons, o->lower);
	fprintf(f, "%sip macsec add %s rx port 1 address %s on\n", ns, d->dev, mac);
	fprintf(f, "%sip macsec add %s rx port 1 address %s sa 0 pn 1 on key 01 \"$KEY_%s\"\n", ns, d->dev, mac,
		i ? "TX" : "RX");
}

static const char *const macsec_names[] = { "tx_packets", "tx_bytes", "rx_packets", "rx_bytes",
					    "out_pkts_encrypted", "out_octets_encrypted", "in_pkts_ok",
					    "in_octets_decrypted", "in_pkts_delayed", "in_pkts_bad", NULL };

static const struct enclink_kind enclink_macsec = {
	.name = "macsec",
	.title = "MACsec",
	.link = "macsec",
	.module = "macsec",
	.config = "CONFIG_MACSEC",
	.dev = "ipp-macsec",
	.ciphers = (const char *const[]){ "gcm-aes-128", "gcm-aes-256", NULL },
	.overhead = 0, /* the kernel takes the SecTAG and ICV off the link's MTU itself */
	.key_len = macsec_key_len,
	.shares_keys = true,
	.add = macsec_add_end,
	.peer = macsec_peer,
	.counters = macsec_counters,
	.counter_names = macsec_names,
	.print = macsec_print,
};

/* ---- the table ---- */

const struct enclink_kind *const enclink_kinds[] = { &enclink_wireguard, &enclink_macsec, NULL };

json_t *enclink_counters_json(const struct enclink_kind *k, const struct enclink_counters *c)
{
	json_t *o = json_object();

	for (int i = 0; o && k->counter_names[i] && i < ENCLINK_COUNTERS; i++)
		json_object_set_new(o, k->counter_names[i], json_integer((json_int_t)c->v[i]));
	return o;
}

int enclink_counters_from(const struct enclink_kind *k, json_t *o, struct enclink_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; k->counter_names[i] && i < ENCLINK_COUNTERS; i++) {
		json_t *v = json_object_get(o, k->counter_names[i]);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -1;
		c->v[i] = (uint64_t)json_integer_value(v);
	}
	return 0;
}
