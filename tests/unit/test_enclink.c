// SPDX-License-Identifier: GPL-2.0
/*
 * The encrypted links (collector/host/enclink.c, wg.c, macsec.c,
 * enclink_agent.c; the scenario's [wireguard] and [macsec]): the table of
 * kinds whole; WireGuard's and MACsec's generic netlink requests and the
 * rtnetlink link as built and parsed back, bad input refused; hex; the
 * counters read back from a peer as hostile data; the agent's refusals
 * before anything is made; the scenario sections. As root, the undo
 * handler in a namespace of its own: a device of another kind is left
 * alone, one of the record's kind deleted, a gone one counts as undone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/if_macsec.h>
#include <linux/rtnetlink.h>
#include <linux/wireguard.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "enclink.h"
#include "hex.h"
#include "journal.h"
#include "macsec.h"
#include "netns_call.h"
#include "nlsock.h"
#include "rtnl.h"
#include "rtnl_link.h"
#include "scenario.h"
#include "undo_kinds.h"
#include "wg.h"

static char buf[NLSOCK_BUF];

struct attrs {
	const struct nlattr *a[32];
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attrs *t = data;

	if (mnl_attr_get_type(a) < 32)
		t->a[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static void nested(const struct nlattr *n, struct attrs *t)
{
	memset(t, 0, sizeof(*t));
	assert_non_null(n);
	assert_int_equal(mnl_attr_parse_nested(n, attr_cb, t), MNL_CB_OK);
}

/* The first (and only) element of a nested array. */
static const struct nlattr *first(const struct nlattr *n)
{
	const struct nlattr *a;

	assert_non_null(n);
	mnl_attr_for_each_nested(a, n)
		return a;
	fail_msg("an empty nest");
	return NULL;
}

static void genl_top(struct attrs *t, uint16_t fam, uint8_t cmd)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	assert_int_equal(nlh->nlmsg_type, fam);
	assert_int_equal(g->cmd, cmd);
	memset(t, 0, sizeof(*t));
	assert_int_equal(mnl_attr_parse(nlh, sizeof(*g), attr_cb, t), MNL_CB_OK);
}

static void table_whole(void **state)
{
	char names[64];
	int n = 0;

	(void)state;
	for (const struct enclink_kind *const *k = enclink_kinds; *k; k++, n++) {
		const struct enclink_kind *e = *k;
		int c = 0;

		assert_non_null(e->name);
		assert_non_null(e->title);
		assert_non_null(e->link);
		assert_non_null(e->module);
		assert_true(!strncmp(e->config, "CONFIG_", 7));
		assert_true(ifname_ok(e->dev));
		assert_non_null(e->add);
		assert_non_null(e->peer);
		assert_non_null(e->counters);
		assert_non_null(e->print);
		assert_true(e->overhead >= 0 && e->overhead < 200);
		assert_ptr_equal(enclink_find(e->name), e);
		assert_non_null(e->ciphers[0]);
		for (int i = 0; e->ciphers[i]; i++) {
			assert_true(enclink_takes(e, e->ciphers[i]));
			assert_true(e->key_len(e->ciphers[i]) > 0 && e->key_len(e->ciphers[i]) <= ENCLINK_KEY_MAX);
		}
		assert_false(enclink_takes(e, "aes-cbc"));
		while (e->counter_names[c])
			c++;
		/* the shared four first (enclink_run.c reads tx_packets and rx_bytes by place) */
		assert_true(c >= 4 && c <= ENCLINK_COUNTERS);
		assert_string_equal(e->counter_names[0], "tx_packets");
		assert_string_equal(e->counter_names[3], "rx_bytes");
	}
	assert_int_equal(n, 2);
	assert_null(enclink_find("ipsec"));
	assert_null(enclink_find(NULL));
	assert_string_equal(enclink_names(names, sizeof(names)), "wireguard or macsec");
	assert_true(enclink_takes(enclink_find("wireguard"), "chacha20-poly1305"));
	assert_false(enclink_takes(enclink_find("wireguard"), "gcm-aes-128"));
	assert_int_equal(macsec_cipher("gcm-aes-256")->key_bytes, 32);
	assert_null(macsec_cipher("gcm-aes-xpn-128"));
}

