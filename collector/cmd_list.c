// SPDX-License-Identifier: GPL-2.0
/* ipsecperf list: the scenarios, with their descriptions. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "scenario.h"

const char help_list[] =
	"usage: ipsecperf list\n"
	"\n"
	"List the scenario files (NAME.ini) in the scenario folder: the\n"
	"scenarios folder beside the program, or $IPSECPERF_SCENARIOS.\n"
	"A broken file is reported with FILE:LINE and exit status 2.\n";

int cmd_list(int argc, char **argv)
{
	struct scenario *sc;
	char err[1024];
	int n, ret = EXIT_OK;

	(void)argv;
	if (argc > 1) {
		pr_warn("list: takes no arguments; see `ipsecperf list --help`");
		return EXIT_USAGE;
	}
	if (scenario_load_all(&sc, &n, err, sizeof(err)) < 0) {
		pr_warn("list: %s", err);
		ret = EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		printf("%-18s %s\n", sc[i].name, sc[i].description);
		scenario_free(&sc[i]);
	}
	free(sc);
	return ret;
}
