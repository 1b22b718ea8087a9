// SPDX-License-Identifier: GPL-2.0
/* ipsecperf guest: the VM testbed's init, started by the guest's kernel. */
#include <unistd.h>

#include "commands.h"
#include "guest.h"
#include "log.h"
#include "vm_guest.h"

static const char help_guest[] =
	"usage: ipsecperf guest\n"
	"\n"
	"The init of the VM testbed's guest: run as PID 1 inside the VM that\n"
	"`ipsecperf run --testbed vm` boots, never by hand. It runs the matrix\n"
	"described in " GUEST_CONFIG " and sends the results back to the host.\n";

static int cmd_guest(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (getpid() != 1) {
		pr_warn("guest: this is the VM testbed's init; it runs as PID 1 inside the VM, not by hand (see `ipsecperf help run`)");
		return EXIT_USAGE;
	}
	return guest_main();
}

const struct command command_guest = {
	.name = "guest", .fn = cmd_guest, .help = help_guest,
	.exit_status = "  0   the guest's matrix ran (its runs' own statuses are in its records)\n"
		       "  1   it could not run\n  2   not PID 1: run by hand\n",
	.examples = "  ipsecperf run --testbed vm --kernel K clear    # boots a guest that runs it\n",
	.summary = "the VM testbed's init (runs inside the VM only)",
};
