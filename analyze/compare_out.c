// SPDX-License-Identifier: GPL-2.0
/* compare's writers for people and spreadsheets: text, markdown, CSV, JSON. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "pool.h"
#include "provenance.h"
#include "report.h"
#include "summary.h"

/* ---- shared by the writers ---- */

char compare_flag(const struct pair_row *r)
{
	if (r->selected && r->v.regression)
		return 'R';
	if (r->selected && r->v.improvement)
		return 'I';
	if (!r->v.significant || r->v.change == 0)
		return ' ';
	return r->v.worse ? '-' : '+';
}

const char *compare_direction(const struct pair_row *r)
{
	if (isnan(r->v.change))
		return NULL;
	if (r->v.change == 0)
		return "same";
	return r->v.worse ? "worse" : "better";
}

const char *compare_fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 0.0001)
		snprintf(buf, len, "<1e-4");
	else
		snprintf(buf, len, "%.4f", p);
	return buf;
}

const char *compare_test_name(enum compare_test t)
{
	return t == TEST_MW ? "Mann-Whitney U (exact, two-sided)" : "Welch's t (two-sided)";
}

void compare_selected_list(const struct compare_opts *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (o->all_metrics) {
		snprintf(buf, len, "all metrics");
		return;
	}
	for (int i = 0; i < o->nmetrics; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", o->metrics[i]);
}

const char *compare_kernels(const struct pair_row *r, char *buf, size_t len)
{
	if (!strcmp(r->kernel_base, r->kernel_new))
		snprintf(buf, len, "%s", r->kernel_base);
	else
		snprintf(buf, len, "%s -> %s", r->kernel_base, r->kernel_new);
	return buf;
}

static void upper(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

void compare_dir_line(const struct side *s, int i, char *buf, size_t len)
{
	const struct results_meta *m = &s->src[i].meta;
	char accel[64], load[64], prof[64];
	size_t o;

	if (prov_dir_value(s->src, &s->r, i, PROV_ACCEL, accel, sizeof(accel)))
		upper(accel);
	else
		snprintf(accel, sizeof(accel), "accelerator not recorded");
	o = snprintf(buf, len, "testbed %s%s%s%s, host %s: %s, ", m->testbed ? m->testbed : "(not recorded)",
		     strcmp(accel, "NONE") ? " (" : "", strcmp(accel, "NONE") ? accel : "",
		     strcmp(accel, "NONE") ? ")" : "", m->host ? m->host : "(not recorded)",
		     m->cpu_model ? m->cpu_model : "CPU model not recorded");
	if (o < len && m->cpu_count > 0)
		o += snprintf(buf + o, len - o, "%d CPUs; ", m->cpu_count);
	else if (o < len)
		o += snprintf(buf + o, len - o, "CPU count not recorded; ");
	if (o < len && m->duration_s > 0)
		o += snprintf(buf + o, len - o, "%g s runs", m->duration_s);
	else if (o < len)
		o += snprintf(buf + o, len - o, "duration not recorded");
	if (o < len && m->has_omit)
		o += snprintf(buf + o, len - o, " after %g s warm-up", m->omit_s);
	if (o < len && prov_dir_value(s->src, &s->r, i, PROV_LOAD, load, sizeof(load)))
		o += snprintf(buf + o, len - o, ", load %s", load);
	if (o < len && prov_dir_value(s->src, &s->r, i, PROV_PROFILE, prof, sizeof(prof)) &&
	    strcmp(prof, "off"))
		o += snprintf(buf + o, len - o, ", --profile %s", prof);
	if (o < len && m->probe_set)
		o += snprintf(buf + o, len - o, ", probes %s", m->probe_set);
	if (o < len)
		snprintf(buf + o, len - o, "; ipsecperf %s; %s",
			 m->tool_version ? m->tool_version : "(version not recorded)",
			 m->iperf3_version ? m->iperf3_version : "iperf3 version not recorded");
	text_clean(buf);
}

bool compare_emulated(const struct side *s)
{
	for (int i = 0; i < s->nsrc; i++)
		if (prov_emulated(s->src, &s->r, i))
			return true;
	return false;
}

static const char *fmt_change(char *buf, size_t len, double c)
{
	if (isnan(c))
		snprintf(buf, len, "-");
	else if (c != 0 && fabs(c) < 0.05)
		snprintf(buf, len, "%+.1g%%", c); /* never "+0.0%" beside "worse" */
	else
		snprintf(buf, len, "%+.1f%%", c);
	return buf;
}

static const char *fmt_cv(char *buf, size_t len, const struct stats *s)
{
	if (isnan(s->cv))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", 100 * s->cv);
	return buf;
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

static int ngates(const struct comparison *c)
{
	int n = 0;

	for (int i = 0; i < c->nrows; i++)
		n += c->rows[i].selected;
	return n;
}

/* "2 regressions, 1 improvement; 3 of 6 gates undecided" for the verdicts */
void compare_verdict_line(const struct comparison *c, char *buf, size_t len)
{
	size_t o;

	if (c->nreg)
		o = snprintf(buf, len, "%d regression%s", c->nreg, plural(c->nreg));
	else
		o = snprintf(buf, len, "no regression beyond %g%% with p < %g", c->o->threshold,
			     c->o->alpha);
	if (c->nimp && o < len)
		o += snprintf(buf + o, len - o, ", %d improvement%s", c->nimp, plural(c->nimp));
	if (c->nnodata && o < len)
		o += snprintf(buf + o, len - o, "; no data for %d of %d gates (no ok run on a side)", c->nnodata,
			      ngates(c));
	if (c->nundecided && o < len)
		o += snprintf(buf + o, len - o, "; %d of %d gates could not reach p < %g (see the notes)",
			      c->nundecided, ngates(c), c->o->alpha);
	if (c->nreg && o < len)
		snprintf(buf + o, len - o, " (exit status 1)");
}

/* ---- text ---- */

static void text_side(FILE *f, const struct side *s, const struct side *other)
{
	char line[2048];

	for (int i = 0; i < s->nsrc; i++) {
		bool as_other = false;

		for (int j = 0; other && j < other->nsrc; j++)
			as_other |= pool_same_dir(s->src[i].dir, other->src[j].dir);
		fprintf(f, "%-6s", i ? "" : s->name);
		snprintf(line, sizeof(line), "%s%s", s->src[i].dir, as_other ? " (as base)" : "");
		text_clean(line);
		fputs_wrapped_at(f, line, 6, 6);
		if (as_other)
			continue;
		compare_dir_line(s, i, line, sizeof(line));
		fputs_wrapped(f, line, 8, 8);
	}
}

static void text_notes(FILE *f, const struct notes *notes)
{
	char line[4096];

	for (int i = 0; i < notes->n; i++) {
		const struct note *n = &notes->v[i];

		if (!strcmp(n->code, "emulated"))
			continue; /* the header's caution */
		snprintf(line, sizeof(line), "%s: %s",
			 !strcmp(n->code, "mismatch") ? (n->allowed ? "mismatch (allowed)" : "mismatch")
			 : !strcmp(n->code, "noisy")  ? "warning"
						      : "note",
			 n->text);
		fputs_wrapped(f, line, 0, 6);
	}
}

/* The two sides, the test and what the flags mean. */
static void text_head(FILE *f, const struct comparison *c)
{
	const struct compare_opts *o = c->o;
	char sel[512], line[1024];
	bool units = false;

	for (int i = 0; i < c->nrows && !units; i++)
		units = c->rows[i].m.kind >= METRIC_TPS;
	fprintf(f, "ipsecperf compare\n");
	text_side(f, c->b, NULL);
	text_side(f, c->n, c->b);
	compare_selected_list(o, sel, sizeof(sel));
	snprintf(line, sizeof(line), "%s, alpha %g; the gate: %s worse by more than %g%%",
		 compare_test_name(o->test), o->alpha, sel, o->threshold);
	fputs("test  ", f);
	fputs_wrapped_at(f, line, 6, 6);
	snprintf(line, sizeof(line),
		 "f: R regression, I improvement (a gate metric beyond %g%% with p < %g); - worse, + better with p < %g. bw: b better, w worse, = the same for the metric (throughput: higher; cycles/byte, counters: lower)%s",
		 o->threshold, o->alpha, o->alpha,
		 units ? "; transactions/s, datagrams/s: higher; latency, cycles per transaction or datagram, loss: lower" : "");
	fputs("flags ", f);
	fputs_wrapped_at(f, line, 6, 6);
	if (notes_find(c->notes, "emulated", NULL)) {
		fputs("caution: ", f);
		fputs_wrapped_at(f, notes_find(c->notes, "emulated", NULL)->text, 9, 6);
	}
}

/* A pair of kernels: its heading and the column heads. */
static void text_kernel_head(FILE *f, const struct pair_row *r)
{
	char line[1024];

	snprintf(line, sizeof(line), "\nkernel %s", compare_kernels(r, line + 600, 400));
	text_clean(line + 1);
	fputs_wrapped(f, line, 0, 7);
	fprintf(f, "\n%7s %4s %7s %7s %4s %6s %-2s %1s %s\n", "base", "%cv", "change", "new", "%cv", "p",
		"bw", "f", "metric");
	fprintf(f, "%7s %4s %7s %7s %4s %6s %-2s %1s %s\n", "-------", "----", "-------", "-------", "----",
		"------", "--", "-", "------------------------");
}

/* A scenario: its runs on each side, and whether they can reach significance. */
static void text_scenario_head(FILE *f, const struct pair_row *r, const struct compare_opts *o)
{
	int nb_bad = group_not_ok(r->gb), nn_bad = group_not_ok(r->gn);
	char line[1024];

	snprintf(line, sizeof(line), "%s: n %d vs %d%s", r->scenario, r->gb->n_ok, r->gn->n_ok,
		 !r->gb->n_ok || !r->gn->n_ok ? ": no data, no ok run on a side" : "");
	if (nb_bad || nn_bad)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " (not ok: %d base, %d new)", nb_bad, nn_bad);
	if (r->gb->n_ok && r->gn->n_ok && o->test == TEST_MW &&
	    mann_whitney_min_p(r->gb->n_ok, r->gn->n_ok) >= o->alpha)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; too few runs to reach p < %g", o->alpha);
	text_clean(line);
	fputs_wrapped(f, line, 0, 4);
}

const char *compare_metric_label(const struct metric *m, char *buf, size_t len)
{
	switch (m->kind) {
	case METRIC_THROUGHPUT:
		return "throughput Gbit/s";
	case METRIC_CPB:
		return "cycles/byte";
	case METRIC_IPB:
		return "instructions/byte";
	case METRIC_CPB_SENDER:
		return "cycles/byte sender";
	case METRIC_CPB_RECEIVER:
		return "cycles/byte receiver";
	case METRIC_CPU_SHARE:
		snprintf(buf, len, "%s top CPU %%", m->counter); /* within 72 columns */
		return buf;
	case METRIC_COUNTER:
		return m->counter;
	case METRIC_TPS:
		return "transactions/s";
	case METRIC_LAT:
		snprintf(buf, len, "latency %s us", latency_names[m->q]);
		return buf;
	case METRIC_CPU_UNIT:
		return m->unit == UNIT_DATAGRAM ? "cycles/datagram" : "cycles/transaction";
	case METRIC_PPS:
		return "datagrams/s";
	case METRIC_LOSS:
		return "loss %";
	}
	return "?";
}

/* One metric's line; 0, or 1 for a counter at zero everywhere (not shown). */
static int text_row(FILE *f, const struct pair_row *r)
{
	char bm[32], bc[16], ch[32], nm[32], nc[16], p[16], fl[2] = { compare_flag(r), 0 }, lb[64];
	const char *dir = compare_direction(r);
	int d;

	/* no value on a side: the scenario's heading said so */
	if (!r->v.base.n || !r->v.new.n)
		return 0;
	/* a counter at zero in every run of both sides says nothing here */
	if (r->m.kind == METRIC_COUNTER && r->v.base.n && r->v.new.n && r->v.base.max == 0 &&
	    r->v.base.min == 0 && r->v.new.max == 0 && r->v.new.min == 0)
		return 1;
	d = fmt_decimals(r->v.base.median);
	if (r->m.kind == METRIC_COUNTER && d < 2)
		d = 2;
	fprintf(f, "%7s %4s %7s %7s %4s %6s %-2s %1s %s\n",
		fmt_num(bm, sizeof(bm), r->v.base.median, d), fmt_cv(bc, sizeof(bc), &r->v.base),
		fmt_change(ch, sizeof(ch), r->v.change), fmt_num(nm, sizeof(nm), r->v.new.median, d),
		fmt_cv(nc, sizeof(nc), &r->v.new), compare_fmt_p(p, sizeof(p), r->v.p),
		!dir ? "-" : !strcmp(dir, "same") ? "=" : !strcmp(dir, "worse") ? "w" : "b", fl,
		compare_metric_label(&r->m, lb, sizeof(lb)));
	return 0;
}

/* The regressions and improvements of the gate metrics, one line each. */
static void text_gates(FILE *f, const struct comparison *c)
{
	char line[1024];

	for (int i = 0; i < c->nrows; i++) {
		const struct pair_row *r = &c->rows[i];
		char nbuf[160], p[16], ks[400];

		if (!r->selected || !(r->v.regression || r->v.improvement))
			continue;
		snprintf(line, sizeof(line), "%s %s %s %s %+.1f%% (p %s)",
			 r->v.regression ? "REGRESSION" : "improvement", compare_kernels(r, ks, sizeof(ks)),
			 r->scenario, metric_name(&r->m, nbuf, sizeof(nbuf)), r->v.change,
			 compare_fmt_p(p, sizeof(p), r->v.p));
		text_clean(line);
		fputs_wrapped(f, line, 2, 6);
	}
}

int compare_text(FILE *f, const struct comparison *c)
{
	const char *kb = NULL, *kn = NULL, *scen = NULL;
	char line[1024];
	int nzero = 0;

	text_head(f, c);
	for (int i = 0; i < c->nrows; i++) {
		const struct pair_row *r = &c->rows[i];

		if (r->kernel_base != kb || r->kernel_new != kn) {
			kb = r->kernel_base;
			kn = r->kernel_new;
			scen = NULL;
			text_kernel_head(f, r);
		}
		if (r->scenario != scen) {
			scen = r->scenario;
			text_scenario_head(f, r, c->o);
		}
		nzero += text_row(f, r);
	}
	fputc('\n', f);
	if (nzero) {
		snprintf(line, sizeof(line),
			 "Not shown: %d counter row%s at zero in every run on both sides (in -f json and csv).",
			 nzero, plural(nzero));
		fputs_wrapped(f, line, 0, 0);
	}
	text_notes(f, c->notes);
	compare_verdict_line(c, line, sizeof(line));
	fputs("verdict: ", f);
	fputs_wrapped_at(f, line, 9, 6);
	text_gates(f, c);
	return ferror(f) ? -1 : 0;
}

/* ---- markdown ---- */

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_[]<>&", *s))
			fprintf(f, "&#%d;", *s);
		else
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
	}
}

