// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "journal.h"
#include "log.h"
#include "testbed.h"

static int ns_cmd(const char *what, char *const do_argv[], char *const undo_argv[])
{
	char *err = NULL;

	if (host_do(NULL, do_argv, undo_argv, &err) == 0)
		return 0;
	pr_warn("netns testbed: %s failed: %s", what, err && *err ? err : "no message");
	free(err);
	return -1;
}

int netns_setup(struct testbed *tb, const struct testbed_config *cfg)
{
	char addr[80];
	int ncpu = cpu_count();

	memset(tb, 0, sizeof(*tb));
	tb->kind = "netns";
	/* unique per process, so parallel runs and leftovers never collide */
	snprintf(tb->ns_tx, sizeof(tb->ns_tx), "ipsecperf-%d-tx", (int)getpid());
	snprintf(tb->ns_rx, sizeof(tb->ns_rx), "ipsecperf-%d-rx", (int)getpid());
	strcpy(tb->dev_tx, "ipp-tx");
	strcpy(tb->dev_rx, "ipp-rx");
	snprintf(tb->addr_tx, sizeof(tb->addr_tx), "%s", cfg->addr_tx);
	snprintf(tb->addr_rx, sizeof(tb->addr_rx), "%s", cfg->addr_rx);
	tb->prefix_len = cfg->prefix_len;
	/* sender and receiver on different CPUs when there are two */
	tb->cpu_tx = ncpu >= 2 ? 0 : -1;
	tb->cpu_rx = ncpu >= 2 ? 1 : -1;

	tb->ep_tx = (struct endpoint){ .netns = tb->ns_tx, .dev = tb->dev_tx, .addr = tb->addr_tx, .cpu = tb->cpu_tx };
	tb->ep_rx = (struct endpoint){ .netns = tb->ns_rx, .dev = tb->dev_rx, .addr = tb->addr_rx, .cpu = tb->cpu_rx };

	const char *ns[2] = { tb->ns_tx, tb->ns_rx };
	const char *dev[2] = { tb->dev_tx, tb->dev_rx };
	const char *ad[2] = { tb->addr_tx, tb->addr_rx };

	for (int i = 0; i < 2; i++) {
		if (ns_cmd("create namespace",
			   (char *[]){ "ip", "netns", "add", (char *)ns[i], NULL },
			   (char *[]){ "ip", "netns", "del", (char *)ns[i], NULL }))
			return -1;
	}
	/* both ends made inside their namespaces: the host's own links never change */
	if (ns_cmd("create veth pair",
		   (char *[]){ "ip", "link", "add", (char *)dev[0], "netns", (char *)ns[0], "type", "veth",
			       "peer", "name", (char *)dev[1], "netns", (char *)ns[1], NULL },
		   NULL))
		return -1;
	for (int i = 0; i < 2; i++) {
		snprintf(addr, sizeof(addr), "%s/%d", ad[i], tb->prefix_len);
		if (ns_cmd("add address",
			   (char *[]){ "ip", "-n", (char *)ns[i], "addr", "add", addr, "dev", (char *)dev[i], NULL },
			   NULL) ||
		    ns_cmd("set link up",
			   (char *[]){ "ip", "-n", (char *)ns[i], "link", "set", (char *)dev[i], "up", NULL }, NULL) ||
		    ns_cmd("set loopback up",
			   (char *[]){ "ip", "-n", (char *)ns[i], "link", "set", "lo", "up", NULL }, NULL))
			return -1;
	}
	return 0;
}
