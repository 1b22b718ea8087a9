// SPDX-License-Identifier: GPL-2.0
/* ipsecperf: measure what IPsec costs Linux networking, and where. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "undo_kinds.h"
#include "version.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const char help_help[] =
	"usage: ipsecperf help [COMMAND]\n"
	"\n"
	"Without COMMAND, list the commands; with one, print its page\n"
	"(the same as `ipsecperf COMMAND --help`).\n";

static const char help_version[] =
	"usage: ipsecperf version\n"
	"\n"
	"Print the version: ipsecperf X.Y.Z (the release) and, in brackets,\n"
	"`git describe` of the tree it was built from.\n";

const struct command commands[] = {
	{ "run", cmd_run, "run a scenario matrix on a testbed and write a results directory", help_run, run_opts, NULL, NULL },
	{ "list", cmd_list, "list the scenarios with their descriptions", help_list, list_opts, NULL, NULL },
	{ "cleanup", cmd_cleanup, "undo the host changes of a run that was killed", help_cleanup, cleanup_opts, NULL, NULL },
	{ "doctor", cmd_doctor, "print what this host can run: ESP, algorithms, TCP-MD5/AO, BPF, KVM, tools", help_doctor, doctor_opts, NULL, NULL },
	{ "kernel", cmd_kernel, "fetch and list kernels for the VM testbed", help_kernel, kernel_opts, NULL, NULL },
	{ "guest", cmd_guest, "the VM testbed's init (runs inside the VM only)", help_guest, NULL, NULL, NULL },
	{ "peer-agent", cmd_peer_agent, "the peer testbed's helper on the far host (started through ssh)", help_peer_agent, NULL, NULL, NULL },
	{ "report", cmd_report, "report on results directories: text, md, csv, json, html, charts", help_report, NULL,
	  "--profile", help_report_profile },
	{ "compare", cmd_compare, "compare kernels across results directories; exit 1 on a regression", help_compare, NULL, NULL, NULL },
	{ "probe", cmd_probe, "list the kernel counters this kernel gives and how each attaches", help_probe, probe_opts, NULL, NULL },
	{ "help", cmd_help, "print a command's help page", help_help, NULL, NULL, NULL },
	{ "version", cmd_version, "print the version", help_version, NULL, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct command *command_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int command_help(const struct command *cmd)
{
	fputs(cmd->help, stdout);
	if (cmd->opts) {
		fputs("\noptions:\n", stdout);
		for (const struct opt_def *o = cmd->opts; o->name; o++) {
			char left[64];

			snprintf(left, sizeof(left), "%c%c%c --%s%s%s", o->short_name ? '-' : ' ',
				 o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
			printf("  %-26s %s\n", left, o->help);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* Whether opt is among the command's arguments, before any "--". */
static int command_has(int argc, char **argv, const char *opt)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], opt))
			return 1;
	}
	return 0;
}

int command_wants_help(int argc, char **argv)
{
	return command_has(argc, argv, "-h") || command_has(argc, argv, "--help");
}

/* The program's page (ipsecperf(1) is made from it); full adds options and environment. */
static void usage(FILE *f, bool full)
{
	fprintf(f, "usage: ipsecperf [-v] COMMAND [ARGS]\n");
	if (full)
		fputs("\nMeasure what IPsec costs Linux networking, and where.\n"
		      "A scenario matrix on a testbed (two network namespaces, two hosts,\n"
		      "or a VM booted with any kernel), the kernel's own counts per packet,\n"
		      "throughput and cycles per byte with their spread, reports for a\n"
		      "netdev mail, and a verdict when one kernel is compared with another.\n"
		      "\noptions:\n"
		      "  -v, --verbose   more messages (twice: the VM guest's too)\n"
		      "  -h, --help      this page\n"
		      "  --version       print the version\n", f);
	fprintf(f, "\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n`ipsecperf help COMMAND` or `ipsecperf COMMAND --help` for its page.\n"
		   "Docs: docs/user-guide.md. Exit status: 0 ok, 1 a run failed or a\n"
		   "regression was found, 2 bad usage or input.\n");
	if (full)
		fputs("\nenvironment:\n"
		      "  IPSECPERF_SCENARIOS    the scenario folder (default: scenarios/ beside\n"
		      "                         the program, or share/ipsecperf/scenarios of\n"
		      "                         its install); run and list --scenario-dir too\n"
		      "  IPSECPERF_TEMPLATES    the chart templates' folder (likewise)\n"
		      "  IPSECPERF_CACHE        the VM testbed's kernels\n"
		      "                         (default /var/cache/ipsecperf/kernels)\n"
		      "  IPSECPERF_JOURNAL_DIR  the journals of runs (default /run/ipsecperf)\n"
		      "  IPSECPERF_VM_*         the VM testbed's: _ACCEL, _TIMEOUT, _APPEND and\n"
		      "                         _MODULES (docs/vm-testbed.md)\n"
		      "  IPSECPERF_PROBE_BACKEND\n"
		      "                         raw-tp or perf: the probes' backend, for tests\n"
		      "                         (docs/probes.md)\n", f);
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stdout, true);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	c = command_find(argv[1]);
	if (!c) {
		pr_warn("help: no command '%s'; `ipsecperf help` lists them", argv[1]);
		return EXIT_USAGE;
	}
	return command_help(c);
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("ipsecperf %s\n", IPSECPERF_VERSION_FULL);
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1, ret;

	undo_kinds_register();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_verbose++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout, true);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			return cmd_version(0, NULL);
		} else {
			pr_warn("unknown option '%s'; see `ipsecperf help`", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr, false);
		return EXIT_USAGE;
	}
	c = command_find(argv[i]);
	if (!c) {
		pr_warn("'%s' is not a command; see `ipsecperf help`", argv[i]);
		return EXIT_USAGE;
	}
	if (c->fn != cmd_help && command_wants_help(argc - i, argv + i)) {
		if (c->mode_flag && command_has(argc - i, argv + i, c->mode_flag)) {
			fputs(c->mode_help, stdout);
			return fflush(stdout) == 0 ? 0 : 1;
		}
		return command_help(c);
	}
	ret = c->fn(argc - i, argv + i);
	/* perf's rule: a failed write of stdout is an error */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pr_warn("cannot write standard output: %s", strerror(errno));
		return ret ? ret : EXIT_FAIL;
	}
	return ret;
}
