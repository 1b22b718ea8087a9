/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options are declared once, in a table: getopt_long's array, the range
 * checks and the help page's option list all come from it.
 */
#ifndef IPSECPERF_OPTIONS_H
#define IPSECPERF_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

enum opt_type { OPT_FLAG, OPT_INT, OPT_STRING };

struct opt_def {
	const char *name;  /* long name */
	int short_name;    /* 0 if none */
	enum opt_type type;
	long min, max;     /* OPT_INT range */
	const char *arg;   /* metavariable for the help page */
	const char *help;
};

/*
 * Parse argv against defs. For each option found, calls on_opt(index in
 * defs, the value as a string (NULL for flags), the int value, ctx).
 * Returns the index of the first operand, or -1 after printing one line
 * about bad usage (unknown option, missing or out-of-range value).
 */
int options_parse(const char *cmd, const struct opt_def *defs, int argc, char **argv,
		  int (*on_opt)(int idx, const char *val, long ival, void *ctx), void *ctx);

/*
 * One line about what getopt_long returned as c ('?' or, with ':' first in
 * its optstring, ':'), right after it returned: "--duration needs a value",
 * "unknown option '--frob'", "--quiet takes no value". For parsers that
 * call getopt_long themselves (report, compare).
 */
void options_getopt_error(const char *cmd, int c, char **argv);

/* Whether s holds a control character (a newline, a tab, DEL ...). */
bool has_control_char(const char *s);

/* Parse a whole decimal number within [min, max]; -1 when it is not one. */
int parse_long_range(const char *s, long min, long max, long *out);

/* -f/--format of the commands that print either text or JSON. */
#define OPT_DEF_FORMAT { "format", 'f', OPT_STRING, 0, 0, "FMT", "text (default) or json" }
/* Its value: 1 for json, 0 for text; -1 (one line said) for anything else. */
int parse_format(const char *cmd, const char *val);

#endif
