// SPDX-License-Identifier: GPL-2.0
/* ipsecperf peer-agent: the peer testbed's helper on the far host. */
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "peer_agent.h"

static const char help_peer_agent[] =
	"usage: ipsecperf peer-agent [--undo RECORD]\n"
	"\n"
	"The peer testbed's helper on the far host. `ipsecperf run --testbed\n"
	"peer` starts it through ssh; it is not meant to be run by hand. It\n"
	"reads one JSON request per line on stdin (keys included: they never\n"
	"appear on a command line) and answers one JSON object per line. At the\n"
	"end of its input it stops what it started and exits.\n"
	"\n"
	"Started for an ssh key pinned to it (command=\"ipsecperf peer-agent\" in\n"
	"the peer's authorized_keys), it serves what the key was asked for\n"
	"(SSH_ORIGINAL_COMMAND) when the peer testbed sends that, and refuses\n"
	"anything else with exit status 4 (docs/security.md).\n";

struct agent_args {
	const char *undo;
};

static const struct opt_def peer_agent_opts[] = {
	OPT_STR("undo", 0, struct agent_args, undo, "RECORD",
		"undo one journal record (xfrm-state, xfrm-policy, modules) of the peer testbed on this host"),
	OPT_END,
};

static int cmd_peer_agent(int argc, char **argv)
{
	struct agent_args a = { 0 };
	int first = options_parse("peer-agent", peer_agent_opts, 0, argc, argv, &a);

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		pr_warn("peer-agent: takes no arguments; it is started by `ipsecperf run --testbed peer`");
		return EXIT_USAGE;
	}
	if (a.undo)
		return peer_agent_undo(a.undo);
	/* a key pinned to the agent: sshd says what it was asked for */
	if (getenv("SSH_ORIGINAL_COMMAND"))
		return peer_agent_pinned(getenv("SSH_ORIGINAL_COMMAND"));
	return peer_agent_serve();
}

const struct command command_peer_agent = {
	.name = "peer-agent", .fn = cmd_peer_agent, .help = help_peer_agent, .opts = peer_agent_opts,
	.exit_status = "  0   its input ended after its requests; --undo: the record was undone\n"
		       "  1   its input ended before any request (nothing was done); --undo: the\n"
		       "      record could not be undone (kept, for `ipsecperf cleanup`)\n"
		       "  2   bad usage\n"
		       "  3   --undo: the record cannot be undone safely (said why)\n"
		       "  4   a key pinned to it asked for what the peer testbed does not send\n",
	.examples = "  ipsecperf run --testbed peer --peer root@rx --dev eth1 --peer-dev eth1\n"
		    "      # starts it on rx\n",
	.summary = "the peer testbed's helper on the far host (started through ssh)",
};
