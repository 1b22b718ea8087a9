// SPDX-License-Identifier: GPL-2.0
#include "rtnl_link.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
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

	if (!ifname_ok(dev) || !ifname_ok(master)) {
		msg_err(err, errlen, "'%s' or '%s' is not an interface name", dev ? dev : "", master ? master : "");
		return -EINVAL;
	}
	if (netns_ifindex(netns, dev, &ifindex, &inum) < 0 || netns_ifindex(netns, master, &mindex, &inum) < 0) {
		msg_err(err, errlen, "cannot find %s or %s: %s", dev, master, strerror(errno));
		return -errno;
	}
	nlh = link_msg(buf, 0, ifindex);
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_flags = IFF_UP;
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_change = IFF_UP;
	if (mtu > 0) /* before the master: the kernel sets IFLA_MTU first, the bridge then takes the ports' */
		mnl_attr_put_u32(nlh, IFLA_MTU, (uint32_t)mtu);
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
