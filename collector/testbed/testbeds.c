// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of testbeds: one line each; every entry (struct
 * testbed_entry, testbed_ops.h) is defined beside its testbed's code.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "testbed.h"
#include "testbed_ops.h"
#include "testbeds.h"

/* The first is the default; the help, the completion and the messages list them in this order. */
static const struct testbed_entry *const testbeds[] = { &testbed_netns, &testbed_peer, &testbed_vm, &testbed_vm_pair };

#define NTESTBEDS (sizeof(testbeds) / sizeof(testbeds[0]))

char testbeds_help[128];
const char *testbeds_choices[NTESTBEDS + 1];

const struct testbed_entry *testbed_default(void)
{
	return testbeds[0];
}

/* The one place a testbed is chosen by its name. */
const struct testbed_entry *testbed_find(const char *name)
{
	for (size_t i = 0; name && i < NTESTBEDS; i++)
		if (!strcmp(name, testbeds[i]->name))
			return testbeds[i];
	return NULL;
}

void testbeds_names(char *buf, size_t len, const char *sep)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NTESTBEDS && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? sep : "", testbeds[i]->name);
}

static const char *name_at(int i)
{
	return i >= 0 && (size_t)i < NTESTBEDS ? testbeds[i]->name : NULL;
}

static unsigned mark_at(int i)
{
	return i >= 0 && (size_t)i < NTESTBEDS ? testbeds[i]->mark : 0;
}

void testbeds_register(void)
{
	static const struct opt_testbeds hooks = { .name_at = name_at, .mark_at = mark_at };
	size_t n = 0;

	for (size_t i = 0; i < NTESTBEDS && n < sizeof(testbeds_help); i++)
		n += snprintf(testbeds_help + n, sizeof(testbeds_help) - n, "%s%s%s", i ? ", " : "", testbeds[i]->name,
			      i ? "" : " (default)");
	for (size_t i = 0; i < NTESTBEDS; i++)
		testbeds_choices[i] = testbeds[i]->name;
	options_set_testbeds(&hooks);
}
