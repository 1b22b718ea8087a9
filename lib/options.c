// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <errno.h>
#include <stdbool.h>
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

static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

bool has_control_char(const char *s)
{
	for (; *s; s++)
		if (is_control(*s))
			return true;
	return false;
}

/* How much of an argv element to show: up to a '=' or a control character, so one line. */
static int shown_len(const char *s)
{
	int n = 0;

	while (s[n] && s[n] != '=' && !is_control(s[n]))
		n++;
	return n;
}

void options_getopt_error(const char *cmd, int c, char **argv)
{
	/* a long option is always the whole argv element; a short one may be in a cluster */
	const char *text = argv[optind - 1];
	int n = shown_len(text);
	bool is_long = !strncmp(text, "--", 2);

	if (c == ':' && is_long)
		pr_warn("%s: %.*s needs a value; see `ipsecperf %s --help`", cmd, n, text, cmd);
	else if (c == ':')
		pr_warn("%s: -%c needs a value; see `ipsecperf %s --help`", cmd, optopt, cmd);
	else if (is_long && optopt)
		pr_warn("%s: %.*s takes no value; see `ipsecperf %s --help`", cmd, n, text, cmd);
	else if (is_long || optopt <= ' ' || optopt >= 0x7f)
		pr_warn("%s: unknown option '%.*s'; see `ipsecperf %s --help`", cmd, n, text, cmd);
	else
		pr_warn("%s: unknown option -%c; see `ipsecperf %s --help`", cmd, optopt, cmd);
}

int options_parse(const char *cmd, const struct opt_def *defs, int argc, char **argv,
		  int (*on_opt)(int idx, const char *val, long ival, void *ctx), void *ctx)
{
	struct option lo[MAX_OPTS + 1];
	/* ':' first: a missing value is told apart from an unknown option */
	char shorts[2 * MAX_OPTS + 2] = ":"; /* GNU order: options may follow operands; -- ends them */
	size_t ns = 1;
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
			options_getopt_error(cmd, c, argv);
			return -1;
		}
		if (defs[idx].type != OPT_FLAG && has_control_char(optarg)) {
			pr_warn("%s: --%s takes no control characters (a newline, a tab, ...) in its value", cmd,
				defs[idx].name);
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
