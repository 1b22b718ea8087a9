// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser of every command: GNU order (options may follow
 * operands; "--" ends them), long options with a unique prefix and
 * --name=VALUE, short ones clustered (-nq, -t5). Its own rather than
 * getopt_long's, so that it keeps no global state, leaves a "--" between
 * operands where compare needs it, and serves options_each (the vm
 * testbed's forwarding, the testbed check) with the very same grammar.
 */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "suggest.h"

const char *const opt_text_json[] = { "text", "json", NULL };

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

static bool takes_value(const struct opt_def *d)
{
	return d->type != OPT_T_FLAG && d->type != OPT_T_CB_FLAG && d->type != OPT_T_HINT;
}

/* Why "--NAME" is no option: ambiguous, or unknown with the closest name. */
static void say_unknown_long(const char *cmd, const struct opt_def *defs, const char *name, size_t len, int n)
{
	char word[SUGGEST_MAX_LEN + 1], hint[SUGGEST_MAX_LEN + 32] = "";
	struct suggest s;

	if (!n) {
		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1), name);
		suggest_init(&s, word);
		for (const struct opt_def *d = defs; d->name; d++)
			suggest_try(&s, d->name);
		if (suggest_best(&s))
			snprintf(hint, sizeof(hint), "; did you mean '--%s'?", suggest_best(&s));
	}
	pr_warn("%s: %s option '--%.*s'%s; see `ipsecperf %s --help`", cmd, n ? "ambiguous" : "unknown",
		shown_len(name), name, hint, cmd);
}

/* The option of "--NAME" (len chars of name): exact (or its alias), else a unique prefix. */
static const struct opt_def *find_long(const char *cmd, const struct opt_def *defs, const char *name, size_t len)
{
	const struct opt_def *found = NULL;
	int n = 0;

	for (const struct opt_def *d = defs; d->name; d++)
		if ((strlen(d->name) == len && !strncmp(d->name, name, len)) ||
		    (d->alias && strlen(d->alias) == len && !strncmp(d->alias, name, len)))
			return d;
	for (const struct opt_def *d = defs; d->name; d++) {
		/* another tool's name counts only whole */
		if (d->type == OPT_T_HINT || strncmp(d->name, name, len))
			continue;
		found = d;
		n++;
	}
	if (n == 1)
		return found;
	if (cmd)
		say_unknown_long(cmd, defs, name, len, n);
	return NULL;
}

/* The program's -v/--verbose (-vv, perf's habit), given after the command: how many v's, or 0. */
static int is_global(const char *arg)
{
	size_t n = strspn(arg + 1, "v");

	if (!strcmp(arg, "--verbose"))
		return 1;
	return arg[0] == '-' && n && !arg[1 + n] ? (int)n : 0;
}

static const struct opt_def *find_short(const struct opt_def *defs, char c)
{
	for (const struct opt_def *d = defs; d->name; d++)
		if (d->short_name && d->short_name == c)
			return d;
	return NULL;
}

static void say_choices(char *buf, size_t len, const char *const *ch)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; ch[i] && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : ch[i + 1] ? ", " : " or ", ch[i]);
}

/* Check and store one option's value into cfg; -1 after one line. */
static int store(const char *cmd, const struct opt_def *d, const char *val, void *cfg)
{
	char *p = (char *)cfg + d->off, *end;

	if (val && has_control_char(val)) {
		pr_warn("%s: --%s takes no control characters (a newline, a tab, ...) in its value", cmd, d->name);
		return -1;
	}
	switch (d->type) {
	case OPT_T_FLAG:
		*(bool *)p = true;
		return 0;
	case OPT_T_INT: {
		long v;

		if (parse_long_range(val, (long)d->min, (long)d->max, &v) < 0) {
			pr_warn("%s: --%s takes a whole number from %ld to %ld, not '%s'", cmd, d->name, (long)d->min,
				(long)d->max, val);
			return -1;
		}
		*(int *)p = (int)v;
		return 0;
	}
	case OPT_T_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(val, &end);
		if (end == val || *end || errno || !isfinite(v) || v < d->min || v > d->max) {
			pr_warn("%s: --%s takes a number from %g to %g, not '%s'", cmd, d->name, d->min, d->max, val);
			return -1;
		}
		*(double *)p = v;
		return 0;
	}
	case OPT_T_STR:
		*(const char **)p = val;
		return 0;
	case OPT_T_CHOICE: {
		char all[256];

		for (int i = 0; d->choices[i]; i++)
			if (!strcmp(d->choices[i], val)) {
				*(int *)p = i;
				return 0;
			}
		say_choices(all, sizeof(all), d->choices);
		if (d->say_takes)
			pr_warn("%s: --%s takes %s, not '%s'", cmd, d->name, all, val);
		else
			pr_warn("%s: --%s %s: not a %s (%s)", cmd, d->name, val, d->name, all);
		return -1;
	}
	case OPT_T_CB:
	case OPT_T_CB_FLAG:
		return d->cb(cfg, val);
	case OPT_T_HINT:
		if (d->short_name)
			pr_warn("%s: -%c, --%s: %s", cmd, d->short_name, d->name, d->help);
		else
			pr_warn("%s: --%s: %s", cmd, d->name, d->help);
		return -1;
	}
	return -1;
}

struct walk {
	const char *cmd;         /* NULL: argv was parsed before; say nothing */
	const struct opt_def *defs;
	unsigned flags;
	int (*on_opt)(const struct opt_def *d, const char *val, void *ctx);
	void *ctx;
	int *operands;           /* their indexes, in order; NULL to skip them */
	int noperands;
	int dashdash;            /* the index of the "--" that ended the options, or 0 */
};