int compare_md(FILE *f, const struct comparison *c)
{
	const struct compare_opts *o = c->o;
	char sel[512], line[1024];

	compare_selected_list(o, sel, sizeof(sel));
	fprintf(f, "# ipsecperf compare\n\n");
	for (int pass = 0; pass < 2; pass++) {
		const struct side *s = pass ? c->n : c->b;

		for (int i = 0; i < s->nsrc; i++) {
			fprintf(f, "%s: ", s->name);
			md_cell(f, s->src[i].dir);
			compare_dir_line(s, i, line, sizeof(line));
			fprintf(f, " (");
			md_cell(f, line);
			fprintf(f, ")\n\n");
		}
	}
	fprintf(f, "test: %s, alpha %g; **R**: %s worse by more than %g%% with p < %g; **I**: better by as much\n\n",
		compare_test_name(o->test), o->alpha, sel, o->threshold, o->alpha);
	fprintf(f, "| kernel | scenario | metric | n | base median | base CV | change | new median | new CV | p (MW) | p (Welch) | better/worse | flag |\n"
		   "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	for (int i = 0; i < c->nrows; i++) {
		const struct pair_row *r = &c->rows[i];
		char bm[32], bc[16], ch[32], nm[32], nc[16], p1[16], p2[16], name[160], ks[400];
		const char *dir = compare_direction(r);
		int d = fmt_decimals(r->v.base.median);
		char fl = compare_flag(r);

		fputs("| ", f);
		md_cell(f, compare_kernels(r, ks, sizeof(ks)));
		fputs(" | ", f);
		md_cell(f, r->scenario);
		fprintf(f, " | %s | %d vs %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			metric_name(&r->m, name, sizeof(name)), r->v.base.n, r->v.new.n,
			fmt_num(bm, sizeof(bm), r->v.base.median, d), fmt_cv(bc, sizeof(bc), &r->v.base),
			fmt_change(ch, sizeof(ch), r->v.change), fmt_num(nm, sizeof(nm), r->v.new.median, d),
			fmt_cv(nc, sizeof(nc), &r->v.new), compare_fmt_p(p1, sizeof(p1), r->v.p_mw),
			compare_fmt_p(p2, sizeof(p2), r->v.p_welch), dir ? dir : "-",
			fl == 'R' ? "**R**" : fl == 'I' ? "**I**" : fl == '-' ? "&minus;" : fl == '+' ? "+" : "");
	}
	fputc('\n', f);
	for (int i = 0; i < c->notes->n; i++) {
		fprintf(f, "* %s: ", c->notes->v[i].code);
		md_cell(f, c->notes->v[i].text);
		fputc('\n', f);
	}
	compare_verdict_line(c, line, sizeof(line));
	fprintf(f, "\nverdict: %s%s%s\n", c->nreg ? "**" : "", line, c->nreg ? "**" : "");
	return ferror(f) ? -1 : 0;
}

