// SPDX-License-Identifier: GPL-2.0
#include "ethtool_nl.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <string.h>

#include "genl.h"
#include "journal.h"
#include "log.h"
#include "netns_call.h"
#include "nlsock.h"

static int family = -1; /* -1 not asked yet, 0 not there */
static char names[ETHNL_FEATURES_MAX][ETHNL_NAME_LEN];
static int nnames = -1;

int ethnl_available(void)
{
	if (family >= 0)
		return family > 0;
	family = genl_family(NULL, ETHTOOL_GENL_NAME);
	if (family < 0)
		family = 0;
	if (!family)
		pr_debug("ethtool netlink: no family '%s'; the ethtool program sets offloads",
			 ETHTOOL_GENL_NAME);
	return family > 0;
}

/* One STRING {INDEX, VALUE} of the features' string set. */
static void put_string(const struct nlattr *s)
{
	const struct nlattr *a;
	int idx = -1;
	const char *v = NULL;

	mnl_attr_for_each_nested(a, s) {
		if (mnl_attr_get_type(a) == ETHTOOL_A_STRING_INDEX && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			idx = (int)mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == ETHTOOL_A_STRING_VALUE &&
			 mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			v = mnl_attr_get_str(a);
	}
	if (idx >= 0 && idx < ETHNL_FEATURES_MAX && v) {
		snprintf(names[idx], sizeof(names[idx]), "%s", v);
		if (idx >= nnames)
			nnames = idx + 1;
	}
}

static int strset_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *sets, *set, *a, *s;

	(void)data;
	mnl_attr_for_each(sets, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(sets) != ETHTOOL_A_STRSET_STRINGSETS)
			continue;
		mnl_attr_for_each_nested(set, sets)
			mnl_attr_for_each_nested(a, set)
				if (mnl_attr_get_type(a) == ETHTOOL_A_STRINGSET_STRINGS)
					mnl_attr_for_each_nested(s, a)
						put_string(s);
	}
	return MNL_CB_OK;
}

/* The kernel's feature names (one string set for every device), read once. */
static int feature_names(char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	struct nlmsghdr *nlh;
	struct nlattr *sets, *set;
	int rc;

	if (nnames > 0)
		return 0;
	nnames = 0;
	nlh = genl_msg(buf, (uint16_t)family, ETHTOOL_MSG_STRSET_GET, ETHTOOL_GENL_VERSION);
	/* an empty header, as ethtool sends: the kernel wants one, with no device */
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, ETHTOOL_A_STRSET_HEADER));
	sets = mnl_attr_nest_start(nlh, ETHTOOL_A_STRSET_STRINGSETS);
	set = mnl_attr_nest_start(nlh, ETHTOOL_A_STRINGSETS_STRINGSET);
	mnl_attr_put_u32(nlh, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES);
	mnl_attr_nest_end(nlh, set);
	mnl_attr_nest_end(nlh, sets);
	rc = nlsock_request(NULL, NETLINK_GENERIC, nlh, strset_cb, NULL, err, errlen);
	if (rc == 0 && nnames == 0)
		rc = -ENODATA;
	if (rc < 0 && err && !err[0])
		snprintf(err, errlen, "cannot read the feature names: %s", strerror(-rc));
	return rc;
}

static void put_header(struct nlmsghdr *nlh, const char *dev, uint32_t flags)
{
	struct nlattr *h = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_HEADER);

	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, dev);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	mnl_attr_nest_end(nlh, h);
}

/* A compact bitset {SIZE, VALUE} into map. */
static void get_bitset(const struct nlattr *set, uint32_t *map)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, set) {
		size_t len = mnl_attr_get_payload_len(a);

		if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_VALUE)
			continue;
		if (len > ETHNL_FEATURES_MAX / 8)
			len = ETHNL_FEATURES_MAX / 8;
		memcpy(map, mnl_attr_get_payload(a), len & ~(size_t)3);
	}
}

static int features_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ethnl_features *f = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_FEATURES_HW: get_bitset(a, f->hw); break;
		case ETHTOOL_A_FEATURES_WANTED: get_bitset(a, f->wanted); break;
		case ETHTOOL_A_FEATURES_ACTIVE: get_bitset(a, f->active); break;
		case ETHTOOL_A_FEATURES_NOCHANGE: get_bitset(a, f->nochange); break;
		}
	}
	return MNL_CB_OK;
}

