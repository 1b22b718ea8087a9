// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "exec.h"
#include "journal.h"
#include "log.h"
#include "rtnl.h"
#include "testbed.h"
#include "run.h"

/*
 * The testbed is made through rtnetlink (rtnl.c), not by starting `ip`.
 * Each step has the `ip` command a person would type for it: --dry-run
 * prints those (through host_do, which journals the printed undo), -v
 * shows them as they are made.
 */
struct step {
	const char *what;
	char **argv;         /* the equivalent ip command */
	const char *ns;      /* a namespace made (journaled as "netns") */
	const char *dev, *in, *addr, *peer, *peer_in;
	int plen;
};

static int do_step(const struct step *s, char *err, size_t errlen)
{
	if (s->ns)
		return rtnl_netns_add(s->ns, err, errlen);
	if (s->peer)
		return rtnl_veth_add(s->dev, s->in, s->peer, s->peer_in, err, errlen);
	if (s->addr)
		return rtnl_addr_add(s->in, s->dev, s->addr, s->plen, err, errlen);
	return rtnl_link_up(s->in, s->dev, err, errlen);
}

static int ns_step(const struct step *s)
{
	char err[512] = "";
	int seq = 0, rc;

	if (journal_dry_run()) {
		char *undo[] = { "ip", "netns", "del", (char *)s->ns, NULL };

		return host_do(NULL, s->argv, s->ns ? undo : NULL, NULL);
	}
	if (log_verbose) {
		fputs("ipsecperf: + ", stderr);
		exec_print(stderr, NULL, s->argv);
	}
	/* the undo on disk before the change; cancelled if the change was not made */
	if (s->ns) {
		if (journal_add(rtnl_netns_record(s->ns)) < 0)
			return -1;
		seq = journal_last();
	}
	rc = do_step(s, err, sizeof(err));
	if (rc == 0)
		return 0;
	pr_warn("netns testbed: %s failed: %s", s->what, err[0] ? err : strerror(-rc));
	if (seq)
		journal_cancel(seq);
	return -1;
}

static void names(struct testbed *tb, const struct testbed_config *cfg)
{
	int ncpu = cpu_count();

	memset(tb, 0, sizeof(*tb));
	/* unique per process and its start, so parallel runs and leftovers never collide */
	rtnl_netns_name(tb->ns_tx, sizeof(tb->ns_tx), "tx");
	rtnl_netns_name(tb->ns_rx, sizeof(tb->ns_rx), "rx");
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
}

int netns_setup(struct testbed *tb, const struct testbed_config *cfg)
{
	char addr[2][80];

	names(tb, cfg);
	char *ns[2] = { tb->ns_tx, tb->ns_rx };
	char *dev[2] = { tb->dev_tx, tb->dev_rx };

	for (int i = 0; i < 2; i++) {
		snprintf(addr[i], sizeof(addr[i]), "%s/%d", i ? tb->addr_rx : tb->addr_tx, tb->prefix_len);
		if (ns_step(&(struct step){ "create namespace", (char *[]){ "ip", "netns", "add", ns[i], NULL },
					    .ns = ns[i] }))
			return -1;
	}
	/* both ends made inside their namespaces: the host's own links never change */
	if (ns_step(&(struct step){ "create veth pair",
				    (char *[]){ "ip", "link", "add", dev[0], "netns", ns[0], "type", "veth",
						"peer", "name", dev[1], "netns", ns[1], NULL },
				    .dev = dev[0], .in = ns[0], .peer = dev[1], .peer_in = ns[1] }))
		return -1;
	for (int i = 0; i < 2; i++) {
		if (ns_step(&(struct step){ "add address",
					    (char *[]){ "ip", "-n", ns[i], "addr", "add", addr[i], "dev", dev[i], NULL },
					    .dev = dev[i], .in = ns[i], .addr = i ? tb->addr_rx : tb->addr_tx,
					    .plen = tb->prefix_len }) ||
		    ns_step(&(struct step){ "set link up",
					    (char *[]){ "ip", "-n", ns[i], "link", "set", dev[i], "up", NULL },
					    .dev = dev[i], .in = ns[i] }) ||
		    ns_step(&(struct step){ "set loopback up",
					    (char *[]){ "ip", "-n", ns[i], "link", "set", "lo", "up", NULL },
					    .dev = "lo", .in = ns[i] }))
			return -1;
	}
	return 0;
}

struct testbed_config testbed_config_of(const struct run_config *c)
{
	return (struct testbed_config){
		.addr_tx = c->addr_tx, .addr_rx = c->addr_rx, .addr_tx_set = c->addr_tx_set,
		.addr_rx_set = c->addr_rx_set, .prefix_len = c->prefix_len, .peer = c->peer, .dev = c->dev,
		.peer_dev = c->peer_dev, .peer_ipsecperf = c->peer_ipsecperf, .ssh_opts = c->ssh_opts,
		.nssh_opts = c->nssh_opts, .cpu_tx = c->cpu_tx, .cpu_rx = c->cpu_rx, .port = c->port,
	};
}