/* ---- csv ---- */

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
	}
	fputc('"', f);
}

int compare_csv(FILE *f, const struct comparison *c)
{
	fprintf(f, "kernel_base,kernel_new,scenario,metric,unit,selected,n_base,n_new,median_base,"
		   "median_new,cv_base,cv_new,min_base,max_base,min_new,max_new,change_pct,p_mw,p_welch,"
		   "significant,regression,improvement,direction,flag,decidable\n");
	for (int i = 0; i < c->nrows; i++) {
		const struct pair_row *r = &c->rows[i];
		const char *dir = compare_direction(r);
		char name[160], fl = compare_flag(r);
		double v[] = { r->v.base.median, r->v.new.median, r->v.base.cv, r->v.new.cv,
			       r->v.base.min, r->v.base.max, r->v.new.min, r->v.new.max,
			       r->v.change, r->v.p_mw, r->v.p_welch };

		csv_str(f, r->kernel_base);
		fputc(',', f);
		csv_str(f, r->kernel_new);
		fputc(',', f);
		csv_str(f, r->scenario);
		fprintf(f, ",%s,%s,%d,%d,%d", metric_name(&r->m, name, sizeof(name)), metric_unit(&r->m),
			r->selected, r->v.base.n, r->v.new.n);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			fputc(',', f);
			if (!isnan(v[j]))
				fprintf(f, "%.10g", v[j]);
		}
		fprintf(f, ",%d,%d,%d,%s,%s,%d\n", r->v.significant, r->selected && r->v.regression,
			r->selected && r->v.improvement, dir ? dir : "", fl == ' ' ? "" : (char[]){ fl, 0 },
			r->decidable);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- json ---- */

static json_t *jnum_c(double v)
{
	return isnan(v) ? json_null() : isinf(v) ? json_string(v > 0 ? "inf" : "-inf") : json_real(v);
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Each directory's provenance, as compare checked it. */
static json_t *json_dirs(const struct side *s)
{
	json_t *a = json_array();
	char buf[256];

	for (int i = 0; i < s->nsrc; i++) {
		const struct results_meta *m = &s->src[i].meta;
		json_t *d = json_pack("{s:s, s:o, s:o, s:o, s:o}", "dir", s->src[i].dir, "tool_version",
				      jstr_or_null(m->tool_version), "host", jstr_or_null(m->host), "cpu_model",
				      jstr_or_null(m->cpu_model), "testbed", jstr_or_null(m->testbed));

		json_object_set_new(d, "cpu_count", m->cpu_count > 0 ? json_integer(m->cpu_count) : json_null());
		json_object_set_new(d, "accel",
				    jstr_or_null(prov_dir_value(s->src, &s->r, i, PROV_ACCEL, buf, sizeof(buf))));
		json_object_set_new(d, "duration_s", m->duration_s > 0 ? json_real(m->duration_s) : json_null());
		json_object_set_new(d, "omit_s", m->has_omit ? json_real(m->omit_s) : json_null());
		json_object_set_new(d, "load",
				    jstr_or_null(prov_dir_value(s->src, &s->r, i, PROV_LOAD, buf, sizeof(buf))));
		json_object_set_new(d, "profile",
				    jstr_or_null(prov_dir_value(s->src, &s->r, i, PROV_PROFILE, buf, sizeof(buf))));
		json_object_set_new(d, "iperf3_version", jstr_or_null(m->iperf3_version));
		json_array_append_new(a, d);
	}
	return a;
}

int compare_json(FILE *f, const struct comparison *c)
{
	const struct compare_opts *o = c->o;
	json_t *root, *arr = json_array();
	int ret;

	for (int i = 0; i < c->nrows; i++) {
		const struct pair_row *r = &c->rows[i];
		char name[160], fl[2] = { compare_flag(r), 0 };

		json_array_append_new(arr, json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:{s:i, s:o, s:o, s:o, s:o}, s:{s:i, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:b, s:b, s:b, s:o, s:s, s:b, s:o}",
			"kernel_base", r->kernel_base, "kernel_new", r->kernel_new, "scenario", r->scenario,
			"metric", metric_name(&r->m, name, sizeof(name)), "unit", metric_unit(&r->m),
			"higher_is_better", metric_higher_is_better(&r->m), "selected", r->selected,
			"base", "n", r->v.base.n, "median", jnum_c(r->v.base.median), "min", jnum_c(r->v.base.min),
			"max", jnum_c(r->v.base.max), "cv", jnum_c(r->v.base.cv),
			"new", "n", r->v.new.n, "median", jnum_c(r->v.new.median), "min", jnum_c(r->v.new.min),
			"max", jnum_c(r->v.new.max), "cv", jnum_c(r->v.new.cv),
			"change_pct", jnum_c(r->v.change), "p_mw", jnum_c(r->v.p_mw), "p_welch", jnum_c(r->v.p_welch),
			"significant", r->v.significant, "regression", r->selected && r->v.regression,
			"improvement", r->selected && r->v.improvement,
			"direction", jstr_or_null(compare_direction(r)), "flag", fl[0] == ' ' ? "" : fl,
			"decidable", r->decidable, "undecided", r->decidable ? json_null() : json_string(r->undecided)));
	}
	root = json_pack("{s:i, s:s, s:s, s:s, s:f, s:f, s:o, s:i}", "version", 1, "base",
			 c->b->src[0].dir, "new", c->n->src[0].dir, "test",
			 o->test == TEST_MW ? "mann-whitney" : "welch", "alpha", o->alpha, "threshold_pct",
			 o->threshold, "rows", arr, "regressions", c->nreg);
	json_object_set_new(root, "improvements", json_integer(c->nimp));
	json_object_set_new(root, "undecided", json_integer(c->nundecided));
	json_object_set_new(root, "no_data", json_integer(c->nnodata));
	json_object_set_new(root, "status", json_string(c->refused ? "not_comparable"
							 : c->nreg   ? "regression"
								     : "no_regression"));
	json_object_set_new(root, "exit_status", json_integer(c->exit_status));
	json_object_set_new(root, "base_dirs", json_dirs(c->b));
	json_object_set_new(root, "new_dirs", json_dirs(c->n));
	json_object_set_new(root, "notes", notes_json(c->notes));
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret < 0 || ferror(f) ? -1 : 0;
}