static void wg_msgs(void **state)
{
	uint8_t key[WG_KEY_BYTES], v4[4];
	struct attrs t, peer, ip;
	const struct sockaddr_in *sin;

	(void)state;
	for (int i = 0; i < WG_KEY_BYTES; i++)
		key[i] = (uint8_t)i;
	assert_true(wg_set_key_build(buf, 42, "ipp-wg", key) > 0);
	genl_top(&t, 42, WG_CMD_SET_DEVICE);
	assert_string_equal(mnl_attr_get_str(t.a[WGDEVICE_A_IFNAME]), "ipp-wg");
	assert_int_equal(mnl_attr_get_payload_len(t.a[WGDEVICE_A_PRIVATE_KEY]), WG_KEY_BYTES);
	assert_memory_equal(mnl_attr_get_payload(t.a[WGDEVICE_A_PRIVATE_KEY]), key, WG_KEY_BYTES);
	assert_null(t.a[WGDEVICE_A_LISTEN_PORT]); /* the kernel's choice */

	assert_true(wg_set_peer_build(buf, 42, "ipp-wg", key, "198.18.0.2", 51820, "198.19.0.2") > 0);
	genl_top(&t, 42, WG_CMD_SET_DEVICE);
	assert_null(t.a[WGDEVICE_A_PRIVATE_KEY]);
	assert_int_equal(mnl_attr_get_u32(t.a[WGDEVICE_A_FLAGS]), WGDEVICE_F_REPLACE_PEERS);
	nested(first(t.a[WGDEVICE_A_PEERS]), &peer);
	assert_memory_equal(mnl_attr_get_payload(peer.a[WGPEER_A_PUBLIC_KEY]), key, WG_KEY_BYTES);
	assert_int_equal(mnl_attr_get_u32(peer.a[WGPEER_A_FLAGS]), WGPEER_F_REPLACE_ALLOWEDIPS);
	assert_int_equal(mnl_attr_get_payload_len(peer.a[WGPEER_A_ENDPOINT]), sizeof(*sin));
	sin = mnl_attr_get_payload(peer.a[WGPEER_A_ENDPOINT]);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 51820);
	nested(first(peer.a[WGPEER_A_ALLOWEDIPS]), &ip);
	assert_int_equal(mnl_attr_get_u16(ip.a[WGALLOWEDIP_A_FAMILY]), AF_INET);
	inet_pton(AF_INET, "198.19.0.2", v4);
	assert_memory_equal(mnl_attr_get_payload(ip.a[WGALLOWEDIP_A_IPADDR]), v4, 4);
	assert_int_equal(mnl_attr_get_u8(ip.a[WGALLOWEDIP_A_CIDR_MASK]), 32);

	/* IPv6: a sockaddr_in6 endpoint and a /128 */
	assert_true(wg_set_peer_build(buf, 42, "ipp-wg", key, "2001:db8::2", 1, "2001:2:0:1::2") > 0);
	genl_top(&t, 42, WG_CMD_SET_DEVICE);
	nested(first(t.a[WGDEVICE_A_PEERS]), &peer);
	assert_int_equal(mnl_attr_get_payload_len(peer.a[WGPEER_A_ENDPOINT]), sizeof(struct sockaddr_in6));
	nested(first(peer.a[WGPEER_A_ALLOWEDIPS]), &ip);
	assert_int_equal(mnl_attr_get_u8(ip.a[WGALLOWEDIP_A_CIDR_MASK]), 128);

	assert_true(wg_get_build(buf, 42, "ipp-wg") > 0);
	genl_top(&t, 42, WG_CMD_GET_DEVICE);
	assert_true(((const struct nlmsghdr *)buf)->nlmsg_flags & NLM_F_DUMP);

	/* refused: names, addresses, ports, no family */
	assert_int_equal(wg_set_key_build(buf, 42, "a/b", key), -1);
	assert_int_equal(wg_set_key_build(buf, 0, "ipp-wg", key), -1);
	assert_int_equal(wg_set_peer_build(buf, 42, "ipp-wg", key, "198.18.0", 51820, "198.19.0.2"), -1);
	assert_int_equal(wg_set_peer_build(buf, 42, "ipp-wg", key, "198.18.0.2", 0, "198.19.0.2"), -1);
	assert_int_equal(wg_set_peer_build(buf, 42, "ipp-wg", key, "198.18.0.2", 65536, "198.19.0.2"), -1);
	assert_int_equal(wg_set_peer_build(buf, 42, "ipp-wg", key, "198.18.0.2", 1, "x"), -1);
	assert_int_equal(wg_get_build(buf, 42, "0123456789abcdef"), -1);
}

