// SPDX-License-Identifier: GPL-2.0
/* ipsecperf probe --list: which counters this kernel gives, and how. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "probes.h"

static const char help_probe[] =
	"usage: ipsecperf probe --list [-f FMT | --json]\n"
	"\n"
	"Load the probe set, attach every probe this kernel allows (to every\n"
	"device, for a moment) and print, counter by counter, how it attaches:\n"
	"a raw tracepoint, a kprobe on which symbol, a call-site kprobe at which\n"
	"symbol+offset, or \"unavailable: <why>\". Nothing on the host changes;\n"
	"the ESP counters need the esp4 module, which only an ESP scenario loads,\n"
	"so on a host without it loaded they show as unavailable here and attach\n"
	"during `ipsecperf run`. docs/probes.md says what each counter counts.\n"
	"\n"
	"Needs root (BPF, /proc/kallsyms addresses, /proc/kcore).\n"
	"\n"
	"With -f json: {COUNTER: {\"available\", \"symbol\", \"reason\"}, ...}, the\n"
	"symbol (how it attaches) when available, else the reason; the other null.\n";

struct probe_args {
	bool list, json_flag;
	int format;
};

static const struct opt_def probe_opts[] = {
	OPT_FLAG("list", 'l', struct probe_args, list, "list the counters and how each attaches here"),
	OPT_FLAG("json", 0, struct probe_args, json_flag, "print JSON instead of a table (-f json)"),
	OPT_FORMAT(struct probe_args, format),
	OPT_END,
};

static int cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	int first = options_parse("probe", probe_opts, 0, argc, argv, &a);

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc || !a.list) {
		pr_warn("probe: give --list; see `ipsecperf probe --help`");
		return EXIT_USAGE;
	}
	if (geteuid() != 0)
		pr_warn("probe: not root: BPF and kernel addresses are likely refused; try sudo");
	return probes_list(stdout, a.json_flag || a.format == 1) < 0 ? EXIT_FAIL : EXIT_OK;
}

const struct command command_probe = {
	.name = "probe", .fn = cmd_probe, .help = help_probe, .opts = probe_opts,
	.exit_status = "  0   listed\n  1   the probes could not be opened\n  2   bad usage\n",
	.examples = "  ipsecperf probe --list\n  ipsecperf probe --list -f json\n",
	.summary = "list the kernel counters this kernel gives and how each attaches",
};
