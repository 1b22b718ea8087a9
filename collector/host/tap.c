// SPDX-License-Identifier: GPL-2.0
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "netns_call.h"

struct tap_req {
	const char *name;
	int fd;
};

/* In the namespace: /dev/net/tun opened there makes its device there. */
static int tap_make(void *arg)
{
	struct tap_req *t = arg;
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };

	t->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return -1;
	memcpy(ifr.ifr_name, t->name, strlen(t->name));
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(t->fd);
		t->fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

int tap_open(const char *netns, const char *name, char *err, size_t errlen)
{
	struct tap_req t = { .name = name, .fd = -1 };

	if (!ifname_ok(name)) {
		msg_err(err, errlen, "'%s' is not an interface name", name ? name : "");
		return -1;
	}
	if (netns_call(netns, tap_make, &t) < 0) {
		msg_err(err, errlen, "cannot make tap %s%s%s: %s%s", name, netns ? " in " : "", netns ? netns : "",
			strerror(errno), errno == ENOENT ? " (no /dev/net/tun: the kernel needs CONFIG_TUN)" : "");
		return -1;
	}
	return t.fd;
}