static void macsec_msgs(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	uint8_t key[16] = { 1, 2, 3 }, sci[MACSEC_SCI_BYTES] = { 0x02, 0, 0, 0, 0, 1, 0, 1 };
	struct attrs t, li, data, sa, sc;

	(void)state;
	assert_true(macsec_link_build(buf, "ipp-macsec", 7, macsec_cipher("gcm-aes-128")) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL), NLM_F_CREATE | NLM_F_EXCL);
	memset(&t, 0, sizeof(t));
	mnl_attr_parse(nlh, sizeof(struct ifinfomsg), attr_cb, &t);
	assert_string_equal(mnl_attr_get_str(t.a[IFLA_IFNAME]), "ipp-macsec");
	assert_int_equal(mnl_attr_get_u32(t.a[IFLA_LINK]), 7);
	nested(t.a[IFLA_LINKINFO], &li);
	assert_string_equal(mnl_attr_get_str(li.a[IFLA_INFO_KIND]), "macsec");
	nested(li.a[IFLA_INFO_DATA], &data);
	assert_true(mnl_attr_get_u64(data.a[IFLA_MACSEC_CIPHER_SUITE]) == MACSEC_CIPHER_ID_GCM_AES_128);
	assert_int_equal(mnl_attr_get_u8(data.a[IFLA_MACSEC_ICV_LEN]), 16);
	assert_int_equal(mnl_attr_get_u8(data.a[IFLA_MACSEC_ENCRYPT]), 1);
	assert_int_equal(macsec_link_build(buf, "ipp-macsec", 0, macsec_cipher("gcm-aes-128")), -1);
	assert_int_equal(macsec_link_build(buf, "ipp-macsec", 7, NULL), -1);

	assert_true(macsec_txsa_build(buf, 40, 9, key, sizeof(key)) > 0);
	genl_top(&t, 40, MACSEC_CMD_ADD_TXSA);
	assert_int_equal(mnl_attr_get_u32(t.a[MACSEC_ATTR_IFINDEX]), 9);
	nested(t.a[MACSEC_ATTR_SA_CONFIG], &sa);
	assert_int_equal(mnl_attr_get_u8(sa.a[MACSEC_SA_ATTR_AN]), 0);
	assert_int_equal(mnl_attr_get_u32(sa.a[MACSEC_SA_ATTR_PN]), 1);
	assert_int_equal(mnl_attr_get_u8(sa.a[MACSEC_SA_ATTR_ACTIVE]), 1);
	assert_int_equal(mnl_attr_get_payload_len(sa.a[MACSEC_SA_ATTR_KEYID]), MACSEC_KEYID_LEN);
	assert_memory_equal(mnl_attr_get_payload(sa.a[MACSEC_SA_ATTR_KEY]), key, sizeof(key));

	assert_true(macsec_rxsa_build(buf, 40, 9, sci, key, sizeof(key)) > 0);
	genl_top(&t, 40, MACSEC_CMD_ADD_RXSA);
	nested(t.a[MACSEC_ATTR_RXSC_CONFIG], &sc);
	assert_memory_equal(mnl_attr_get_payload(sc.a[MACSEC_RXSC_ATTR_SCI]), sci, MACSEC_SCI_BYTES);
	nested(t.a[MACSEC_ATTR_SA_CONFIG], &sa);
	assert_memory_equal(mnl_attr_get_payload(sa.a[MACSEC_SA_ATTR_KEY]), key, sizeof(key));

	assert_true(macsec_rxsc_build(buf, 40, 9, sci) > 0);
	genl_top(&t, 40, MACSEC_CMD_ADD_RXSC);
	nested(t.a[MACSEC_ATTR_RXSC_CONFIG], &sc);
	assert_int_equal(mnl_attr_get_u8(sc.a[MACSEC_RXSC_ATTR_ACTIVE]), 1);
	assert_null(t.a[MACSEC_ATTR_SA_CONFIG]);

	assert_int_equal(macsec_txsa_build(buf, 40, 9, key, MACSEC_KEY_MAX + 1), -1);
	assert_int_equal(macsec_txsa_build(buf, 40, 0, key, sizeof(key)), -1);
	assert_int_equal(macsec_rxsa_build(buf, 0, 9, sci, key, sizeof(key)), -1);
}

