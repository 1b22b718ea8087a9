// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink host set-up (collector/host/rtnl.c, collector/host/ethtool_nl.c, collector/host/offload_nl.c):
 * the RTM_NEWLINK (veth, link up), RTM_NEWADDR and ETHTOOL_MSG_FEATURES_SET
 * messages as built and parsed back; names refused; which kernel features
 * ethtool's names stand for and when a scenario must be skipped. As root, a
 * round trip through the kernel: a named namespace pair with a veth, an
 * address and links up, offloads set and set back by the journal's undo
 * handlers, the namespaces deleted by theirs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ethtool_nl.h"
#include "journal.h"
#include "netns_call.h"
#include "nlsock.h"
#include "offload_nl.h"
#include "rtnl.h"
#include "undo_kinds.h"

static char buf[NLSOCK_BUF];

/* The attributes of one level, by type (the last of a type wins). */
struct attrs {
	const struct nlattr *a[64];
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attrs *t = data;

	if (mnl_attr_get_type(a) < 64)
		t->a[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static void nested(const struct nlattr *n, struct attrs *t)
{
	memset(t, 0, sizeof(*t));
	assert_non_null(n);
	assert_int_equal(mnl_attr_parse_nested(n, attr_cb, t), MNL_CB_OK);
}

static void veth_msg(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct nlattr *peer;
	struct attrs top = { 0 }, li, data, pa = { 0 };
	int len = rtnl_veth_build(buf, "ipp-tx", 5, "ipp-rx", 6);

	(void)state;
	assert_true(len > 0);
	assert_int_equal(nlh->nlmsg_len, len);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL);
	assert_int_equal(mnl_attr_parse(nlh, sizeof(struct ifinfomsg), attr_cb, &top), MNL_CB_OK);
	assert_string_equal(mnl_attr_get_str(top.a[IFLA_IFNAME]), "ipp-tx");
	assert_int_equal(mnl_attr_get_u32(top.a[IFLA_NET_NS_FD]), 5);
	nested(top.a[IFLA_LINKINFO], &li);
	assert_string_equal(mnl_attr_get_str(li.a[IFLA_INFO_KIND]), "veth");
	nested(li.a[IFLA_INFO_DATA], &data);
	peer = data.a[VETH_INFO_PEER];
	assert_non_null(peer);
	/* the peer: an ifinfomsg, then its own attributes */
	assert_true(mnl_attr_get_payload_len(peer) > sizeof(struct ifinfomsg));
	for (const struct nlattr *a = (const void *)((const char *)mnl_attr_get_payload(peer) +
						      MNL_ALIGN(sizeof(struct ifinfomsg)));
	     mnl_attr_ok(a, (int)((const char *)peer + peer->nla_len - (const char *)a)); a = mnl_attr_next(a))
		attr_cb(a, &pa);
	assert_string_equal(mnl_attr_get_str(pa.a[IFLA_IFNAME]), "ipp-rx");
	assert_int_equal(mnl_attr_get_u32(pa.a[IFLA_NET_NS_FD]), 6);

	/* names that are not plain, or too long for IFNAMSIZ */
	assert_int_equal(rtnl_veth_build(buf, "a/b", 5, "ipp-rx", 6), -1);
	assert_int_equal(rtnl_veth_build(buf, "ipp-tx", 5, "0123456789abcdef", 6), -1);
	assert_int_equal(rtnl_veth_build(buf, "ipp-tx", 5, "..", 6), -1);
}

static void addr_msgs(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct ifaddrmsg *ifa = (const void *)((const char *)buf + MNL_NLMSG_HDRLEN);
	struct attrs t = { 0 };
	uint8_t v4[4], v6[16];

	(void)state;
	assert_true(rtnl_addr_build(buf, 7, "198.18.0.1", 24) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWADDR);
	assert_int_equal(ifa->ifa_family, AF_INET);
	assert_int_equal(ifa->ifa_prefixlen, 24);
	assert_int_equal(ifa->ifa_index, 7);
	mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, &t);
	inet_pton(AF_INET, "198.18.0.1", v4);
	assert_int_equal(mnl_attr_get_payload_len(t.a[IFA_LOCAL]), 4);
	assert_memory_equal(mnl_attr_get_payload(t.a[IFA_LOCAL]), v4, 4);
	assert_memory_equal(mnl_attr_get_payload(t.a[IFA_ADDRESS]), v4, 4);

