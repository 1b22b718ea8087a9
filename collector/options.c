// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define MAX_OPTS 64

int parse_long_range(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int options_parse(const char *cmd, const struct opt_def *defs, int argc, char **argv,
		  int (*on_opt)(int idx, const char *val, long ival, void *ctx), void *ctx)
{
	struct option lo[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 1] = ""; /* GNU order: options may follow operands; -- ends them */
	size_t ns = 0;
	int n = 0, c, li;

	for (; defs[n].name && n < MAX_OPTS; n++) {
		lo[n] = (struct option){ defs[n].name,
					 defs[n].type == OPT_FLAG ? no_argument : required_argument,
					 NULL, 1000 + n };
		if (defs[n].short_name) {
			shorts[ns++] = (char)defs[n].short_name;
			if (defs[n].type != OPT_FLAG)
				shorts[ns++] = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, &li)) != -1) {
		int idx = -1;
		long ival = 0;

		if (c >= 1000) {
			idx = c - 1000;
		} else if (c != '?' && c != ':') {
			for (int i = 0; i < n; i++)
				if (defs[i].short_name == c)
					idx = i;
		}
		if (idx < 0) {
			if (optopt && strchr(shorts, optopt))
				pr_warn("%s: option -%c needs a value; see `ipsecperf %s --help`", cmd, optopt, cmd);
			else if (optopt)
				pr_warn("%s: unknown option -%c; see `ipsecperf %s --help`", cmd, optopt, cmd);
			else
				pr_warn("%s: unknown option or missing value in '%s'; see `ipsecperf %s --help`",
					cmd, argv[optind - 1], cmd);
			return -1;
		}
		if (defs[idx].type == OPT_INT &&
		    parse_long_range(optarg, defs[idx].min, defs[idx].max, &ival) < 0) {
			pr_warn("%s: --%s takes a whole number from %ld to %ld, not '%s'", cmd,
				defs[idx].name, defs[idx].min, defs[idx].max, optarg);
			return -1;
		}
		if (on_opt(idx, defs[idx].type == OPT_FLAG ? NULL : optarg, ival, ctx) < 0)
			return -1;
	}
	return optind;
}

int parse_format(const char *cmd, const char *val)
{
	if (!strcmp(val, "json"))
		return 1;
	if (!strcmp(val, "text"))
		return 0;
	pr_warn("%s: --format %s: not a format (text or json)", cmd, val);
	return -1;
}