static void link_msgs(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	struct attrs t, li;

	(void)state;
	assert_true(rtnl_link_add_build(buf, "ipp-wg", "wireguard", 0, NULL, NULL) > 0);
	memset(&t, 0, sizeof(t));
	mnl_attr_parse(nlh, sizeof(struct ifinfomsg), attr_cb, &t);
	assert_null(t.a[IFLA_LINK]);
	nested(t.a[IFLA_LINKINFO], &li);
	assert_string_equal(mnl_attr_get_str(li.a[IFLA_INFO_KIND]), "wireguard");
	assert_null(li.a[IFLA_INFO_DATA]);
	assert_int_equal(rtnl_link_add_build(buf, "..", "wireguard", 0, NULL, NULL), -1);
	assert_int_equal(rtnl_link_add_build(buf, "ipp-wg", "", 0, NULL, NULL), -1);
}

static void hex(void **state)
{
	uint8_t in[3] = { 0x00, 0xab, 0xff }, out[4];
	char s[8];

	(void)state;
	hex_encode(in, 3, s, sizeof(s));
	assert_string_equal(s, "00abff");
	hex_encode(in, 3, s, 6); /* no room for the NUL: nothing */
	assert_string_equal(s, "");
	assert_int_equal(hex_decode("00ABff", out, sizeof(out)), 3);
	assert_memory_equal(out, in, 3);
	assert_int_equal(hex_decode("", out, sizeof(out)), 0);
	assert_int_equal(hex_decode("0", out, sizeof(out)), -1);
	assert_int_equal(hex_decode("0g", out, sizeof(out)), -1);
	assert_int_equal(hex_decode("\x10\x10", out, sizeof(out)), -1);
	assert_int_equal(hex_decode("0011223344", out, sizeof(out)), -1);
}

static void counters_hostile(void **state)
{
	const struct enclink_kind *k = enclink_find("wireguard");
	struct enclink_counters c = { { 1, 2, 3, 4, 5, 6 } }, back;
	json_t *o = enclink_counters_json(k, &c);

	(void)state;
	assert_int_equal(enclink_counters_from(k, o, &back), 0);
	assert_memory_equal(&back, &c, sizeof(c));
	json_object_set_new(o, "rx_bytes", json_integer(-1));
	assert_int_equal(enclink_counters_from(k, o, &back), -1);
	json_object_set_new(o, "rx_bytes", json_string("4"));
	assert_int_equal(enclink_counters_from(k, o, &back), -1);
	json_object_del(o, "rx_bytes");
	assert_int_equal(enclink_counters_from(k, o, &back), -1);
	assert_int_equal(enclink_counters_from(k, NULL, &back), -1);
	json_decref(o);
}

