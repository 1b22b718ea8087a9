// SPDX-License-Identifier: GPL-2.0
#include "rtnl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "journal_dir.h"
#include "log.h"
#include "netns_call.h"
#include "nlsock.h"

#define NETNS_RUN_DIR "/run/netns"

/* errno's error as -errno, after saying what failed into err. */
static int sys_fail(char *err, size_t errlen, const char *what, const char *obj)
{
	int e = errno ? errno : EIO;

	msg_err(err, errlen, "%s %s: %s", what, obj, strerror(e));
	return -e;
}

static struct nlmsghdr *put_header(void *buf, int type, int flags)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, NLSOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

/*
 * /run/netns is a shared mount, as iproute2 makes it, so that a namespace
 * mounted there is seen from every mount namespace (and a bind mount of
 * the folder on itself first, where it is not a mount yet).
 */
static int run_dir_ready(char *err, size_t errlen)
{
	if (mkdir(NETNS_RUN_DIR, 0755) < 0 && errno != EEXIST)
		return sys_fail(err, errlen, "mkdir", NETNS_RUN_DIR);
	if (mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno != EINVAL ||
	    mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none", MS_BIND | MS_REC, NULL) < 0 ||
	    mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL) < 0)
		return sys_fail(err, errlen, "cannot make a shared mount of", NETNS_RUN_DIR);
	return 0;
}

/* A new network namespace for this thread, bind-mounted on path, and back. */
static int mount_new_netns(const char *path, char *err, size_t errlen)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), rc = 0;

	if (self < 0)
		return sys_fail(err, errlen, "cannot open", "/proc/thread-self/ns/net");
	if (unshare(CLONE_NEWNET) < 0) {
		rc = sys_fail(err, errlen, "unshare", "CLONE_NEWNET");
		close(self);
		return rc;
	}
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL) < 0)
		rc = sys_fail(err, errlen, "cannot mount a new namespace on", path);
	if (setns(self, CLONE_NEWNET) < 0)
		abort(); /* we would be left in the new namespace */
	close(self);
	return rc;
}

int rtnl_netns_add(const char *name, char *err, size_t errlen)
{
	char path[128];
	int fd, rc;

	if (!netns_ok(name)) {
		msg_err(err, errlen, "'%s' is not a namespace name", name ? name : "");
		return -EINVAL;
	}
	if ((rc = run_dir_ready(err, errlen)) < 0)
		return rc;
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return sys_fail(err, errlen, "cannot create", path);
	close(fd);
	rc = mount_new_netns(path, err, errlen);
	if (rc < 0)
		unlink(path);
	return rc;
}

int rtnl_netns_del(const char *name)
{
	char path[128];

	if (!netns_ok(name))
		return -EINVAL;
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	umount2(path, MNT_DETACH);
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int rtnl_veth_build(void *buf, const char *dev0, int nsfd0, const char *dev1, int nsfd1)
{
	struct nlmsghdr *nlh = put_header(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *linkinfo, *data, *peer;

	if (!ifname_ok(dev0) || !ifname_ok(dev1))
		return -1;
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev0);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)nsfd0);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	/* the peer's attributes follow an ifinfomsg of its own */
	memset(mnl_nlmsg_get_payload_tail(nlh), 0, sizeof(struct ifinfomsg));
	nlh->nlmsg_len += MNL_ALIGN(sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev1);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)nsfd1);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return (int)nlh->nlmsg_len;
}