	assert_int_equal(ifa->ifa_flags, 0);
	memset(&t, 0, sizeof(t));
	assert_true(rtnl_addr_build(buf, 7, "2001:db8::1", 64) > 0);
	assert_int_equal(ifa->ifa_family, AF_INET6);
	/* no duplicate address detection: a tentative address takes no bind() */
	assert_int_equal(ifa->ifa_flags, IFA_F_NODAD);
	mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, &t);
	inet_pton(AF_INET6, "2001:db8::1", v6);
	assert_memory_equal(mnl_attr_get_payload(t.a[IFA_LOCAL]), v6, 16);

	assert_int_equal(rtnl_addr_build(buf, 7, "198.18.0.1", 33), -1);
	assert_int_equal(rtnl_addr_build(buf, 7, "198.18.0", 24), -1);
	assert_int_equal(rtnl_addr_build(buf, 0, "198.18.0.1", 24), -1);

	assert_true(rtnl_link_up_build(buf, 3) > 0);
	const struct ifinfomsg *ifi = (const void *)((const char *)buf + MNL_NLMSG_HDRLEN);

	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(ifi->ifi_index, 3);
	assert_int_equal(ifi->ifi_flags, IFF_UP);
	assert_int_equal(ifi->ifi_change, IFF_UP);
}

/* the statistics' request (kcount.c): RTM_GETLINK of one index, nothing else asked */
static void getlink_msg(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct ifinfomsg *ifi = (const void *)((const char *)buf + MNL_NLMSG_HDRLEN);

	(void)state;
	assert_int_equal(rtnl_getlink_build(buf, 5), (int)(MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*ifi))));
	assert_int_equal(nlh->nlmsg_type, RTM_GETLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(ifi->ifi_index, 5);
	assert_int_equal(ifi->ifi_family, AF_UNSPEC);
	assert_int_equal(rtnl_getlink_build(buf, 0), -1);
}

static void features_set_msg(void **state)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const char *names[] = { "tx-tcp-segmentation", "rx-gro" };
	bool on[] = { false, true };
	struct attrs top = { 0 }, hdr, w, bits;
	int seen = 0;

	(void)state;
	assert_true(ethnl_features_set_build(buf, 21, "ipp-tx", names, on, 2) > 0);
	assert_int_equal(nlh->nlmsg_type, 21);
	assert_int_equal(((const struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd, ETHTOOL_MSG_FEATURES_SET);
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_cb, &top);
	nested(top.a[ETHTOOL_A_FEATURES_HEADER], &hdr);
	assert_string_equal(mnl_attr_get_str(hdr.a[ETHTOOL_A_HEADER_DEV_NAME]), "ipp-tx");
	assert_int_equal(mnl_attr_get_u32(hdr.a[ETHTOOL_A_HEADER_FLAGS]), ETHTOOL_FLAG_OMIT_REPLY);
	nested(top.a[ETHTOOL_A_FEATURES_WANTED], &w);
	assert_null(w.a[ETHTOOL_A_BITSET_NOMASK]); /* a mask: the others are left as they are */
	const struct nlattr *bit;

	mnl_attr_for_each_nested(bit, w.a[ETHTOOL_A_BITSET_BITS]) {
		nested(bit, &bits);
		assert_string_equal(mnl_attr_get_str(bits.a[ETHTOOL_A_BITSET_BIT_NAME]), names[seen]);
		assert_int_equal(bits.a[ETHTOOL_A_BITSET_BIT_VALUE] != NULL, on[seen]);
		seen++;
	}
	assert_int_equal(seen, 2);
	assert_int_equal(ethnl_features_set_build(buf, 21, "ipp tx", names, on, 2), -1);
}

/* A device's features as the kernel could report them. */
static void fake(struct ethnl_features *f)
{
	static const char *const n[] = { "tx-tcp-segmentation", "tx-tcp-ecn-segmentation", "tx-tcp6-segmentation",
					 "tx-generic-segmentation", "rx-gro", "rx-gro-list", "rx-lro", "tx-esp-segmentation" };

	memset(f, 0, sizeof(*f));
	f->n = 8;
	for (int i = 0; i < 8; i++) {
		snprintf(f->name[i], sizeof(f->name[i]), "%s", n[i]);
		if (i != 6 && i != 7) /* rx-lro and tx-esp-segmentation: fixed */
			f->hw[0] |= 1u << i;
	}
	f->active[0] = f->wanted[0] = 0x0f | 1u << 7; /* tso, gso on; gro off; esp-segmentation on */
}

static void members_and_check(void **state)
{
	struct ethnl_features f;
	struct offload_setting set[1] = { 0 };
	const struct offload_list ol = { set, 1 };
	int idx[ETHNL_FEATURES_MAX];
	char why[256];

	(void)state;
	fake(&f);
	assert_int_equal(offload_nl_members(&f, "tso", idx), 3);
	assert_int_equal(offload_nl_members(&f, "tcp-segmentation-offload", idx), 3);
	assert_int_equal(offload_nl_members(&f, "gso", idx), 1);
	assert_int_equal(idx[0], 3);
	assert_int_equal(offload_nl_members(&f, "gro", idx), 1); /* rx-gro, not rx-gro-list */
	assert_int_equal(idx[0], 4);
	assert_int_equal(offload_nl_members(&f, "rx-gro-list", idx), 1);
	assert_int_equal(offload_nl_members(&f, "nosuch", idx), 0);

	strcpy(set[0].feature, "tso");
	set[0].on = false;
	assert_int_equal(offload_nl_check(&f, "ipp-tx", &ol, why, sizeof(why)), 0);
	strcpy(set[0].feature, "nosuch");
	assert_int_equal(offload_nl_check(&f, "ipp-tx", &ol, why, sizeof(why)), 1);
	assert_string_equal(why, "ipp-tx has no offload feature 'nosuch'");
	strcpy(set[0].feature, "lro");
	set[0].on = true;
	assert_int_equal(offload_nl_check(&f, "ipp-tx", &ol, why, sizeof(why)), 1);
	assert_string_equal(why, "ipp-tx cannot turn lro on: fixed by the driver");
	set[0].on = false; /* already off: nothing to change */
	assert_int_equal(offload_nl_check(&f, "ipp-tx", &ol, why, sizeof(why)), 0);
}

