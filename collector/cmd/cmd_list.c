// SPDX-License-Identifier: GPL-2.0
/* ipsecperf list: the scenarios, with their descriptions. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "scenario.h"

static const char help_list[] =
	"usage: ipsecperf list [-f FMT] [--scenario-dir DIR]\n"
	"\n"
	"List the scenario files (NAME.ini) in the scenario folder: --scenario-dir\n"
	"DIR, else $IPSECPERF_SCENARIOS, else the scenarios folder beside the\n"
	"program (share/ipsecperf/scenarios of its install).\n"
	"A broken file is reported with FILE:LINE.\n"
	"\n"
	"With -f json: {\"folder\": DIR, \"scenarios\": [{\"name\", \"description\",\n"
	"\"file\", \"load\"}, ...]}.\n";

struct list_args {
	int json;
};

static int opt_scenario_dir(void *arg, const char *val)
{
	(void)arg;
	return scenario_dir_option("list", val);
}

static const struct opt_def list_opts[] = {
	OPT_FORMAT(struct list_args, json),
	OPT_CB("scenario-dir", 0, opt_scenario_dir, "DIR", "the scenario folder (default: $IPSECPERF_SCENARIOS, or beside the program)"),
	OPT_END,
};

static int print_json(const struct scenario *sc, int n)
{
	json_t *a = json_array(), *o;
	int err;

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "name", sc[i].name, "description",
						   sc[i].description, "file", sc[i].path, "load", sc[i].load));
	o = json_pack("{s:s, s:o}", "folder", scenario_dir(), "scenarios", a);
	err = !o || json_dumpf(o, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF;
	json_decref(o);
	return err ? -1 : 0;
}

static int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct scenario *sc;
	char err[1024];
	int n, ret = EXIT_OK;
	int first = options_parse("list", list_opts, 0, argc, argv, &a);
	int json = a.json;

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		pr_warn("list: takes no arguments, not '%s'; see `ipsecperf list --help`", argv[first]);
		return EXIT_USAGE;
	}
	if (scenario_load_all(&sc, &n, err, sizeof(err)) < 0) {
		pr_warn("list: %s", err);
		ret = EXIT_USAGE;
	}
	if (json && print_json(sc, n) < 0)
		ret = EXIT_FAIL;
	for (int i = 0; i < n; i++) {
		if (!json)
			printf("%-18s %s\n", sc[i].name, sc[i].description);
		scenario_free(&sc[i]);
	}
	free(sc);
	return ret;
}

const struct command command_list = {
	.name = "list", .fn = cmd_list, .help = help_list, .opts = list_opts,
	.exit_status = "  0   listed\n  2   bad usage, or a broken scenario file\n",
	.examples = "  ipsecperf list\n  ipsecperf list -f json --scenario-dir ./my-scenarios\n",
	.summary = "list the scenarios with their descriptions",
};
