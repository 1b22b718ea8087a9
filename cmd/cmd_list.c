// SPDX-License-Identifier: GPL-2.0
/* ipsecperf list: the scenarios, with their descriptions. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "scenario.h"

const char help_list[] =
	"usage: ipsecperf list [-f FMT] [--scenario-dir DIR]\n"
	"\n"
	"List the scenario files (NAME.ini) in the scenario folder: --scenario-dir\n"
	"DIR, else $IPSECPERF_SCENARIOS, else the scenarios folder beside the\n"
	"program (share/ipsecperf/scenarios of its install).\n"
	"A broken file is reported with FILE:LINE and exit status 2.\n"
	"\n"
	"With -f json: {\"folder\": DIR, \"scenarios\": [{\"name\", \"description\",\n"
	"\"file\", \"load\"}, ...]}.\n";

enum { O_FORMAT, O_SCENARIO_DIR };

const struct opt_def list_opts[] = {
	[O_FORMAT] = OPT_DEF_FORMAT,
	[O_SCENARIO_DIR] = OPT_DEF_SCENARIO_DIR,
	{ NULL, 0, 0, 0, 0, NULL, NULL },
};

static int on_list_opt(int idx, const char *val, long ival, void *arg)
{
	int *json = arg;

	(void)ival;
	if (idx == O_FORMAT)
		return (*json = parse_format("list", val)) < 0 ? -1 : 0;
	return scenario_dir_option("list", val);
}

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

int cmd_list(int argc, char **argv)
{
	struct scenario *sc;
	char err[1024];
	int n, json = 0, ret = EXIT_OK;
	int first = options_parse("list", list_opts, argc, argv, on_list_opt, &json);

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