static void names(void **state)
{
	(void)state;
	assert_true(netns_ok("ipsecperf-123-tx"));
	assert_false(netns_ok(""));
	assert_false(netns_ok(NULL));
	assert_false(netns_ok("."));
	assert_false(netns_ok(".."));
	assert_false(netns_ok("a/b"));
	assert_false(netns_ok("a b"));
	assert_false(netns_ok("0123456789012345678901234567890123456789012345678901234567890123"));
	assert_true(ifname_ok("ipp-tx"));
	assert_true(ifname_ok("012345678901234"));
	assert_false(ifname_ok("0123456789012345"));
}

/* Read one feature's state (wanted) in the namespace. */
static int wanted(const char *ns, const char *dev, const char *name)
{
	static struct ethnl_features f;
	char err[256];

	if (ethnl_features_get(ns, dev, &f, err, sizeof(err)) < 0)
		return -1;
	for (int i = 0; i < f.n; i++)
		if (!strcmp(f.name[i], name))
			return ethnl_bit(f.wanted, i);
	return -1;
}

static void kernel_roundtrip(void **state)
{
	char a[40], b[40], err[256];
	const char *nm[] = { "tx-generic-segmentation" };
	bool off[] = { false };
	struct stat st;
	json_t *rec;

	(void)state;
	if (geteuid() != 0 || !ethnl_available()) {
		print_message("needs root and ethtool netlink\n");
		skip();
	}
	snprintf(a, sizeof(a), "ipsecperf-unit-%d-a", (int)getpid());
	snprintf(b, sizeof(b), "ipsecperf-unit-%d-b", (int)getpid());
	assert_int_equal(rtnl_netns_add(a, err, sizeof(err)), 0);
	assert_int_equal(rtnl_netns_add(b, err, sizeof(err)), 0);
	assert_int_equal(rtnl_netns_add(a, err, sizeof(err)), -EEXIST);
	assert_int_equal(rtnl_veth_add("ut0", a, "ut1", b, err, sizeof(err)), 0);
	assert_int_equal(rtnl_addr_add(a, "ut0", "198.18.0.1", 24, err, sizeof(err)), 0);
	assert_int_equal(rtnl_link_up(a, "ut0", err, sizeof(err)), 0);
	assert_int_equal(rtnl_link_up(a, "lo", err, sizeof(err)), 0);
	assert_int_equal(rtnl_link_up(b, "nosuch", err, sizeof(err)), -ENODEV);

	/* gso off, and the journal's record of it set back */
	assert_int_equal(wanted(a, "ut0", "tx-generic-segmentation"), 1);
	rec = ethnl_features_record(a, "ut0");
	json_object_set_new(json_object_get(rec, "wanted"), "tx-generic-segmentation", json_true());
	assert_int_equal(ethnl_features_set(a, "ut0", nm, off, 1, err, sizeof(err)), 0);
	assert_int_equal(wanted(a, "ut0", "tx-generic-segmentation"), 0);
	assert_int_equal(journal_undo_one(rec), 0);
	assert_int_equal(wanted(a, "ut0", "tx-generic-segmentation"), 1);
	json_decref(rec);

	/* the namespaces deleted by their records; gone is gone, twice */
	for (int i = 0; i < 2; i++) {
		rec = rtnl_netns_record(i ? b : a);
		assert_int_equal(journal_undo_one(rec), 0);
		assert_int_equal(journal_undo_one(rec), 0);
		json_decref(rec);
	}
	assert_int_equal(stat("/run/netns/ipsecperf-unit-x", &st), -1);
	snprintf(err, sizeof(err), "/run/netns/%s", a);
	assert_int_equal(stat(err, &st), -1);
	/* a record for a gone namespace's device counts as undone */
	rec = ethnl_features_record(a, "ut0");
	json_object_set_new(json_object_get(rec, "wanted"), "rx-gro", json_true());
	assert_int_equal(journal_undo_one(rec), 0);
	json_decref(rec);
}

int main(void)
{
	undo_kinds_register(); /* as main() does: the netns and ethtool-features kinds */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(veth_msg),
		cmocka_unit_test(getlink_msg),
		cmocka_unit_test(addr_msgs),
		cmocka_unit_test(features_set_msg),
		cmocka_unit_test(members_and_check),
		cmocka_unit_test(names),
		cmocka_unit_test(kernel_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
