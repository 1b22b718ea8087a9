// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of testbeds: each one's name, option mark, musts, and way to
 * run. Here, in the command layer, as the only one that sees both the
 * in-host matrix loop (collector/run/matrix.h) and the VM's runner
 * (collector/vm/vm.h).
 */
#include <stdio.h>
#include <string.h>

#include "matrix.h"
#include "options.h"
#include "testbed_peer.h"
#include "testbeds.h"
#include "vm_matrix.h"

/* peer: the link's two ends and the host, and the options to reach it usable */
static int peer_check(const struct run_config *c, char *why, size_t len)
{
	struct testbed_config tc = testbed_config_of(c);

	return peer_host_check(&tc, why, len);
}

/* vm, vm-pair: a kernel to boot */
static int vm_check(const struct run_config *c, char *why, size_t len)
{
	if (!c->nkernels) {
		snprintf(why, len, "--testbed %s needs --kernel K (see `ipsecperf help kernel`)", c->testbed);
		return -1;
	}
	return 0;
}

/* The first is the default. */
static const struct testbed_entry testbeds[] = {
	{ .name = "netns", .mark = OPT_NETNS, .ops = &netns_testbed_ops },
	{ .name = "peer", .mark = OPT_PEER, .peer = true, .check = peer_check, .ops = &peer_testbed_ops },
	{ .name = "vm", .mark = OPT_VM, .guests = 1, .check = vm_check, .run = vm_run_matrix,
	  .summary = vm_print_summary },
	{ .name = "vm-pair", .mark = OPT_VMPAIR, .guests = 2, .check = vm_check, .run = vm_run_matrix,
	  .summary = vm_print_summary },
};

#define NTESTBEDS (sizeof(testbeds) / sizeof(testbeds[0]))

char testbeds_help[128];
const char *testbeds_choices[NTESTBEDS + 1];

const struct testbed_entry *testbed_default(void)
{
	return &testbeds[0];
}

/* The one place a testbed is chosen by its name. */
const struct testbed_entry *testbed_find(const char *name)
{
	for (size_t i = 0; name && i < NTESTBEDS; i++)
		if (!strcmp(name, testbeds[i].name))
			return &testbeds[i];
	return NULL;
}

void testbeds_names(char *buf, size_t len, const char *sep)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NTESTBEDS && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? sep : "", testbeds[i].name);
}

static const char *name_of(unsigned mark)
{
	for (size_t i = 0; i < NTESTBEDS; i++)
		if (testbeds[i].mark == mark)
			return testbeds[i].name;
	return NULL;
}

static unsigned mark_of(const char *name)
{
	const struct testbed_entry *t = testbed_find(name);

	return t ? t->mark : 0;
}

void testbeds_register(void)
{
	static const struct opt_testbeds hooks = { .name_of = name_of, .mark_of = mark_of };
	size_t n = 0;

	for (size_t i = 0; i < NTESTBEDS && n < sizeof(testbeds_help); i++)
		n += snprintf(testbeds_help + n, sizeof(testbeds_help) - n, "%s%s%s", i ? ", " : "", testbeds[i].name,
			      i ? "" : " (default)");
	for (size_t i = 0; i < NTESTBEDS; i++)
		testbeds_choices[i] = testbeds[i].name;
	options_set_testbeds(&hooks);
}