/* The agent's answer to req (text), which must refuse it with an error holding what. */
static void agent_refuses(const char *req, const char *what)
{
	json_t *r = json_loads(req, 0, NULL), *a;

	assert_non_null(r);
	assert_true(enclink_agent_op(json_string_value(json_object_get(r, "op"))));
	a = enclink_agent_answer(r);
	assert_false(json_is_true(json_object_get(a, "ok")));
	if (!strstr(json_string_value(json_object_get(a, "error")) ?: "", what))
		fail_msg("answer '%s' lacks '%s'", json_dumps(a, JSON_COMPACT), what);
	json_decref(a);
	json_decref(r);
}

static void agent_refusals(void **state)
{
	(void)state;
	assert_false(enclink_agent_op("sa-add"));
	assert_false(enclink_agent_op(NULL));
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"ipsec\"}", "no encrypted link of kind");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"wireguard\",\"dev\":\"../x\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\"}", "not a device name");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"gcm-aes-128\"}", "takes no cipher");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"macsec\",\"dev\":\"ipp-macsec\",\"lower\":\"eth0\","
		      "\"cipher\":\"gcm-aes-128\",\"mtu\":70000}", "MTU");
	/* a key of the wrong length or not hex: refused before anything is made */
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"macsec\",\"dev\":\"ipp-macsec\",\"lower\":\"eth0\","
		      "\"cipher\":\"gcm-aes-256\",\"key\":\"00112233445566778899aabbccddeeff\"}", "the key");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"key\":\"zz\"}", "the key");
	agent_refuses("{\"op\":\"enclink-peer\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"id\":\"xyz\"}", "not hex");
	/* numbers as a key pinned to the agent may send them: checked before they are narrowed to an int */
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"macsec\",\"dev\":\"ipp-macsec\",\"lower\":\"eth0\","
		      "\"cipher\":\"gcm-aes-128\",\"mtu\":4294968696}", "MTU");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"plen\":-1}", "prefix length");
	agent_refuses("{\"op\":\"enclink-add\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"mtu\":\"1400\"}", "MTU");
	agent_refuses("{\"op\":\"enclink-peer\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"id\":\"00\",\"port\":70000}", "port");
	agent_refuses("{\"op\":\"enclink-peer\",\"kind\":\"wireguard\",\"dev\":\"ipp-wg\",\"lower\":\"eth0\","
		      "\"cipher\":\"chacha20-poly1305\",\"id\":\"00\",\"port\":-1}", "port");
}

static void scenario_sections(void **state)
{
	static const char *const bad[][2] = {
		{ "[scenario]\ndescription = x\n[wireguard]\ncipher = gcm-aes-128\n", "chacha20-poly1305, not 'gcm-aes-128'" },
		{ "[scenario]\ndescription = x\n[wireguard]\nkey = 1\n", "unknown key 'key' in [wireguard]" },
		{ "[scenario]\ndescription = x\n[wireguard]\ncipher = chacha20-poly1305\ncipher = chacha20-poly1305\n",
		  "cipher set twice" },
		{ "[scenario]\ndescription = x\n[wireguard]\ncipher = chacha20-poly1305\n[macsec]\ncipher = gcm-aes-128\n",
		  "one encrypted link a scenario" },
		{ "[scenario]\ndescription = x\n[macsec]\ncipher = gcm-aes-512\n", "gcm-aes-128 or gcm-aes-256" },
		{ "[scenario]\ndescription = x\n[macsec]\ncipher = gcm-aes-128\n[ipsec]\naead = rfc4106(gcm(aes))\n",
		  "one encryption a scenario" },
	};
	char path[] = "/tmp/ipsecperf-unit-enclink-XXXXXX.ini", err[512];
	struct scenario sc;
	int fd;

	(void)state;
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *text = i < sizeof(bad) / sizeof(bad[0]) ? bad[i][0]
			: "[scenario]\ndescription = x\n[macsec]\ncipher = gcm-aes-256\n";

		strcpy(path, "/tmp/ipsecperf-unit-enclink-XXXXXX.ini");
		fd = mkstemps(path, 4);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
		if (i < sizeof(bad) / sizeof(bad[0])) {
			assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), -1);
			if (!strstr(err, bad[i][1]))
				fail_msg("error '%s' lacks '%s'", err, bad[i][1]);
		} else {
			assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), 0);
			assert_string_equal(sc.enclink.kind, "macsec");
			assert_string_equal(sc.enclink.cipher, "gcm-aes-256");
			assert_false(sc.ipsec.on);
			scenario_free(&sc);
		}
		unlink(path);
	}
}

