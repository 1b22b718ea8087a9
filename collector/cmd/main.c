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
#include "suggest.h"
#include "testbeds.h"
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

static const struct command command_help_ = {
	.name = "help", .fn = cmd_help, .summary = "print a command's help page", .help = help_help,
	.exit_status = "  0   printed\n  2   no such command\n",
	.examples = "  ipsecperf help run\n  ipsecperf --help compare     # the same as `ipsecperf help compare`\n",
};
static const struct command command_version = {
	.name = "version", .fn = cmd_version, .summary = "print the version", .help = help_version,
	.exit_status = "  0   printed\n", .examples = "  ipsecperf --version\n",
};

static const struct command *const commands[] = {
	&command_run, &command_list, &command_cleanup, &command_doctor, &command_kernel, &command_guest,
	&command_peer_agent, &command_report, &command_compare, &command_probe, &command_bisect, &command_bisect_step, &command_help_,
	&command_version, NULL,
};

static const struct command *command_find(const char *name)
{
	for (const struct command *const *c = commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/* "; did you mean 'run'?" for a mistyped command, or "" */
static void command_hint(const char *name, char *buf, size_t len)
{
	struct suggest s;

	suggest_init(&s, name);
	for (const struct command *const *c = commands; *c; c++)
		if (!(*c)->hidden)
			suggest_try(&s, (*c)->name);
	suggest_hint(&s, buf, len);
}

int command_help(const struct command *cmd)
{
	fputs(cmd->help, stdout);
	if (cmd->opts)
		options_help(stdout, cmd->opts);
	if (cmd->help_end) {
		fputc('\n', stdout);
		fputs(cmd->help_end, stdout);
	}
	/* every page's last two headings, EXIT STATUS and EXAMPLES in its man page */
	if (cmd->exit_status)
		printf("\nexit status:\n%s", cmd->exit_status);
	if (cmd->examples)
		printf("\nexamples:\n%s", cmd->examples);
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

static int command_wants_help(int argc, char **argv)
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
		      "  -v, --verbose   more messages (-vv: the VM guest's too); also\n"
		      "                  taken after the command\n"
		      "  -h, --help      this page; --help COMMAND: the command's page\n"
		      "  --version       print the version\n", f);
	fprintf(f, "\ncommands:\n");
	for (const struct command *const *c = commands; *c; c++)
		if (!(*c)->hidden)
			fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n`ipsecperf help COMMAND` or `ipsecperf COMMAND --help` for its page,\n"
		   "with each command's exit statuses. Docs: docs/user-guide.md.\n");
	if (full)
		fputs("\nexit status:\n"
		      "  0   done: every run ok or skipped, no regression\n"
		      "  1   a run failed, or compare found a regression\n"
		      "  2   bad usage or input, nothing changed\n"
		      "  128+N  stopped by signal N, the host restored\n"
		      "(each command's page says its own)\n"
		      "\nexamples:\n"
		      "  ipsecperf doctor\n"
		      "  ipsecperf run && ipsecperf report --summary\n"
		      "  ipsecperf compare results/BASE results/NEW\n", f);
	if (full)
		fputs("\nenvironment:\n"
		      "  IPSECPERF_SCENARIOS    the scenario folder (default: scenarios/ beside\n"
		      "                         the program, or share/ipsecperf/scenarios of\n"
		      "                         its install); run and list --scenario-dir too\n"
		      "  IPSECPERF_TEMPLATES    the chart templates' folder (likewise)\n"
		      "  IPSECPERF_CACHE        the VM testbed's kernels\n"
		      "                         (default /var/cache/ipsecperf/kernels)\n"
		      "  IPSECPERF_BISECT_CACHE bisect's kernels, one per tree\n"
		      "                         (default /var/cache/ipsecperf/bisect-kernels)\n"
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

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return command_help(&command_help_);
	if (argc < 2) {
		usage(stdout, true);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	c = command_find(argv[1]);
	if (!c) {
		char hint[64];

		command_hint(argv[1], hint, sizeof(hint));
		pr_warn("help: no command '%s'%s; `ipsecperf help` lists them", argv[1], hint);
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
	testbeds_register();
	for (; i < argc && argv[i][0] == '-'; i++) {
		size_t nv = strspn(argv[i] + 1, "v");

		if (nv && !argv[i][1 + nv]) { /* -v, -vv (perf's habit) */
			log_verbose += (int)nv;
		} else if (!strcmp(argv[i], "--verbose")) {
			log_verbose++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			/* `ipsecperf --help run` as `ipsecperf help run` */
			if (i + 1 < argc)
				return cmd_help(argc - i, argv + i);
			usage(stdout, true);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			return cmd_version(0, NULL);
		} else {
			const struct command *later = NULL;

			for (int j = i + 1; j < argc && !later; j++)
				later = command_find(argv[j]);
			pr_warn("unknown option '%s' before the command; a command's own options go after it: ipsecperf %s %s (see `ipsecperf help%s%s`)",
				argv[i], later ? later->name : "COMMAND", argv[i], later ? " " : "", later ? later->name : "");
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr, false);
		return EXIT_USAGE;
	}
	c = command_find(argv[i]);
	if (!c) {
		char hint[64];

		command_hint(argv[i], hint, sizeof(hint));
		pr_warn("'%s' is not a command%s; see `ipsecperf help`", argv[i], hint);
		return EXIT_USAGE;
	}
	if (c->mode_flag && command_has(argc - i, argv + i, c->mode_flag))
		c = c->mode;
	if (c->fn != cmd_help && command_wants_help(argc - i, argv + i))
		return command_help(c);
	/* hidden: the option table, one option a line, for scripts and tests */
	if (command_has(argc - i, argv + i, "--list-options")) {
		if (c->opts)
			options_list(stdout, c->opts);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	/* hidden: the values of the options that take a choice, for the completion */
	if (command_has(argc - i, argv + i, "--list-choices")) {
		if (c->opts)
			options_list_choices(stdout, c->opts);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	ret = c->fn(argc - i, argv + i);
	/* perf's rule: a failed write of stdout is an error */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pr_warn("cannot write standard output: %s", strerror(errno));
		return ret ? ret : EXIT_FAIL;
	}
	return ret;
}
