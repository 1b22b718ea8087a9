/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands, one file each (cmd_<name>.c), dispatched by main.c. */
#ifndef IPSECPERF_COMMANDS_H
#define IPSECPERF_COMMANDS_H

#include "options.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;              /* one line for `ipsecperf help` */
	const char *help;                 /* the page for `help NAME` and NAME --help */
	const struct opt_def *opts;       /* its options, listed after the page */
	const char *mode_flag;            /* a mode with a page of its own ... */
	const char *mode_help;            /* ... shown for `NAME MODE_FLAG --help` */
};

extern const struct command commands[];
const struct command *command_find(const char *name);

/* Print cmd's help page to stdout; returns 0 (or 1 if stdout failed). */
int command_help(const struct command *cmd);

/* If argv has -h/--help before any "--", print help and return 1. */
int command_wants_help(int argc, char **argv);

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
extern const char help_doctor[];
extern const struct opt_def doctor_opts[];
int cmd_probe(int argc, char **argv);
extern const char help_probe[];
extern const struct opt_def probe_opts[];
int cmd_kernel(int argc, char **argv);
int cmd_guest(int argc, char **argv);
int cmd_peer_agent(int argc, char **argv);
extern const char help_peer_agent[];

extern const char help_run[], help_list[], help_cleanup[];
extern const char help_kernel[], help_guest[];
extern const struct opt_def run_opts[], cleanup_opts[], list_opts[], kernel_opts[];

/* analyze/: report.c and compare.c */
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
extern const char help_report[], help_report_profile[], help_compare[];

#endif
