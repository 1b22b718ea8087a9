// SPDX-License-Identifier: GPL-2.0
#include "rtnl_link.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "netns_call.h"
#include "nlsock.h"

static struct nlmsghdr *link_msg(void *buf, int flags, unsigned int ifindex)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	memset(buf, 0, NLSOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return nlh;
}

static int send_msg(const char *netns, struct nlmsghdr *nlh, char *err, size_t errlen)
{
	int rc = nlsock_request(netns, NETLINK_ROUTE, nlh, NULL, NULL, err, errlen);

	if (rc < 0 && err && !err[0])
		msg_err(err, errlen, "%s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

int rtnl_bridge_add(const char *netns, const char *name, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	struct nlmsghdr *nlh;
	struct nlattr *info;

	if (!ifname_ok(name)) {
		msg_err(err, errlen, "'%s' is not an interface name", name ? name : "");
		return -EINVAL;
	}
	nlh = link_msg(buf, NLM_F_CREATE | NLM_F_EXCL, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	mnl_attr_nest_end(nlh, info);
	return send_msg(netns, nlh, err, errlen);
}

int rtnl_link_master_up(const char *netns, const char *dev, const char *master, int mtu, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex, mindex, inum;
	struct nlmsghdr *nlh;

	if (!ifname_ok(dev) || (master && !ifname_ok(master))) {
		msg_err(err, errlen, "'%s' or '%s' is not an interface name", dev ? dev : "", master ? master : "");
		return -EINVAL;
	}
	if (netns_ifindex(netns, dev, &ifindex, &inum) < 0 ||
	    (master && netns_ifindex(netns, master, &mindex, &inum) < 0)) {
		msg_err(err, errlen, "cannot find %s%s%s: %s", dev, master ? " or " : "", master ? master : "",
			strerror(errno));
		return -errno;
	}
	nlh = link_msg(buf, 0, ifindex);
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_flags = IFF_UP;
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_change = IFF_UP;
	if (mtu > 0) /* before the master: the kernel sets IFLA_MTU first, the bridge then takes the ports' */
		mnl_attr_put_u32(nlh, IFLA_MTU, (uint32_t)mtu);
	if (master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, mindex);
	return send_msg(netns, nlh, err, errlen);
}

int rtnl_link_rename(const char *netns, const char *dev, const char *name, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex, inum;
	struct nlmsghdr *nlh;

	if (!ifname_ok(dev) || !ifname_ok(name)) {
		msg_err(err, errlen, "'%s' or '%s' is not an interface name", dev ? dev : "", name ? name : "");
		return -EINVAL;
	}
	if (netns_ifindex(netns, dev, &ifindex, &inum) < 0) {
		msg_err(err, errlen, "cannot find %s: %s", dev, strerror(errno));
		return -errno;
	}
	nlh = link_msg(buf, 0, ifindex);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return send_msg(netns, nlh, err, errlen);
}

int rtnl_link_add_build(void *buf, const char *name, const char *kind, unsigned int lower,
			void (*data)(struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct nlmsghdr *nlh;
	struct nlattr *info, *d;

	if (!ifname_ok(name) || !kind || !*kind)
		return -1;
	nlh = link_msg(buf, NLM_F_CREATE | NLM_F_EXCL, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (lower)
		mnl_attr_put_u32(nlh, IFLA_LINK, lower);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	if (data) {
		d = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
		data(nlh, arg);
		mnl_attr_nest_end(nlh, d);
	}
	mnl_attr_nest_end(nlh, info);
	return (int)nlh->nlmsg_len;
}

int rtnl_link_add(const char *netns, const char *name, const char *kind, const char *lower,
		  void (*data)(struct nlmsghdr *nlh, void *arg), void *arg, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex = 0, inum;

	if (lower && (!ifname_ok(lower) || netns_ifindex(netns, lower, &ifindex, &inum) < 0)) {
		msg_err(err, errlen, "cannot find %s: %s", lower, ifname_ok(lower) ? strerror(errno) : "not a name");
		return ifname_ok(lower) ? -errno : -EINVAL;
	}
	if (rtnl_link_add_build(buf, name, kind, ifindex, data, arg) < 0) {
		msg_err(err, errlen, "'%s' is not an interface name", name ? name : "");
		return -EINVAL;
	}
	return send_msg(netns, (struct nlmsghdr *)buf, err, errlen);
}

struct kind_arg {
	char *kind;
	size_t len;
};

static int kind_info_cb(const struct nlattr *a, void *data)
{
	struct kind_arg *k = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND && mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
		snprintf(k->kind, k->len, "%.*s", (int)mnl_attr_get_payload_len(a), mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int kind_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_LINKINFO)
		mnl_attr_parse_nested(a, kind_info_cb, data);
	return MNL_CB_OK;
}

static int kind_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), kind_attr_cb, data);
}

int rtnl_link_kind(const char *netns, const char *name, char *kind, size_t len)
{
	char buf[NLSOCK_BUF];
	struct kind_arg k = { kind, len };
	struct nlmsghdr *nlh;
	int rc;

	if (len)
		kind[0] = '\0';
	if (!ifname_ok(name))
		return -EINVAL;
	nlh = link_msg(buf, 0, 0);
	nlh->nlmsg_type = RTM_GETLINK;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	rc = nlsock_request(netns, NETLINK_ROUTE, nlh, kind_msg_cb, &k, NULL, 0);
	return rc == -ENODEV ? 0 : rc < 0 ? rc : 1;
}

int rtnl_link_del(const char *netns, const char *name, const char *kind, char *err, size_t errlen)
{
	char buf[NLSOCK_BUF], have[32];
	struct nlmsghdr *nlh;
	int rc = rtnl_link_kind(netns, name, have, sizeof(have));

	if (rc <= 0) {
		if (rc < 0)
			msg_err(err, errlen, "cannot look %s up: %s", name ? name : "", strerror(-rc));
		return rc < 0 ? rc : 1;
	}
	if (strcmp(have, kind)) {
		msg_err(err, errlen, "%s is a %s device, not %s: left as it is", name, *have ? have : "kindless", kind);
		return -EPERM;
	}
	nlh = link_msg(buf, 0, 0);
	nlh->nlmsg_type = RTM_DELLINK;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	rc = send_msg(netns, nlh, err, errlen);
	return rc == -ENODEV ? 1 : rc;
}
