/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options are declared once, in a table bound to the fields of the
 * command's own struct by offset (xdp-tools' DEFINE_OPTION): one line per
 * option makes the parsing, the range checks, the help page's option list,
 * `COMMAND --list-options` and, for run, the testbeds it works on and
 * whether the vm testbed's guest gets it.
 *
 *	struct args { int top; bool json; const char *base; };
 *	static const struct opt_def opts[] = {
 *		OPT_INT("top", 0, struct args, top, 1, 10000, "N", "rows (default 15)"),
 *		OPT_FLAG("json", 0, struct args, json, "print JSON"),
 *		OPT_STR("base", 0, struct args, base, "SCENARIO", "the base"),
 *		OPT_END,
 *	};
 *
 * A field of the wrong type is a compile error (_Generic). The parser takes
 * GNU order: options may follow operands, "--" ends them. The program's
 * own -v/--verbose is taken among any command's options too.
 *
 * A façade of options.c (the parser) and options_help.c (what the tables
 * print, and the testbed check).
 */
#ifndef IPSECPERF_OPTIONS_H
#define IPSECPERF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_T_FLAG,    /* bool field set to true */
	OPT_T_INT,     /* int field, a whole number in [min, max] */
	OPT_T_DOUBLE,  /* double field, a number in [min, max] */
	OPT_T_STR,     /* const char * field, the value as given */
	OPT_T_CHOICE,  /* int field, the index of the value in choices */
	OPT_T_CB,      /* cb(cfg, value): special parsing (repeatable, checked) */
	OPT_T_CB_FLAG, /* cb(cfg, NULL): a flag with a side effect */
	OPT_T_HINT,    /* another tool's name (iperf3's -c): refused, saying what to use here */
};

/*
 * Marks of run's options. The testbeds an option works on: elsewhere run
 * refuses it at parse time (options_check_testbed). OPT_GUEST: on the vm
 * testbeds (vm, vm-pair), the option goes to the (sending) guest's run as given; without it the host
 * handles it (the output, the kernels, the repeats).
 */
#define OPT_NETNS 0x1u
#define OPT_PEER 0x2u
#define OPT_VM 0x4u
#define OPT_VMPAIR 0x10u
#define OPT_TESTBEDS (OPT_NETNS | OPT_PEER | OPT_VM | OPT_VMPAIR)
#define OPT_GUEST 0x8u

struct opt_def {
	const char *name;  /* long name; NULL ends the table */
	int short_name;    /* 0 if none */
	enum opt_type type;
	size_t off;        /* of the field in the command's struct */
	double min, max;   /* OPT_T_INT, OPT_T_DOUBLE */
	/*
	 * The values it takes, NULL-terminated: OPT_T_CHOICE parses by them;
	 * on an OPT_T_STR they are listed only (the command checks the value).
	 * `COMMAND --list-choices` prints them, for the completion.
	 */
	const char *const *choices;
	unsigned choices_hidden; /* bit i: choice i is another name of one before it, taken, not offered */
	bool say_takes;    /* a bad choice: "--NAME takes a, b or c, not 'x'" (run's wording) */
	int (*cb)(void *cfg, const char *val); /* -1 after one line */
	const char *arg;   /* metavariable for the help page */
	const char *help;
	unsigned marks;    /* OPT_NETNS ... OPT_GUEST */
	const char *alias; /* another long name, taken only whole (run's --time, iperf3's name) */
	const char *group; /* the help page's heading over this option and the next, or NULL */
};

#define OPT_FIELD_(st, f, T) _Generic(((st *)0)->f, T: offsetof(st, f))

/* The trailing arguments are more designated initializers: .marks = ... */
#define OPT_FLAG(n, s, st, f, h, ...) \
	{ .name = n, .short_name = s, .type = OPT_T_FLAG, .off = OPT_FIELD_(st, f, bool), .help = h, __VA_ARGS__ }
#define OPT_INT(n, s, st, f, lo, hi, a, h, ...)                                                              \
	{ .name = n, .short_name = s, .type = OPT_T_INT, .off = OPT_FIELD_(st, f, int), .min = lo, .max = hi, \
	  .arg = a, .help = h, __VA_ARGS__ }
#define OPT_DOUBLE(n, s, st, f, lo, hi, a, h, ...)                                                              \
	{ .name = n, .short_name = s, .type = OPT_T_DOUBLE, .off = OPT_FIELD_(st, f, double), .min = lo, .max = hi, \
	  .arg = a, .help = h, __VA_ARGS__ }
