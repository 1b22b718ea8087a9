// SPDX-License-Identifier: GPL-2.0
/* ipsecperf probe --list: which counters this kernel gives, and how. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "probes.h"

const char help_probe[] =
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
	"Needs root (BPF, /proc/kallsyms addresses, /proc/kcore). Exit status:\n"
	"0 listed, 2 bad usage.\n"
	"\n"
	"With -f json: {COUNTER: {\"available\", \"symbol\", \"reason\"}, ...}, the\n"
	"symbol (how it attaches) when available, else the reason; the other null.\n";

enum { O_LIST, O_JSON, O_FORMAT };

const struct opt_def probe_opts[] = {
	[O_LIST] = { "list", 'l', OPT_FLAG, 0, 0, NULL, "list the counters and how each attaches here" },
	[O_JSON] = { "json", 0, OPT_FLAG, 0, 0, NULL, "print JSON instead of a table (-f json)" },
	[O_FORMAT] = OPT_DEF_FORMAT,
	{ NULL, 0, 0, 0, 0, NULL, NULL },
};

struct probe_args {
	bool list, json;
};

static int on_probe_opt(int idx, const char *val, long ival, void *arg)
{
	struct probe_args *a = arg;

	(void)val;
	(void)ival;
	int json;

	if (idx == O_LIST)
		a->list = true;
	else if (idx == O_JSON)
		a->json = true;
	else if ((json = parse_format("probe", val)) < 0)
		return -1;
	else
		a->json = json;
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	int first = options_parse("probe", probe_opts, argc, argv, on_probe_opt, &a);

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc || !a.list) {
		pr_warn("probe: give --list; see `ipsecperf probe --help`");
		return EXIT_USAGE;
	}
	if (geteuid() != 0)
		pr_warn("probe: not root: BPF and kernel addresses are likely refused; try sudo");
	return probes_list(stdout, a.json) < 0 ? EXIT_FAIL : EXIT_OK;
}
