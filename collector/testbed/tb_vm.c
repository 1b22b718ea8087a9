// SPDX-License-Identifier: GPL-2.0
/*
 * The guests' testbeds, as registry entries (testbed_ops.h): their runner
 * is the VM's (collector/vm/, vm_run_matrix()), which boots each --kernel
 * and has the (sending) guest run the testbed its entry names. vm and
 * vm-pair differ by this data alone.
 */
#include <stdio.h>

#include "options.h"
#include "testbed.h"
#include "testbed_ops.h"

/* A kernel to boot. */
static int kernel_check(const struct run_config *c, char *why, size_t len)
{
	if (!c->nkernels) {
		snprintf(why, len, "--testbed %s needs --kernel K (see `ipsecperf help kernel`)", c->testbed);
		return -1;
	}
	return 0;
}

/* vm: two namespaces inside one guest: the guest runs the netns testbed. */
const struct testbed_entry testbed_vm = {
	.name = "vm",
	.mark = OPT_VM,
	.check = kernel_check,
	.guests = 1,
	.in_guest = "netns",
};

/* vm-pair: two guests, each its own kernel; the sending guest runs the peer testbed, its peer the other. */
const struct testbed_entry testbed_vm_pair = {
	.name = "vm-pair",
	.mark = OPT_VMPAIR,
	.check = kernel_check,
	.guests = 2,
	.in_guest = "peer",
	/* each qemu would count its own guest's instructions: no time the two share */
	.no_virtual_clock = "two guests on two virtual clocks over a real-time link measure nothing coherent (each qemu advances its guest's time by that guest's instructions alone)",
};