/* As root: the undo record in a namespace of its own, with veth devices standing in. */
static void undo_roundtrip(void **state)
{
	char ns[64], err[256], kind[32];
	json_t *r;

	(void)state;
	if (geteuid() != 0) {
		print_message("needs root\n");
		skip();
	}
	snprintf(ns, sizeof(ns), "ipsecperf-unit-%d-el", (int)getpid());
	assert_int_equal(rtnl_netns_add(ns, err, sizeof(err)), 0);
	assert_int_equal(rtnl_veth_add("ipp-wg", ns, "ipp-v1", ns, err, sizeof(err)), 0);
	assert_int_equal(rtnl_link_kind(ns, "ipp-wg", kind, sizeof(kind)), 1);
	assert_string_equal(kind, "veth");
	assert_int_equal(rtnl_link_kind(ns, "ipp-none", kind, sizeof(kind)), 0);

	/* a WireGuard record naming a veth: left alone, said so */
	r = enclink_undo_record(enclink_find("wireguard"), ns, "ipp-wg");
	assert_int_equal(journal_undo_one(r), JOURNAL_LEFT);
	assert_int_equal(rtnl_link_kind(ns, "ipp-wg", kind, sizeof(kind)), 1);
	json_decref(r);
	/* hostile records: a path for a name, no kind, an unknown one */
	r = json_pack("{s:s, s:s, s:s, s:s}", "kind", "enclink", "link", "wireguard", "dev", "ipp-wg", "netns", "../x");
	assert_int_equal(journal_undo_one(r), JOURNAL_LEFT);
	json_decref(r);
	r = json_pack("{s:s, s:s, s:s}", "kind", "enclink", "link", "veth", "dev", "ipp-wg");
	assert_int_equal(journal_undo_one(r), JOURNAL_LEFT);
	json_decref(r);
	/* the kind that is there is deleted (the veth pair with it); gone, it counts as undone */
	assert_int_equal(rtnl_link_del(ns, "ipp-wg", "veth", err, sizeof(err)), 0);
	assert_int_equal(rtnl_link_kind(ns, "ipp-wg", kind, sizeof(kind)), 0);
	r = enclink_undo_record(enclink_find("macsec"), ns, "ipp-macsec");
	assert_int_equal(journal_undo_one(r), 0);
	json_decref(r);
	r = rtnl_netns_record(ns);
	assert_int_equal(journal_undo_one(r), 0);
	json_decref(r);
}

int main(void)
{
	undo_kinds_register();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_whole),     cmocka_unit_test(wg_msgs),	   cmocka_unit_test(macsec_msgs),
		cmocka_unit_test(link_msgs),       cmocka_unit_test(hex),	   cmocka_unit_test(counters_hostile),
		cmocka_unit_test(agent_refusals),  cmocka_unit_test(scenario_sections), cmocka_unit_test(undo_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