static int open_netns(const char *name)
{
	char path[128];

	if (!netns_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int rtnl_veth_add(const char *dev0, const char *ns0, const char *dev1, const char *ns1,
		  char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	int fd0 = open_netns(ns0), fd1 = open_netns(ns1), rc;

	if (fd0 < 0 || fd1 < 0) {
		rc = sys_fail(err, errlen, "cannot open namespace", fd0 < 0 ? ns0 : ns1);
	} else if (rtnl_veth_build(buf, dev0, fd0, dev1, fd1) < 0) {
		msg_err(err, errlen, "bad interface name");
		rc = -EINVAL;
	} else {
		rc = nlsock_request(NULL, NETLINK_ROUTE, (struct nlmsghdr *)buf, NULL, NULL, err, errlen);
		if (rc < 0 && err && !err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
	}
	if (fd0 >= 0)
		close(fd0);
	if (fd1 >= 0)
		close(fd1);
	return rc;
}

int rtnl_addr_build(void *buf, unsigned int ifindex, const char *addr, int plen)
{
	struct nlmsghdr *nlh = put_header(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	unsigned char a[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET ? 4 : 16;

	if (inet_pton(family, addr, a) != 1 || plen < 0 || plen > (int)alen * 8 || !ifindex)
		return -1;
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = plen;
	/* no duplicate address detection: a tentative address takes no bind() for a second or two */
	if (family == AF_INET6)
		ifa->ifa_flags = IFA_F_NODAD;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, alen, a);
	mnl_attr_put(nlh, IFA_ADDRESS, alen, a);
	return (int)nlh->nlmsg_len;
}

int rtnl_link_up_build(void *buf, unsigned int ifindex)
{
	struct nlmsghdr *nlh = put_header(buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	if (!ifindex)
		return -1;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return (int)nlh->nlmsg_len;
}

int rtnl_getlink_build(void *buf, unsigned int ifindex)
{
	struct nlmsghdr *nlh = put_header(buf, RTM_GETLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	if (!ifindex)
		return -1;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return (int)nlh->nlmsg_len;
}

struct link_stats_arg {
	struct rtnl_link_stats64 *st;
	char *kind;
	size_t kindlen;
	bool got;
};

static int link_info_cb(const struct nlattr *a, void *data)
{
	struct link_stats_arg *arg = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND && mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
		snprintf(arg->kind, arg->kindlen, "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct link_stats_arg *arg = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_STATS64:
		if (mnl_attr_get_payload_len(a) >= sizeof(*arg->st)) {
			memcpy(arg->st, mnl_attr_get_payload(a), sizeof(*arg->st));
			arg->got = true;
		}
		break;
	case IFLA_LINKINFO:
		if (arg->kind)
			mnl_attr_parse_nested(a, link_info_cb, arg);
		break;
	}
	return MNL_CB_OK;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb, data);
}

int rtnl_link_stats(struct mnl_socket *nl, unsigned int ifindex, struct rtnl_link_stats64 *st,
		    char *kind, size_t kindlen)
{
	char buf[NLSOCK_BUF];
	struct link_stats_arg arg = { .st = st, .kind = kind, .kindlen = kindlen };
	int rc;

	if (kind && kindlen)
		*kind = '\0';
	if (rtnl_getlink_build(buf, ifindex) < 0)
		return -EINVAL;
	rc = nlsock_talk(nl, (struct nlmsghdr *)buf, link_msg_cb, &arg, NULL, 0, 0);
	if (rc == 0 && !arg.got)
		rc = -ENODATA; /* a kernel without IFLA_STATS64 (before 2.6.35) */
	return rc;
}

/* One request about DEV in NETNS: its index found there, the message built and sent there. */
static int dev_request(const char *netns, const char *dev, const char *addr, int plen,
		       char *err, size_t errlen)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex, inum;
	int len;

	if (!ifname_ok(dev)) {
		msg_err(err, errlen, "'%s' is not an interface name", dev ? dev : "");
		return -EINVAL;
	}
	if (netns_ifindex(netns, dev, &ifindex, &inum) < 0)
		return sys_fail(err, errlen, "cannot find device", dev);
	len = addr ? rtnl_addr_build(buf, ifindex, addr, plen) : rtnl_link_up_build(buf, ifindex);
	if (len < 0) {
		msg_err(err, errlen, "'%s/%d' is not an address", addr ? addr : "", plen);
		return -EINVAL;
	}
	len = nlsock_request(netns, NETLINK_ROUTE, (struct nlmsghdr *)buf, NULL, NULL, err, errlen);
	if (len < 0 && err && !err[0])
		snprintf(err, errlen, "%s", strerror(-len));
	return len;
}

int rtnl_addr_add(const char *netns, const char *dev, const char *addr, int plen,
		  char *err, size_t errlen)
{
	return dev_request(netns, dev, addr, plen, err, errlen);
}

int rtnl_link_up(const char *netns, const char *dev, char *err, size_t errlen)
{
	return dev_request(netns, dev, NULL, 0, err, errlen);
}

void rtnl_netns_name(char *buf, size_t len, const char *role)
{
	snprintf(buf, len, "ipsecperf-%d-%lld-%s", (int)getpid(), proc_starttime(0), role);
}

json_t *rtnl_netns_record(const char *name)
{
	return json_pack("{s:s, s:s}", "kind", "netns", "name", name);
}

int rtnl_undo_netns(json_t *r)
{
	const char *name = json_string_value(json_object_get(r, "name"));
	int rc;

	if (!netns_ok(name) || strncmp(name, "ipsecperf-", 10)) {
		pr_warn("undo: netns record with a bad name: not deleted");
		return JOURNAL_LEFT;
	}
	rc = rtnl_netns_del(name);
	if (rc < 0)
		pr_warn("undo: delete namespace %s: %s", name, strerror(-rc));
	return rc < 0 ? -1 : 0;
}
