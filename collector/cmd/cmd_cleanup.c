// SPDX-License-Identifier: GPL-2.0
/* ipsecperf cleanup: undo what a killed run left in its journal. */
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "journal.h"
#include "log.h"

static const char help_cleanup[] =
	"usage: ipsecperf cleanup [--dry-run]\n"
	"\n"
	"A run journals every change it makes to the host before making it\n"
	"(in /run/ipsecperf/journal-PID-START.jsonl; changes on the peer\n"
	"testbed's other host in /var/lib/ipsecperf/journal, which outlives a\n"
	"reboot of this host) and undoes it at the end, also after Ctrl-C or\n"
	"SIGTERM. A run killed with SIGKILL cannot: this command undoes, newest\n"
	"first, what the journals of dead runs hold. Journals of runs still\n"
	"going are left alone. It undoes under the host-wide lock, waiting while\n"
	"a run changes what the whole host shares (modules, shared devices).\n"
	"\n"
	"A journal folder must be root's with mode 0700, and a journal a regular\n"
	"file owned by root: anything else is refused (a journal is run as\n"
	"root). A line that cannot be read is reported and its journal kept.\n";

struct cleanup_args {
	bool dry;
};

static const struct opt_def cleanup_opts[] = {
	OPT_FLAG("dry-run", 'n', struct cleanup_args, dry, "print what would be undone; undo nothing"),
	OPT_END,
};

static int cmd_cleanup(int argc, char **argv)
{
	struct cleanup_args a = { 0 };
	int first = options_parse("cleanup", cleanup_opts, 0, argc, argv, &a);
	bool dry = a.dry;
	int found, failures;

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		pr_warn("cleanup: takes no arguments; see `ipsecperf cleanup --help`");
		return EXIT_USAGE;
	}
	if (!dry && geteuid() != 0) {
		pr_warn("cleanup: needs root; try sudo");
		return EXIT_USAGE;
	}
	failures = journal_cleanup_stale(dry, &found);
	if (failures < 0)
		return EXIT_USAGE;
	if (!found && !failures)
		printf("nothing to clean up in %s\n", journal_dir());
	else if (!dry)
		printf("undid %d journal(s)%s\n", found, failures ? ", with failures (see above)" : "");
	return failures ? EXIT_FAIL : EXIT_OK;
}

const struct command command_cleanup = {
	.name = "cleanup", .fn = cmd_cleanup, .help = help_cleanup, .opts = cleanup_opts,
	.exit_status = "  0   all undone, or nothing to undo\n"
		       "  1   something could not be undone (said above; its journal kept)\n"
		       "  2   bad usage, or a journal folder refused (nothing done)\n",
	.examples = "  ipsecperf cleanup -n        # what it would undo\n  ipsecperf cleanup\n",
	.summary = "undo the host changes of a run that was killed",
};