#define OPT_STR(n, s, st, f, a, h, ...)                                                                  \
	{ .name = n, .short_name = s, .type = OPT_T_STR, .off = OPT_FIELD_(st, f, const char *), .arg = a, \
	  .help = h, __VA_ARGS__ }
/* ch: (const char *const[]){ "text", "json", NULL }; the field gets the index */
#define OPT_CHOICE(n, s, st, f, ch, a, h, ...)                                                               \
	{ .name = n, .short_name = s, .type = OPT_T_CHOICE, .off = OPT_FIELD_(st, f, int), .choices = ch, \
	  .arg = a, .help = h, __VA_ARGS__ }
#define OPT_CB(n, s, fn, a, h, ...) \
	{ .name = n, .short_name = s, .type = OPT_T_CB, .cb = fn, .arg = a, .help = h, __VA_ARGS__ }
#define OPT_CB_FLAG(n, s, fn, h, ...) \
	{ .name = n, .short_name = s, .type = OPT_T_CB_FLAG, .cb = fn, .help = h, __VA_ARGS__ }
/*
 * Another tool's option, taken whole only: given, it is refused (exit 2)
 * with h, which says what to use here. Listed on the help page, never by
 * --list-options (so neither completed nor checked per testbed).
 */
#define OPT_HINT(n, s, h, ...) { .name = n, .short_name = s, .type = OPT_T_HINT, .help = h, __VA_ARGS__ }
#define OPT_END { .name = NULL }

/* -f/--format of the commands that print either text or JSON: 0 text, 1 json. */
extern const char *const opt_text_json[];
#define OPT_FORMAT(st, f) OPT_CHOICE("format", 'f', st, f, opt_text_json, "FMT", "text (default) or json")

/*
 * options_parse's flags. OPTS_SEPARATOR: a "--" after an operand is an
 * operand itself (compare's BASE... -- NEW...) and options may follow it;
 * a "--" before any operand still ends the options.
 */
#define OPTS_SEPARATOR 0x1u

/*
 * Parse argv[1..argc) against defs, storing into cfg. argv is reordered as
 * getopt_long does: the options first, then the operands in their order.
 * Returns the index of the first operand, or -1 after printing one line
 * about bad usage (unknown option, missing, bad or out-of-range value).
 */
int options_parse(const char *cmd, const struct opt_def *defs, unsigned flags, int argc, char **argv, void *cfg);

/*
 * The options argv holds (parsed before, so valid), in order, without
 * storing them: fn(def, value or NULL for a flag, ctx). Stops early and
 * returns -1 when fn returns a negative value; else 0.
 */
int options_each(const struct opt_def *defs, unsigned flags, int argc, char **argv,
		 int (*fn)(const struct opt_def *d, const char *val, void *ctx), void *ctx);

/*
 * The option list of a help page: "options:" and one item per option,
 * wrapped to fit 80 columns. For run, each option that does not work on
 * every testbed says where it does.
 */
void options_help(FILE *f, const struct opt_def *defs);

/* One line per option, tab-separated, for scripts and tests: name, short, arg, testbeds, guest|host. */
void options_list(FILE *f, const struct opt_def *defs);

/*
 * One line per option that has choices, tab-separated: name, short, the
 * choices offered (space-separated). The hidden --list-choices; the bash
 * completion reads it.
 */
void options_list_choices(FILE *f, const struct opt_def *defs);

/*
 * The testbeds' names by mark and marks by name, from the command layer's
 * registry (collector/testbed/testbeds.c, which this layer cannot see; main()
 * gives them first). Until given, no testbed is known: options_testbed_mark()
 * says 0 and the help and --list-options name no testbeds.
 */
struct opt_testbeds {
	const char *(*name_at)(int i); /* the registry's i-th testbed, in its order; NULL past the last */
	unsigned (*mark_at)(int i);    /* its mark (two testbeds may share one: they take the same options) */
};
void options_set_testbeds(const struct opt_testbeds *t);

/* The testbed mark of a --testbed value ("netns" -> OPT_NETNS); 0 if unknown. */
unsigned options_testbed_mark(const char *testbed);

/*
 * Every option of argv (parsed with defs) works on the testbed name, whose
 * mark is tb? 0, or -1 after one line naming the option and the testbed.
 */
int options_check_testbed(const char *cmd, const struct opt_def *defs, int argc, char **argv, unsigned tb,
			  const char *name);

/* Whether s holds a control character (a newline, a tab, DEL ...). */
bool has_control_char(const char *s);

/* Parse a whole decimal number within [min, max]; -1 when it is not one. */
int parse_long_range(const char *s, long min, long max, long *out);

#endif
