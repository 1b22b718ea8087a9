// SPDX-License-Identifier: GPL-2.0
/*
 * compare -f junit: JUnit XML for CI systems (Jenkins, GitLab, GitHub's
 * test reporters). The shape is the one Jenkins' xunit plugin validates
 * (junit-10.xsd): testsuites > testsuite > testcase, with failure, error,
 * skipped and system-out. One testsuite says whether the sides are
 * comparable (a testcase per provenance field: an error when a field
 * differs and was not allowed, skipped when it was not recorded); then one
 * testsuite per kernel pair, a testcase per scenario and selected metric:
 * a regression is a failure with the figures, a gate that cannot reach
 * significance is skipped with the reason. Every string is escaped (html.c's
 * xml_esc_attr, the SVG pictures' escaper): names come from results
 * directories.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "html.h"
#include "provenance.h"
#include "report.h"
#include "summary.h"

/* <name attr="value" ...> with escaped values; attrs end with NULL. */
static void tag(FILE *f, int indent, const char *name, bool close, const char *const *attrs)
{
	fprintf(f, "%*s<%s", indent, "", name);
	for (; attrs && attrs[0]; attrs += 2) {
		fprintf(f, " %s=\"", attrs[0]);
		xml_esc_attr(f, attrs[1]);
		fputc('"', f);
	}
	fputs(close ? "/>\n" : ">\n", f);
}

#define ATTRS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* <name message="msg">body</name> */
static void element(FILE *f, int indent, const char *name, const char *type, const char *msg,
		    const char *body)
{
	fprintf(f, "%*s<%s", indent, "", name);
	if (type)
		fprintf(f, " type=\"%s\"", type);
	if (msg) {
		fputs(" message=\"", f);
		xml_esc_attr(f, msg);
		fputc('"', f);
	}
	if (!body) {
		fputs("/>\n", f);
		return;
	}
	fputc('>', f);
	xml_esc_attr(f, body);
	fprintf(f, "</%s>\n", name);
}

static void figures(const struct pair_row *r, const struct compare_opts *o, char *buf, size_t len)
{
	char name[160], bm[32], nm[32], pm[16], pw[16], cb[16] = "-", cn[16] = "-", ch[32] = "-";
	int d = fmt_decimals(r->v.base.median);
	const char *dir = compare_direction(r);

	if (!isnan(r->v.base.cv))
		snprintf(cb, sizeof(cb), "%.1f%%", 100 * r->v.base.cv);
	if (!isnan(r->v.new.cv))
		snprintf(cn, sizeof(cn), "%.1f%%", 100 * r->v.new.cv);
	if (!isnan(r->v.change))
		snprintf(ch, sizeof(ch), "%+.2f%%", r->v.change);
	snprintf(buf, len,
		 "%s %s: base median %s %s (n %d, CV %s), new median %s %s (n %d, CV %s), change %s (%s for this metric), p %s (Mann-Whitney U), p %s (Welch's t); the gate: worse by more than %g%% with p < %g (%s)",
		 r->scenario, metric_name(&r->m, name, sizeof(name)), fmt_num(bm, sizeof(bm), r->v.base.median, d),
		 metric_unit(&r->m), r->v.base.n, cb, fmt_num(nm, sizeof(nm), r->v.new.median, d),
		 metric_unit(&r->m), r->v.new.n, cn,
		 ch, dir ? dir : "no change", compare_fmt_p(pm, sizeof(pm), r->v.p_mw),
		 compare_fmt_p(pw, sizeof(pw), r->v.p_welch), o->threshold, o->alpha, compare_test_name(o->test));
}

static void suite_head(FILE *f, const char *name, int tests, int failures, int errors, int skipped)
{
	char t[16], fl[16], e[16], s[16];

	snprintf(t, sizeof(t), "%d", tests);
	snprintf(fl, sizeof(fl), "%d", failures);
	snprintf(e, sizeof(e), "%d", errors);
	snprintf(s, sizeof(s), "%d", skipped);
	tag(f, 2, "testsuite", false,
	    ATTRS("name", name, "tests", t, "failures", fl, "errors", e, "skipped", s, "time", "0"));
}