int ethnl_features_get(const char *netns, const char *dev, struct ethnl_features *f,
		       char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	struct nlmsghdr *nlh;
	int rc;

	memset(f, 0, sizeof(*f));
	if (!ethnl_available())
		return -EOPNOTSUPP;
	if (!ifname_ok(dev))
		return -EINVAL;
	if ((rc = feature_names(err, errlen)) < 0)
		return rc;
	nlh = genl_msg(buf, (uint16_t)family, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_GENL_VERSION);
	put_header(nlh, dev, ETHTOOL_FLAG_COMPACT_BITSETS);
	rc = nlsock_request(netns, NETLINK_GENERIC, nlh, features_cb, f, err, errlen);
	if (rc < 0) {
		if (err && !err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	f->n = nnames;
	memcpy(f->name, names, sizeof(names));
	return 0;
}

int ethnl_features_set_build(void *buf, uint16_t fam, const char *dev,
			     const char *const nm[], const bool on[], int n)
{
	struct nlmsghdr *nlh = genl_msg(buf, fam, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_GENL_VERSION);
	struct nlattr *w, *bits, *bit;

	if (!ifname_ok(dev) || n < 0 || n > ETHNL_FEATURES_MAX)
		return -1;
	put_header(nlh, dev, ETHTOOL_FLAG_OMIT_REPLY);
	/* a list of named bits with a mask: the listed ones are set, the others left */
	w = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_WANTED);
	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (int i = 0; i < n; i++) {
		if (strlen(nm[i]) >= ETHNL_NAME_LEN)
			return -1;
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, nm[i]);
		if (on[i])
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, w);
	return (int)nlh->nlmsg_len;
}

int ethnl_features_set(const char *netns, const char *dev, const char *const nm[],
		       const bool on[], int n, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	int rc;

	if (!ethnl_available())
		return -EOPNOTSUPP;
	if (ethnl_features_set_build(buf, (uint16_t)family, dev, nm, on, n) < 0)
		return -EINVAL;
	rc = nlsock_request(netns, NETLINK_GENERIC, (struct nlmsghdr *)buf, NULL, NULL, err, errlen);
	if (rc < 0 && err && !err[0])
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

json_t *ethnl_features_record(const char *netns, const char *dev)
{
	json_t *r = json_pack("{s:s, s:s, s:{}}", "kind", "ethtool-features", "dev", dev, "wanted");

	if (r && netns)
		json_object_set_new(r, "netns", json_string(netns));
	return r;
}

static bool feature_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n < ETHNL_NAME_LEN && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int ethnl_undo_features(json_t *r)
{
	const char *ns = json_string_value(json_object_get(r, "netns"));
	const char *dev = json_string_value(json_object_get(r, "dev"));
	json_t *w = json_object_get(r, "wanted"), *v;
	const char *nm[ETHNL_FEATURES_MAX], *key;
	bool on[ETHNL_FEATURES_MAX];
	char err[256];
	int n = 0, rc;

	if ((json_object_get(r, "netns") && !netns_ok(ns)) || !ifname_ok(dev) || !json_is_object(w) ||
	    json_object_size(w) > ETHNL_FEATURES_MAX) {
		pr_warn("undo: ethtool-features record with a bad namespace, device or feature list: left as it is");
		return JOURNAL_LEFT;
	}
	json_object_foreach(w, key, v) {
		if (!feature_name_ok(key) || !json_is_boolean(v)) {
			pr_warn("undo: ethtool-features record with a bad feature name or value: left as it is");
			return JOURNAL_LEFT;
		}
		nm[n] = key;
		on[n++] = json_is_true(v);
	}
	rc = n ? ethnl_features_set(ns, dev, nm, on, n, err, sizeof(err)) : 0;
	/* the namespace or the device is gone: so is what was changed */
	if (rc == -ENOENT || rc == -ENODEV)
		return 0;
	if (rc < 0)
		pr_warn("undo: set the offloads of %s%s%s back: %s", dev, ns ? " in " : "", ns ? ns : "", err);
	return rc < 0 ? -1 : 0;
}
