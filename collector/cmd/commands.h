/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands, one file each (collector/cmd/cmd_<name>.c: its option table, its
 * parsing and its help page; the work is in the layers below), dispatched
 * by main.c. A façade: each command is defined in its cmd_<name>.c,
 * command_help in main.c.
 */
#ifndef IPSECPERF_COMMANDS_H
#define IPSECPERF_COMMANDS_H

#include <stdbool.h>

#include "options.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;              /* one line for `ipsecperf help` */
	const char *help;                 /* the page for `help NAME` and NAME --help ... */
	const struct opt_def *opts;       /* ... then its options, made from the table ... */
	const char *help_end;             /* ... then this, or NULL ... */
	const char *exit_status;          /* ... "exit status:", one "  N  meaning" line each ... */
	const char *examples;             /* ... and "examples:", one indented command line each */
	const char *mode_flag;            /* a mode with a page of its own ... */
	const struct command *mode;       /* ... shown for `NAME MODE_FLAG --help` */
	bool hidden;                      /* not listed: run by ipsecperf itself */
};

/* Print cmd's help page to stdout; returns 0 (or 1 if stdout failed). */
int command_help(const struct command *cmd);

extern const struct command command_run, command_list, command_cleanup, command_doctor, command_kernel,
	command_guest, command_peer_agent, command_report, command_report_profile, command_compare,
	command_probe, command_bisect, command_bisect_step;

/* compare's page names every field --allow-mismatch takes (tests/unit/test_compare.c) */
extern const char help_compare[];

#endif
