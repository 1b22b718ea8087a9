/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry of testbeds (struct testbed_entry, collector/run/run.h):
 * netns, peer, vm and vm-pair, one entry each, in the order the help and
 * the messages list them. A new testbed is one entry in testbeds.c.
 */
#ifndef IPSECPERF_TESTBEDS_H
#define IPSECPERF_TESTBEDS_H

#include <stddef.h>

#include "run.h"

/* The default testbed's entry (netns), the table's first. */
const struct testbed_entry *testbed_default(void);

/* The entry of --testbed name; NULL if this build has none of that name. */
const struct testbed_entry *testbed_find(const char *name);

/* The names, in the table's order, sep between them: "netns, peer, vm, vm-pair". */
void testbeds_names(char *buf, size_t len, const char *sep);

/*
 * Give the option tables (collector/lib/options_help.c) the testbeds'
 * names and marks, and fill testbeds_help, the --testbed option's help
 * ("netns (default), peer, vm, vm-pair"); main() calls it first.
 */
void testbeds_register(void);
extern char testbeds_help[];
/* The names, NULL last: --testbed's choices (filled by testbeds_register). */
extern const char *testbeds_choices[];

#endif