/* The comparability suite: a testcase per provenance field, the notes, the directories. */
static void suite_comparable(FILE *f, const struct comparison *c)
{
	int errors = 0, skipped = 0;
	char line[2048];

	for (int fld = 0; fld < PROV_NFIELDS; fld++) {
		const struct note *m = notes_find(c->notes, "mismatch", prov_field_name(fld));

		errors += m && !m->allowed;
		skipped += !m && notes_find(c->notes, "not_recorded", prov_field_name(fld));
	}
	suite_head(f, "ipsecperf compare: comparability", PROV_NFIELDS, 0, errors, skipped);
	fprintf(f, "    <properties>\n");
	for (int pass = 0; pass < 2; pass++) {
		const struct side *s = pass ? c->n : c->b;

		for (int i = 0; i < s->nsrc; i++) {
			compare_dir_line(s, i, line, sizeof(line));
			tag(f, 6, "property", true, ATTRS("name", s->name, "value", s->src[i].dir));
			tag(f, 6, "property", true, ATTRS("name", pass ? "new.provenance" : "base.provenance", "value", line));
		}
	}
	fprintf(f, "    </properties>\n");
	for (int fld = 0; fld < PROV_NFIELDS; fld++) {
		const char *name = prov_field_name(fld);
		const struct note *m = notes_find(c->notes, "mismatch", name);
		const struct note *u = notes_find(c->notes, "not_recorded", name);

		if (!m && !u) {
			tag(f, 4, "testcase", true, ATTRS("classname", "comparability", "name", name, "time", "0"));
			continue;
		}
		tag(f, 4, "testcase", false, ATTRS("classname", "comparability", "name", name, "time", "0"));
		if (m && !m->allowed)
			element(f, 6, "error", "mismatch", m->text, "not compared: allow this difference with --allow-mismatch");
		else if (m)
			element(f, 6, "system-out", NULL, NULL, m->text);
		else
			element(f, 6, "skipped", NULL, u->text, NULL);
		fprintf(f, "    </testcase>\n");
	}
	line[0] = '\0';
	for (int i = 0; i < c->notes->n; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s: %s\n", c->notes->v[i].code,
			 c->notes->v[i].text);
	if (*line)
		element(f, 4, "system-out", NULL, NULL, line);
	fprintf(f, "  </testsuite>\n");
}

/* One suite per kernel pair: rows [from, to). */
static void suite_kernels(FILE *f, const struct comparison *c, int from, int to)
{
	int tests = 0, failures = 0, skipped = 0;
	char name[400], ks[400], fig[1024], msg[600], mname[160];

	for (int i = from; i < to; i++) {
		tests += c->rows[i].selected;
		failures += c->rows[i].selected && c->rows[i].v.regression;
		skipped += c->rows[i].selected && !c->rows[i].decidable;
	}
	snprintf(name, sizeof(name), "ipsecperf compare %s", compare_kernels(&c->rows[from], ks, sizeof(ks)));
	suite_head(f, name, tests, failures, 0, skipped);
	for (int i = from; i < to; i++) {
		const struct pair_row *r = &c->rows[i];
		const char *mn;
		char p[16];

		if (!r->selected)
			continue;
		mn = metric_name(&r->m, mname, sizeof(mname));
		tag(f, 4, "testcase", false, ATTRS("classname", r->scenario, "name", mn, "time", "0"));
		figures(r, c->o, fig, sizeof(fig));
		if (r->v.regression) {
			snprintf(msg, sizeof(msg), "%s %s %+.1f%% (p %s): worse by more than %g%% with p < %g",
				 r->scenario, mn, r->v.change, compare_fmt_p(p, sizeof(p), r->v.p), c->o->threshold,
				 c->o->alpha);
			element(f, 6, "failure", "regression", msg, fig);
		} else if (!r->decidable) {
			element(f, 6, "skipped", NULL, r->undecided, NULL);
			element(f, 6, "system-out", NULL, NULL, fig);
		} else {
			element(f, 6, "system-out", NULL, NULL, fig);
		}
		fprintf(f, "    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n");
}

int compare_junit(FILE *f, const struct comparison *c)
{
	int tests = PROV_NFIELDS, failures = 0, errors = 0;
	char t[16], fl[16], e[16];

	for (int fld = 0; fld < PROV_NFIELDS; fld++) {
		const struct note *m = notes_find(c->notes, "mismatch", prov_field_name(fld));

		errors += m && !m->allowed;
	}
	for (int i = 0; i < c->nrows; i++) {
		tests += c->rows[i].selected;
		failures += c->rows[i].selected && c->rows[i].v.regression;
	}
	snprintf(t, sizeof(t), "%d", tests);
	snprintf(fl, sizeof(fl), "%d", failures);
	snprintf(e, sizeof(e), "%d", errors);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	tag(f, 0, "testsuites", false,
	    ATTRS("name", "ipsecperf compare", "tests", t, "failures", fl, "errors", e, "time", "0"));
	suite_comparable(f, c);
	for (int i = 0, from = 0; i <= c->nrows; i++) {
		if (i < c->nrows && c->rows[i].kernel_base == c->rows[from].kernel_base &&
		    c->rows[i].kernel_new == c->rows[from].kernel_new)
			continue;
		if (i > from)
			suite_kernels(f, c, from, i);
		from = i;
	}
	fprintf(f, "</testsuites>\n");
	return ferror(f) ? -1 : 0;
}