static int usage_err(const struct walk *w, const char *fmt_long, const char *fmt_short, const char *arg, char c)
{
	if (!w->cmd)
		return -1;
	if (fmt_long)
		pr_warn(fmt_long, w->cmd, shown_len(arg), arg, w->cmd);
	else
		pr_warn(fmt_short, w->cmd, c, w->cmd);
	return -1;
}

/* "--name", "--name=value", "--name value"; returns the next index or -1. */
static int walk_long(struct walk *w, int i, int argc, char **argv)
{
	const char *a = argv[i] + 2, *eq = strchr(a, '=');
	const struct opt_def *d = find_long(w->cmd, w->defs, a, eq ? (size_t)(eq - a) : strlen(a));
	const char *val = NULL;

	if (!d)
		return -1;
	if (!takes_value(d) && eq)
		return usage_err(w, "%s: %.*s takes no value; see `ipsecperf %s --help`", NULL, argv[i], 0);
	if (takes_value(d)) {
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return usage_err(w, "%s: %.*s needs a value; see `ipsecperf %s --help`", NULL, argv[i], 0);
	}
	return w->on_opt(d, val, w->ctx) < 0 ? -1 : i + 1;
}

/* "-abc", "-t5", "-t 5"; returns the next index or -1. */
static int walk_short(struct walk *w, int i, int argc, char **argv)
{
	for (const char *p = argv[i] + 1; *p; p++) {
		const struct opt_def *d = find_short(w->defs, *p);
		const char *val = NULL;

		if (!d && (is_control(*p) || (unsigned char)*p >= 0x7f))
			return usage_err(w, "%s: unknown option '%.*s'; see `ipsecperf %s --help`", NULL, argv[i], 0);
		if (!d)
			return usage_err(w, NULL, "%s: unknown option -%c; see `ipsecperf %s --help`", NULL, *p);
		if (takes_value(d)) {
			if (p[1])
				val = p + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_err(w, NULL, "%s: -%c needs a value; see `ipsecperf %s --help`", NULL, *p);
		}
		if (w->on_opt(d, val, w->ctx) < 0)
			return -1;
		if (val)
			break;
	}
	return i + 1;
}

static int walk(struct walk *w, int argc, char **argv)
{
	int i = 1;
	bool ended = false;

	while (i < argc) {
		const char *a = argv[i];

		if (!ended && !strcmp(a, "--") && (!(w->flags & OPTS_SEPARATOR) || !w->noperands)) {
			ended = true;
			w->dashdash = i++;
			continue;
		}
		if (ended || a[0] != '-' || !a[1] || !strcmp(a, "--")) {
			if (w->operands)
				w->operands[w->noperands] = i;
			w->noperands++;
			i++;
			continue;
		}
		if (is_global(a) && !(a[1] == '-' ? find_long(NULL, w->defs, a + 2, strlen(a + 2)) : find_short(w->defs, 'v'))) {
			if (w->cmd) /* parsing, not walking an argv parsed before */
				log_verbose += is_global(a);
			i++;
			continue;
		}
		i = a[1] == '-' ? walk_long(w, i, argc, argv) : walk_short(w, i, argc, argv);
		if (i < 0)
			return -1;
	}
	return 0;
}

struct store_ctx {
	const char *cmd;
	void *cfg;
};

static int store_opt(const struct opt_def *d, const char *val, void *arg)
{
	struct store_ctx *s = arg;

	return store(s->cmd, d, val, s->cfg);
}

/* Reorder argv as getopt_long does: options (and a "--" that ended them), then the operands. */
static int partition(int argc, char **argv, const int *ops, int nops, int dashdash)
{
	char **copy = malloc((argc + 1) * sizeof(*copy));
	char *seen = calloc(argc + 1, 1);
	int n = 1;

	if (!copy || !seen) {
		free(copy);
		free(seen);
		pr_warn("out of memory");
		return -1;
	}
	for (int k = 0; k < nops; k++)
		seen[ops[k]] = 1;
	if (dashdash)
		seen[dashdash] = 1;
	for (int i = 1; i < argc; i++)
		if (!seen[i])
			copy[n++] = argv[i];
	if (dashdash)
		copy[n++] = argv[dashdash];
	for (int k = 0; k < nops; k++)
		copy[n + k] = argv[ops[k]];
	memcpy(argv + 1, copy + 1, (argc - 1) * sizeof(*argv));
	free(copy);
	free(seen);
	return n;
}

int options_parse(const char *cmd, const struct opt_def *defs, unsigned flags, int argc, char **argv, void *cfg)
{
	struct store_ctx s = { cmd, cfg };
	struct walk w = { .cmd = cmd, .defs = defs, .flags = flags, .on_opt = store_opt, .ctx = &s };
	int first;

	w.operands = malloc((argc + 1) * sizeof(*w.operands));
	if (!w.operands) {
		pr_warn("out of memory");
		return -1;
	}
	first = walk(&w, argc, argv) < 0 ? -1 : partition(argc, argv, w.operands, w.noperands, w.dashdash);
	free(w.operands);
	return first;
}

int options_each(const struct opt_def *defs, unsigned flags, int argc, char **argv,
		 int (*fn)(const struct opt_def *d, const char *val, void *ctx), void *ctx)
{
	struct walk w = { .cmd = NULL, .defs = defs, .flags = flags, .on_opt = fn, .ctx = ctx };

	return walk(&w, argc, argv);
}
