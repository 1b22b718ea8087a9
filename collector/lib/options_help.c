// SPDX-License-Identifier: GPL-2.0
/* What the option tables print: the help page's option list, --list-options, the testbed check. */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "options.h"

#define HELP_WIDTH 80
#define HELP_COL 24 /* where an option's text starts */

/* The testbeds, from the registry (options.h, options_set_testbeds). */
static const struct opt_testbeds *testbeds;

void options_set_testbeds(const struct opt_testbeds *t)
{
	testbeds = t;
}

/* "netns, vm" for the marks' testbeds, in the registry's order (netns, peer, vm, vm-pair) */
static void testbed_names(char *buf, size_t len, unsigned marks, const char *sep)
{
	size_t off = 0;
	const char *name;

	buf[0] = '\0';
	for (int i = 0; testbeds && (name = testbeds->name_at(i)); i++)
		if ((marks & OPT_TESTBEDS & testbeds->mark_at(i)) && off < len)
			off += snprintf(buf + off, len - off, "%s%s", off ? sep : "", name);
}

unsigned options_testbed_mark(const char *testbed)
{
	const char *name;

	for (int i = 0; testbeds && testbed && (name = testbeds->name_at(i)); i++)
		if (!strcmp(name, testbed))
			return testbeds->mark_at(i);
	return 0;
}

/* Print text from column col, words wrapped at HELP_WIDTH; the cursor is at column at. */
static void wrap(FILE *f, const char *text, int col, int at)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (at > col && at + 1 + (int)n > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)n, p);
		at += n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void options_help(FILE *f, const struct opt_def *defs)
{
	/* a table in groups: one heading each, "options - what runs:" (tools/help2roff.awk) */
	if (!defs->group)
		fputs("\noptions:\n", f);
	for (const struct opt_def *o = defs; o->name; o++) {
		char left[96], text[512], where[64];
		int n;

		if (o->group)
			fprintf(f, "\noptions - %s:\n", o->group);

		if (o->short_name)
			n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
				     o->arg ? o->arg : "");
		else
			n = snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		snprintf(text, sizeof(text), "%s", o->help);
		if ((o->marks & OPT_TESTBEDS) && (o->marks & OPT_TESTBEDS) != OPT_TESTBEDS) {
			testbed_names(where, sizeof(where), o->marks, ", ");
			snprintf(text + strlen(text), sizeof(text) - strlen(text), " [%s]", where);
		}
		fputs(left, f);
		if (n + 2 > HELP_COL) {
			fprintf(f, "\n%*s", HELP_COL, "");
			n = HELP_COL;
		} else {
			fprintf(f, "%*s", HELP_COL - n, "");
			n = HELP_COL;
		}
		wrap(f, text, HELP_COL, n);
	}
}

void options_list(FILE *f, const struct opt_def *defs)
{
	for (const struct opt_def *o = defs; o->name; o++) {
		char where[64];

		if (o->type == OPT_T_HINT)
			continue; /* not an option of ours */
		testbed_names(where, sizeof(where), o->marks, ",");
		fprintf(f, "--%s\t%s%c\t%s\t%s\t%s\n", o->name, o->short_name ? "-" : "", o->short_name ? o->short_name : '-',
			o->arg ? o->arg : "-", *where ? where : "-",
			!(o->marks & OPT_TESTBEDS) ? "-" : (o->marks & OPT_GUEST) ? "guest" : "host");
	}
}

void options_list_choices(FILE *f, const struct opt_def *defs)
{
	for (const struct opt_def *o = defs; o->name; o++) {
		if (!o->choices)
			continue;
		fprintf(f, "--%s\t%s%c\t", o->name, o->short_name ? "-" : "", o->short_name ? o->short_name : '-');
		for (int i = 0, n = 0; o->choices[i]; i++)
			if (!(o->choices_hidden & (1u << i)))
				fprintf(f, "%s%s", n++ ? " " : "", o->choices[i]);
		fputc('\n', f);
	}
}

struct tb_check {
	const char *cmd;
	unsigned tb;
	const char *name;
};

static int check_one(const struct opt_def *d, const char *val, void *arg)
{
	struct tb_check *c = arg;
	char where[64];
	unsigned m = d->marks & OPT_TESTBEDS;
	int n = 0;

	(void)val;
	if (d->marks & c->tb)
		return 0;
	testbed_names(where, sizeof(where), d->marks, " and ");
	for (const char *w = where; (w = strstr(w, " and ")); w += 5)
		n++;
	pr_warn("%s: --%s is for the %s testbed%s, not %s", c->cmd, d->name, where, m && !n ? "" : "s", c->name);
	return -1;
}

int options_check_testbed(const char *cmd, const struct opt_def *defs, int argc, char **argv, unsigned tb,
			  const char *name)
{
	struct tb_check c = { cmd, tb, name };

	return options_each(defs, 0, argc, argv, check_one, &c);
}
