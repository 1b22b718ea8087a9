// SPDX-License-Identifier: GPL-2.0
/* Generic netlink: headers and family ids (genl.h). */
#include "genl.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <string.h>

#include "nlsock.h"

struct nlmsghdr *genl_msg(void *buf, uint16_t type, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(buf, 0, NLSOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID && mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			*(int *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

int genl_family(const char *netns, const char *name)
{
	char buf[NLSOCK_BUF];
	struct nlmsghdr *nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	int id = 0, rc;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	rc = nlsock_request(netns, NETLINK_GENERIC, nlh, family_cb, &id, NULL, 0);
	if (rc == -ENOENT)
		return 0; /* no such family */
	return rc < 0 ? rc : id;
}
