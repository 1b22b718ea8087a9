// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "html.h"
#include "intervals.h"
#include "log.h"
#include "pool.h"
#include "profile.h"
#include "profile_flame.h"
#include "provenance.h"
#include "side_by_side.h"
#include "summary.h"
#include "until_ci.h"

const char *metric_unit(const struct metric *m)
{
	switch (m->kind) {
	case METRIC_THROUGHPUT:
		return "Gbit/s";
	case METRIC_CPB:
		return "cycles/byte";
	case METRIC_COUNTER:
		return "per packet";
	}
	return "";
}

/* ---- loading ---- */

static const char *first_unavailable(const struct results *r, const struct run_group *g,
				     const char *counter)
{
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		for (int c = 0; c < rec->ncounters; c++)
			if (!strcmp(rec->counters[c].name, counter) && rec->counters[c].symbol &&
			    !strncmp(rec->counters[c].symbol, "unavailable", 11))
				return rec->counters[c].symbol;
	}
	return NULL;
}

static int add_row(struct report *rep, int *cap, int k, const struct run_group *g, struct metric m)
{
	struct report_row *row;
	double *v;
	int n;

	if (rep->nrows == *cap) {
		struct report_row *nr = realloc(rep->rows, (*cap = *cap * 2 + 16) * sizeof(*nr));

		if (!nr)
			return -1;
		rep->rows = nr;
	}
	v = malloc((g->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	row = &rep->rows[rep->nrows++];
	memset(row, 0, sizeof(*row));
	row->g = g;
	row->k = k;
	row->m = m;
	n = group_values(&rep->all, g, &m, v);
	stats_compute(v, n, &row->s);
	row->ratio = NAN;
	free(v);
	if (m.kind == METRIC_COUNTER && n == 0)
		row->unavailable = first_unavailable(&rep->all, g, m.counter);
	return 0;
}

int report_load(struct report *rep, char *const dirs[], int ndirs)
{
	int cap = 0;

	memset(rep, 0, sizeof(*rep));
	if (pool_load(dirs, ndirs, &rep->src, &rep->nsrc, &rep->all) < 0)
		return -1;
	if (results_groups(&rep->all, &rep->groups, &rep->ngroups) < 0 ||
	    results_kernels(&rep->all, &rep->kernels, &rep->nkernels) < 0)
		goto out_nomem;
	for (int k = 0; k < rep->nkernels; k++) {
		double base = NAN;
		bool have_base = false;

		for (int i = 0; i < rep->ngroups; i++) {
			const struct run_group *g = &rep->groups[i];
			const char **names;
			int nn, first = rep->nrows;

			if (strcmp(g->kernel, rep->kernels[k]))
				continue;
			if (add_row(rep, &cap, k, g, (struct metric){ .kind = METRIC_THROUGHPUT }) < 0 ||
			    add_row(rep, &cap, k, g, (struct metric){ .kind = METRIC_CPB }) < 0)
				goto out_nomem;
			if (!have_base) {
				have_base = true;
				base = rep->rows[first].s.median;
			}
			if (base > 0)
				rep->rows[first].ratio = rep->rows[first].s.median / base;
			/* counters: those of ok runs, plus unavailable ones of any run */
			if (group_counters(&rep->all, g, &names, &nn) < 0)
				goto out_nomem;
			for (int c = 0; c < nn; c++)
				if (add_row(rep, &cap, k, g,
					    (struct metric){ .kind = METRIC_COUNTER, .counter = names[c] }) < 0) {
					free(names);
					goto out_nomem;
				}
			free(names);
		}
	}
	return 0;
out_nomem:
	pr_warn("report: out of memory");
	report_free(rep);
	return -1;
}

int report_check_pool(struct report *rep, unsigned allow)
{
	struct prov_check pc;

	prov_check_init(&pc, &rep->notes, allow);
	prov_check_pool(&pc, NULL, rep->src, rep->nsrc, &rep->all);
	if (!prov_refused(&pc))
		return 0;
	prov_print_refused(&pc, "report");
	return -1;
}

void report_free(struct report *rep)
{
	pool_free(rep->src, rep->nsrc, &rep->all);
	notes_free(&rep->notes);
	results_groups_free(rep->groups, rep->ngroups);
	free(rep->kernels);
	free(rep->rows);
	memset(rep, 0, sizeof(*rep));
}

/* ---- provenance ---- */

static int total_not_ok(const struct results *r)
{
	int n = 0;

	for (int i = 0; i < r->nruns; i++)
		n += r->runs[i].status != RUN_OK;
	return n;
}

struct kv {
	const char *key;
	char val[1024];
};

/* Source i's runs: how many measured throughput, how many counted (--count-repeats). */
static void source_purposes(const struct report *rep, int i, int *measured, int *counted)
{
	*measured = *counted = 0;
	for (int r = 0; r < rep->all.nruns; r++)
		if (rep->all.runs[r].source == i)
			(*(rep->all.runs[r].counting ? counted : measured))++;
}

/* The one line that says which repeats counted and which measured; 0 when none counted. */
static int purposes_line(const struct report *rep, int i, char *buf, size_t len)
{
	int measured, counted;

	source_purposes(rep, i, &measured, &counted);
	if (!counted)
		return 0;
	snprintf(buf, len, "%d measured (throughput, cycles: probes %s), %d counted (the ESP programs attached: the per-packet counters only)",
		 measured, rep->src[i].meta.probe_set ? rep->src[i].meta.probe_set : "as recorded", counted);
	return 1;
}

/* The header lines of one source, as key/value pairs; returns how many. */
static int provenance(const struct report *rep, int i, struct kv *kv, int max)
{
	const struct results_meta *m = &rep->src[i].meta;
	int n = 0;

	(void)max;
	kv[n].key = "results";
	snprintf(kv[n++].val, sizeof(kv[0].val), "%s", rep->src[i].dir);
	kv[n].key = "host";
	snprintf(kv[n].val, sizeof(kv[0].val), "%s", m->host ? m->host : "(not recorded)");
	if (m->cpu_model || m->cpu_count) {
		size_t l = strlen(kv[n].val);

		snprintf(kv[n].val + l, sizeof(kv[0].val) - l, ", %s%s%d CPUs",
			 m->cpu_model ? m->cpu_model : "", m->cpu_model ? ", " : "", m->cpu_count);
	}
	n++;
	kv[n].key = "testbed";
	{
		char accel[256];

		snprintf(kv[n++].val, sizeof(kv[0].val), "%s, accelerator %s",
			 m->testbed ? m->testbed : "(not recorded)",
			 prov_accel(rep->src, &rep->all, i, accel, sizeof(accel)));
	}
	kv[n].key = "kernels";
	kv[n].val[0] = '\0';
	for (int k = 0; k < m->nkernels; k++) {
		size_t l = strlen(kv[n].val);

		snprintf(kv[n].val + l, sizeof(kv[0].val) - l, "%s%s", k ? ", " : "", m->kernels[k]);
	}
	if (!m->nkernels)
		snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	n++;
	kv[n].key = "runs";
	{
		char dur[64] = "", rep_s[64] = "";

		if (m->duration_s > 0)
			snprintf(dur, sizeof(dur), "%g s each", m->duration_s);
		if (m->repeat > 0)
			snprintf(rep_s, sizeof(rep_s), "%d repeats per scenario", m->repeat);
		snprintf(kv[n].val, sizeof(kv[0].val), "%s%s%s%s%s", rep_s, *rep_s && *dur ? ", " : "",
			 dur, m->iperf3_version ? ", " : "",
			 m->iperf3_version ? m->iperf3_version : "");
		if (!kv[n].val[0])
			snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	}
	n++;
	if (m->probe_set) {
		kv[n].key = "probes";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s (--probe-set; docs/probes.md)", m->probe_set);
	}
	kv[n].key = "repeats";
	n += purposes_line(rep, i, kv[n].val, sizeof(kv[0].val));
	kv[n].key = "tool";
	snprintf(kv[n++].val, sizeof(kv[0].val), "ipsecperf %s",
		 m->tool_version ? m->tool_version : "(version not recorded)");
	if (m->created) {
		kv[n].key = "started";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s", m->created);
	}
	if (prov_emulated(rep->src, &rep->all, i)) {
		kv[n].key = "caution";
		snprintf(kv[n++].val, sizeof(kv[0].val), "%s", prov_emulated_caution());
	}
	kv[n].key = "command";
	if (!m->command)
		snprintf(kv[n].val, sizeof(kv[0].val), "(not recorded)");
	else if (!strncmp(m->command, "ipsecperf ", 10) || strstr(m->command, "ipsecperf ") ||
		 m->command[0] == '/' || !strncmp(m->command, "build/", 6))
		snprintf(kv[n].val, sizeof(kv[0].val), "%s", m->command);
	else /* the arguments after the program name, as some writers record them */
		snprintf(kv[n].val, sizeof(kv[0].val), "ipsecperf %s", m->command);
	n++;
	return n;
}

/* ---- text ---- */

static void text_header(FILE *f, const struct report *rep)
{
	struct kv kv[12];

	fprintf(f, "ipsecperf report\n================\n");
	for (int i = 0; i < rep->nsrc; i++) {
		int n = provenance(rep, i, kv, 12);

		if (i)
			fputc('\n', f);
		for (int j = 0; j < n; j++) {
			fprintf(f, "%-9s ", kv[j].key);
			fputs_wrapped_at(f, kv[j].val, 10, 10);
		}
	}
	for (int i = 0; i < rep->notes.n; i++) {
		char line[4096];

		snprintf(line, sizeof(line), "%s: %s",
			 rep->notes.v[i].allowed ? "mismatch (allowed)" : "note", rep->notes.v[i].text);
		fputc('\n', f);
		fputs_wrapped(f, line, 0, 6);
	}
	fputc('\n', f);
}

static void text_spread(FILE *f, const struct report *rep)
{
	static const char *const heads[] = { "scenario", "metric", "n", "mean", "95% CI", "CV" };
	static const bool left[] = { true, true, false, false, false, false };

	fprintf(f, "\nSpread: mean, 95%% confidence interval of the mean (Student t),\n"
		   "coefficient of variation (sd/mean)\n");
	for (int k = 0; k < rep->nkernels; k++) {
		struct tab t;

		tab_init(&t, 6, heads, left);
		for (int i = 0; i < rep->nrows; i++) {
			const struct report_row *row = &rep->rows[i];
			char mean[32];
			int d, r;

			if (row->m.kind == METRIC_COUNTER || row->k != k)
				continue;
			d = fmt_decimals(row->s.mean);
			if ((r = tab_row(&t)) < 0)
				break;
			tab_set(&t, r, 0, "%s", row->m.kind == METRIC_THROUGHPUT ? row->g->scenario : "");
			tab_set(&t, r, 1, "%s", metric_unit(&row->m));
			tab_set(&t, r, 2, "%d", row->s.n);
			tab_set(&t, r, 3, "%s", fmt_num(mean, sizeof(mean), row->s.mean, d));
			if (row->s.n >= 2)
				tab_set(&t, r, 4, "%.*f-%.*f", d, row->s.ci_lo, d, row->s.ci_hi);
			else
				tab_set(&t, r, 4, "-");
			if (isnan(row->s.cv))
				tab_set(&t, r, 5, "-");
			else
				tab_set(&t, r, 5, "%.1f%%", 100 * row->s.cv);
		}
		fprintf(f, "\nkernel %s\n", rep->kernels[k]);
		tab_print(f, &t, NULL);
		tab_free(&t);
	}
}

const char *report_counter_not_drawn(const struct report *rep, const char *counter)
{
	const char *why = NULL;

	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];

		if (r->m.kind != METRIC_COUNTER || strcmp(r->m.counter, counter))
			continue;
		if (r->s.n && (r->s.min != 0 || r->s.max != 0))
			return NULL;
		if (r->s.n)
			why = why ? why : "zero in every run";
		else if (r->unavailable)
			why = r->unavailable;
	}
	return why ? why : "no value recorded";
}

static const char *row_reason(const struct report_row *row)
{
	return row->unavailable ? row->unavailable : "no value recorded";
}

/*
 * The counters with a value in some scenario of the kernel, as a set (a
 * jansson object): one pass over the rows, so that asking about each
 * counter does not cost another.
 */
static json_t *counters_with_value(const struct report *rep, int k)
{
	json_t *set = json_object();

	for (int i = 0; set && i < rep->nrows; i++) {
		const struct report_row *r = &rep->rows[i];

		if (r->m.kind == METRIC_COUNTER && r->s.n && r->k == k)
			json_object_set_new(set, r->m.counter, json_true());
	}
	return set;
}

/* Has this counter no value in any scenario of the kernel? */
static bool counter_empty_on_kernel(json_t *with_value, const char *counter)
{
	return !json_object_get(with_value, counter);
}

static int note_index(const char **notes, int *nnotes, const char *reason)
{
	int j;

	for (j = 0; j < *nnotes; j++)
		if (!strcmp(notes[j], reason))
			return j;
	if (*nnotes == 32)
		return 31;
	notes[(*nnotes)++] = reason;
	return j;
}

/* The counters kernel k gave values for: a table; reasons go to notes. */
static void counter_table(FILE *f, const struct report *rep, int k, json_t *with_value,
			  const char **notes, int *nnotes)
{
	static const char *const heads[] = { "scenario", "counter", "n", "median", "min-max" };
	static const bool left[] = { true, true, false, false, false };
	const char *last = NULL;
	int nrows = 0;
	struct tab t;

	tab_init(&t, 5, heads, left);
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64];
		int d, r;

		if (row->m.kind != METRIC_COUNTER || row->k != k ||
		    counter_empty_on_kernel(with_value, row->m.counter))
			continue;
		if ((r = tab_row(&t)) < 0)
			break;
		nrows++;
		d = fmt_decimals(row->s.median);
		if (d < 2)
			d = 2;
		if (row->s.n == 0) {
			/* the reason can be long: a numbered note below the table */
			snprintf(med, sizeof(med), "-");
			snprintf(rng, sizeof(rng), "see note %d",
				 note_index(notes, nnotes, row_reason(row)) + 1);
		} else {
			fmt_num(med, sizeof(med), row->s.median, d);
			fmt_range(rng, sizeof(rng), &row->s, d);
		}
		tab_set(&t, r, 0, "%s", last == row->g->scenario ? "" : row->g->scenario);
		tab_set(&t, r, 1, "%s", row->m.counter);
		tab_set(&t, r, 2, "%d", row->s.n);
		tab_set(&t, r, 3, "%s", med);
		tab_set(&t, r, 4, "%s", rng);
		last = row->g->scenario;
	}
	if (nrows)
		tab_print(f, &t, NULL);
	tab_free(&t);
}

/* Counters kernel k gave no value for at all: one line per reason (a note). */
static void counters_without_value(FILE *f, const struct report *rep, int k, json_t *with_value,
				   const char **notes, int *nnotes)
{
	const struct report_row *done[64]; /* each counter's first row */
	int ndone = 0;

	/* the notes first, in row order, then each counter once */
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];

		if (row->m.kind == METRIC_COUNTER && row->k == k &&
		    counter_empty_on_kernel(with_value, row->m.counter))
			note_index(notes, nnotes, row_reason(row));
	}
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		int j;

		if (row->m.kind != METRIC_COUNTER || row->k != k ||
		    !counter_empty_on_kernel(with_value, row->m.counter))
			continue;
		for (j = 0; j < ndone; j++)
			if (!strcmp(done[j]->m.counter, row->m.counter))
				break;
		if (j < ndone || ndone == 64)
			continue;
		done[ndone++] = row;
	}
	/* group by the note of the first scenario's reason */
	for (int nt = 0; ndone && nt < *nnotes; nt++) {
		char line[1024];
		int len = snprintf(line, sizeof(line), "no value on this kernel (note %d):", nt + 1);
		bool hit = false;

		for (int j = 0; j < ndone; j++) {
			if (strcmp(row_reason(done[j]), notes[nt]))
				continue;
			if (len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - len, "%s %s",
						hit ? "," : "", done[j]->m.counter);
			hit = true;
		}
		if (hit)
			fputs_wrapped(f, line, 0, 4);
	}
}

static void text_counters(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->nrows && !any; i++)
		any = rep->rows[i].m.kind == METRIC_COUNTER;
	if (!any)
		return;
	fprintf(f, "\nPer-packet counters: events per packet sent (median, min-max)\n");
	for (int k = 0; k < rep->nkernels; k++) {
		const char *notes[32];
		json_t *with_value = counters_with_value(rep, k);
		int nnotes = 0;

		fprintf(f, "\nkernel %s\n", rep->kernels[k]);
		counter_table(f, rep, k, with_value, notes, &nnotes);
		counters_without_value(f, rep, k, with_value, notes, &nnotes);
		for (int j = 0; j < nnotes; j++) {
			char line[600];

			snprintf(line, sizeof(line), "note %d: %s", j + 1, notes[j]);
			fputs_wrapped(f, line, 0, 8);
		}
		json_decref(with_value);
	}
}

/*
 * A run whose 1 s intervals vary by more than INTERVAL_CV_WARN (a stall,
 * a ramp) gets a warning, since its mean hides it: one line per kernel
 * and scenario naming the repeats. Returns how many lines.
 */
static int interval_warnings(FILE *f, const struct report *rep)
{
	struct run_intervals *iv = malloc(sizeof(*iv));
	int warned = 0;

	for (int g = 0; iv && g < rep->ngroups; g++) {
		const struct run_group *grp = &rep->groups[g];
		double lo = INFINITY, hi = 0;
		char line[1024], reps[512] = "", cvs[32];
		int nover = 0, nread = 0;

		for (int i = 0; i < grp->n; i++) {
			const struct run_record *rec = &rep->all.runs[grp->idx[i]];
			double cv;

			if (rec->status != RUN_OK || run_intervals_read(rep->src[rec->source].dir, rec, iv) < 0)
				continue;
			nread++;
			cv = run_intervals_cv(iv);
			if (!(cv > INTERVAL_CV_WARN))
				continue;
			lo = cv < lo ? cv : lo;
			hi = cv > hi ? cv : hi;
			if (strlen(reps) < sizeof(reps) - 16)
				snprintf(reps + strlen(reps), sizeof(reps) - strlen(reps), "%s%d", nover ? ", " : "",
					 rec->repeat);
			nover++;
		}
		if (!nover)
			continue;
		if (nover > 1)
			snprintf(cvs, sizeof(cvs), "%.0f%%-%.0f%%", 100 * lo, 100 * hi);
		else
			snprintf(cvs, sizeof(cvs), "%.0f%%", 100 * lo);
		snprintf(line, sizeof(line),
			 "warning: %s%s%s: throughput varies inside %d of %d runs (repeat%s %s): CV of the 1 s intervals %s > %.0f%%, a stall or a ramp",
			 rep->nkernels > 1 ? grp->kernel : "", rep->nkernels > 1 ? " " : "", grp->scenario, nover,
			 nread, nover > 1 ? "s" : "", reps, cvs, 100 * INTERVAL_CV_WARN);
		text_clean(line);
		if (!warned++)
			fputc('\n', f);
		fputs_wrapped(f, line, 0, 4);
	}
	if (warned) {
		fputs_wrapped(f, "hint: `report -c DIR` draws each run's throughput over time (time-gN charts).",
			      0, 6);
	}
	free(iv);
	return warned;
}

/*
 * run --until-ci: how many repeats each scenario took and the interval of
 * its median reached, recomputed from the records (the same rule).
 */
static void text_until_ci(FILE *f, const struct report *rep)
{
	for (int i = 0; i < rep->nsrc; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		char line[256];

		if (!(m->until_ci_pct > 0))
			continue;
		snprintf(line, sizeof(line),
			 "\nAdaptive repeats (--until-ci %g%%, --max-repeat %d): runs until the 95%% interval of the median throughput was narrower than %g%% of it",
			 m->until_ci_pct, m->max_repeat, m->until_ci_pct);
		fputs_wrapped(f, line, 0, 0);
		fprintf(f, "%-27s %4s %4s %19s %6s %s\n", "kernel scenario", "runs", "ok", "interval, Gbit/s",
			"width", "reached");
		for (int g = 0; g < rep->ngroups; g++) {
			const struct run_group *grp = &rep->groups[g];
			double *v = calloc(grp->n + 1, sizeof(*v)), w;
			struct until_ci u;
			char name[64], iv[48] = "-", wid[16] = "-";
			int n, nsrc = 0;

			for (int j = 0; j < grp->n; j++)
				nsrc += rep->all.runs[grp->idx[j]].source == i;
			if (!v || !nsrc) {
				free(v);
				continue;
			}
			n = group_values(&rep->all, grp, &(struct metric){ .kind = METRIC_THROUGHPUT }, v);
			until_ci_eval(v, n, m->until_ci_pct, &u);
			free(v);
			if (!isnan(u.lo))
				snprintf(iv, sizeof(iv), "%.*f-%.*f", fmt_decimals(u.lo), u.lo, fmt_decimals(u.hi), u.hi);
			w = u.width_pct;
			if (!isnan(w))
				snprintf(wid, sizeof(wid), "%.1f%%", w);
			snprintf(name, sizeof(name), "%.*s%s%s", rep->nkernels > 1 ? 40 : 0, grp->kernel,
				 rep->nkernels > 1 ? " " : "", grp->scenario);
			text_clean(name);
			fprintf(f, "%-27.27s %4d %4d %19s %6s %s\n", name, grp->n, n, iv, wid,
				u.reached ? "yes" : "no");
		}
	}
}

int report_summary(FILE *f, const struct report *rep)
{
	text_header(f, rep);
	fprintf(f, "Throughput (receiver) and cycles per byte, median and min-max\n\n");
	if (summary_tables(f, &rep->all) < 0)
		return -1;
	return ferror(f) ? -1 : 0;
}

int report_text(FILE *f, const struct report *rep)
{
	if (report_summary(f, rep) < 0)
		return -1;
	text_spread(f, rep);
	text_counters(f, rep);
	interval_warnings(f, rep);
	text_until_ci(f, rep);
	return ferror(f) ? -1 : 0;
}

/* ---- markdown ---- */

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		/* < > & too: a renderer must not take a name for HTML */
		if (strchr("|\\*_`<>&", *s))
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/* s as a code span: fenced by more backquotes than it holds in a row */
static void md_code(FILE *f, const char *s)
{
	int run = 0, longest = 0;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, longest ? " %s " : "%s", s);
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
}

/* Markdown: where each source was measured, as a two-column table. */
static void md_provenance(FILE *f, const struct report *rep)
{
	struct kv kv[12];

	for (int i = 0; i < rep->nsrc; i++) {
		int n = provenance(rep, i, kv, 12);

		fprintf(f, "| | |\n|---|---|\n");
		for (int j = 0; j < n; j++) {
			fprintf(f, "| %s | ", kv[j].key);
			if (!strcmp(kv[j].key, "command"))
				md_code(f, kv[j].val); /* shown verbatim */
			else
				md_cell(f, kv[j].val);
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	}
}

/* Markdown: throughput and cycles per byte, one row per kernel, scenario and metric. */
static void md_main_table(FILE *f, const struct report *rep)
{
	fprintf(f, "## Throughput and cycles per byte\n\n"
		   "n: runs with status ok. Spread: min-max, the 95%% confidence interval of the "
		   "mean (Student t), and the coefficient of variation.\n\n");
	fprintf(f, "| kernel | scenario | metric | n | median | min-max | mean | 95%% CI | CV | ratio |\n"
		   "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64], mean[32], ratio[32] = "", cv[16] = "-", ci[64] = "-";
		int d = fmt_decimals(row->s.median);

		if (row->m.kind == METRIC_COUNTER)
			continue;
		if (!isnan(row->ratio))
			snprintf(ratio, sizeof(ratio), "%.3f", row->ratio);
		if (!isnan(row->s.cv))
			snprintf(cv, sizeof(cv), "%.1f%%", 100 * row->s.cv);
		if (row->s.n >= 2)
			snprintf(ci, sizeof(ci), "%.*f-%.*f", d, row->s.ci_lo, d, row->s.ci_hi);
		fprintf(f, "| ");
		md_cell(f, row->g->kernel);
		fprintf(f, " | ");
		md_cell(f, row->g->scenario);
		fprintf(f, " | %s | %d | %s | %s | %s | %s | %s | %s |\n", metric_unit(&row->m), row->s.n,
			fmt_num(med, sizeof(med), row->s.median, d), fmt_range(rng, sizeof(rng), &row->s, d),
			fmt_num(mean, sizeof(mean), row->s.mean, d), ci, cv, ratio);
	}
}

/* Markdown: the per-packet counters, when there are any. */
static void md_counters(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64];
		int d = fmt_decimals(row->s.median);

		if (row->m.kind != METRIC_COUNTER)
			continue;
		if (!any) {
			fprintf(f, "\n## Per-packet counters\n\n"
				   "| kernel | scenario | counter | n | median | min-max |\n"
				   "|---|---|---|---:|---:|---:|\n");
			any = true;
		}
		fprintf(f, "| ");
		md_cell(f, row->g->kernel);
		fprintf(f, " | ");
		md_cell(f, row->g->scenario);
		fprintf(f, " | ");
		md_cell(f, row->m.counter);
		if (row->s.n)
			fprintf(f, " | %d | %s | %s |\n", row->s.n, fmt_num(med, sizeof(med), row->s.median, d),
				fmt_range(rng, sizeof(rng), &row->s, d));
		else {
			fprintf(f, " | 0 | - | ");
			md_cell(f, row->unavailable ? row->unavailable : "no value");
			fprintf(f, " |\n");
		}
	}
}

/* Markdown: the runs not ok, which the figures exclude. */
static void md_not_ok(FILE *f, const struct report *rep)
{
	if (!total_not_ok(&rep->all))
		return;
	fprintf(f, "\n## Runs not ok (excluded)\n\n| kernel | scenario | repeat | status | reason |\n"
		   "|---|---|---:|---|---|\n");
	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];

		if (rec->status == RUN_OK)
			continue;
		fprintf(f, "| ");
		md_cell(f, rec->kernel);
		fprintf(f, " | ");
		md_cell(f, rec->scenario);
		fprintf(f, " | %d | %s | ", rec->repeat, run_status_name(rec->status));
		md_cell(f, rec->reason ? rec->reason : "");
		fprintf(f, " |\n");
	}
}

/* Markdown: the warnings as text, verbatim. */
static void md_warnings(FILE *f, const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&buf, &len);

	if (!w)
		return;
	summary_cv_warnings(w, &rep->all);
	fclose(w);
	if (len)
		fprintf(f, "\n```\n%s```\n", buf + 1);
	free(buf);
}

int report_markdown(FILE *f, const struct report *rep)
{
	fprintf(f, "# ipsecperf report\n\n");
	md_provenance(f, rep);
	md_main_table(f, rep);
	md_counters(f, rep);
	md_not_ok(f, rep);
	md_warnings(f, rep);
	return ferror(f) ? -1 : 0;
}

/* ---- CSV ---- */

static void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
}

static void csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (!isnan(v))
		fprintf(f, "%.10g", v);
}

int report_csv(FILE *f, const struct report *rep)
{
	fprintf(f, "kernel,scenario,metric,unit,n,n_not_ok,median,min,max,mean,sd,ci95_lo,ci95_hi,cv,ratio\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char name[160];

		csv_field(f, row->g->kernel);
		fputc(',', f);
		csv_field(f, row->g->scenario);
		fputc(',', f);
		csv_field(f, metric_name(&row->m, name, sizeof(name)));
		fprintf(f, ",%s,%d,%d", metric_unit(&row->m), row->s.n, group_not_ok(row->g));
		csv_num(f, row->s.median);
		csv_num(f, row->s.min);
		csv_num(f, row->s.max);
		csv_num(f, row->s.mean);
		csv_num(f, row->s.sd);
		csv_num(f, row->s.ci_lo);
		csv_num(f, row->s.ci_hi);
		csv_num(f, row->s.cv);
		csv_num(f, row->ratio);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

int report_json(FILE *f, const struct report *rep)
{
	json_t *root = json_object(), *sources = json_array(), *rows = json_array(),
	       *bad = json_array();
	int ret;

	for (int i = 0; i < rep->nsrc; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		json_t *k = json_array();

		for (int j = 0; j < m->nkernels; j++)
			json_array_append_new(k, json_string(m->kernels[j]));
		json_array_append_new(sources,
			json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:i, s:o}",
				  "dir", jstr(rep->src[i].dir), "tool_version", jstr(m->tool_version),
				  "command", jstr(m->command), "host", jstr(m->host), "cpu_model",
				  jstr(m->cpu_model), "cpu_count", m->cpu_count, "testbed", jstr(m->testbed),
				  "kernels", k, "duration_s", m->duration_s > 0 ? json_real(m->duration_s) : json_null(),
				  "repeat", m->repeat, "iperf3_version", jstr(m->iperf3_version)));
		{
			char accel[256];
			json_t *o = json_array_get(sources, json_array_size(sources) - 1);

			json_object_set_new(o, "accel", json_string(prov_accel(rep->src, &rep->all, i, accel,
										 sizeof(accel))));
			json_object_set_new(o, "emulated", json_boolean(prov_emulated(rep->src, &rep->all, i)));
			int measured, counted;

			source_purposes(rep, i, &measured, &counted);
			json_object_set_new(o, "runs_measured", json_integer(measured));
			json_object_set_new(o, "runs_counted", json_integer(counted));
			if (prov_emulated(rep->src, &rep->all, i))
				json_object_set_new(o, "caution", json_string(prov_emulated_caution()));
			if (m->until_ci_pct > 0)
				json_object_set_new(o, "until_ci", json_pack("{s:f, s:i}", "target_pct", m->until_ci_pct,
									      "max_repeat", m->max_repeat));
		}
	}
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char name[160];

		json_array_append_new(rows,
			json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				  "kernel", row->g->kernel, "scenario", row->g->scenario, "metric",
				  metric_name(&row->m, name, sizeof(name)), "unit", metric_unit(&row->m),
				  "higher_is_better", metric_higher_is_better(&row->m), "n", row->s.n,
				  "n_not_ok", group_not_ok(row->g), "median", jnum(row->s.median),
				  "min", jnum(row->s.min), "max", jnum(row->s.max), "mean", jnum(row->s.mean),
				  "sd", jnum(row->s.sd), "ci95_lo", jnum(row->s.ci_lo), "ci95_hi",
				  jnum(row->s.ci_hi), "cv", jnum(row->s.cv), "ratio", jnum(row->ratio),
				  "unavailable", jstr(row->unavailable)));
	}
	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];

		if (rec->status != RUN_OK)
			json_array_append_new(bad, json_pack("{s:s, s:s, s:i, s:s, s:o}", "kernel", rec->kernel,
							     "scenario", rec->scenario, "repeat", rec->repeat,
							     "status", run_status_name(rec->status),
							     "reason", jstr(rec->reason)));
	}
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "sources", sources);
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "not_ok", bad);
	json_object_set_new(root, "notes", notes_json(&rep->notes));
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret < 0 || ferror(f) ? -1 : 0;
}

/* ---- HTML ---- */

/*
 * Inline one gnuplot SVG: without its XML prolog and DOCTYPE (inline SVG
 * needs neither), and with its ids prefixed by the chart number, since
 * every gnuplot SVG defines the same ones (gpPt0, textbox, ...).
 */
static void html_svg(FILE *f, const char *path, int chart)
{
	static const char *const refs[] = { "id='", "id=\"", "#gp", "url(#" };
	FILE *in = fopen(path, "r");
	char *buf = NULL, *p;
	size_t cap = 0;
	ssize_t n;

	if (!in)
		return;
	n = getdelim(&buf, &cap, '\0', in);
	fclose(in);
	if (n <= 0 || !(p = strstr(buf, "<svg"))) {
		free(buf);
		return;
	}
	while (*p) {
		size_t i, len = 0;

		for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
			len = strlen(refs[i]);
			if (!strncmp(p, refs[i], len))
				break;
		}
		if (i == sizeof(refs) / sizeof(refs[0])) {
			fputc(*p++, f);
			continue;
		}
		/* "#gp" keeps its "gp" after the prefix */
		if (i == 2) {
			fprintf(f, "#c%d-", chart);
			p += 1;
		} else {
			fprintf(f, "%.*sc%d-", (int)len, p, chart);
			p += len;
		}
	}
	free(buf);
}

/* "Throughput", "Cycles per byte", "esp_output per packet" for a chart's base name */
static void chart_heading(FILE *f, const struct report *rep, const char *name)
{
	int g;

	if (sscanf(name, "time-g%d", &g) == 1 && g >= 1 && g <= rep->ngroups) {
		fputs("Throughput over time, ", f);
		html_esc(f, rep->groups[g - 1].kernel);
		fputc(' ', f);
		html_esc(f, rep->groups[g - 1].scenario);
	} else if (!strcmp(name, "throughput"))
		fputs("Throughput", f);
	else if (!strcmp(name, "cycles_per_byte"))
		fputs("Cycles per byte", f);
	else if (!strncmp(name, "counter-", 8)) {
		html_esc(f, name + 8);
		fputs(" per packet", f);
	} else
		html_esc(f, name);
}

static const struct report_row *find_row(const struct report *rep, const struct run_group *g,
					 enum metric_kind kind)
{
	for (int i = 0; i < rep->nrows; i++)
		if (rep->rows[i].g == g && rep->rows[i].m.kind == kind)
			return &rep->rows[i];
	return NULL;
}

static void html_cv(FILE *f, const struct stats *s)
{
	if (isnan(s->cv))
		fputs("<td class=n>-</td>", f);
	else
		fprintf(f, "<td class=\"n%s\">%.1f%%</td>", s->cv > CV_WARN ? " warn" : "", 100 * s->cv);
}

/* The summary: provenance in brief, per kernel the scenarios' ratios and CVs, the warnings. */
/* One scenario's line of the summary table: throughput, ratio, cycles/byte. */
static void html_summary_row(FILE *f, const struct report *rep, int g, const struct report_row *t,
			     const struct report_row *c)
{
	char num[32];

	fprintf(f, "<tr><td>");
	html_esc(f, rep->groups[g].scenario);
	fprintf(f, "</td><td class=n>%s</td><td class=n>%d</td>",
		fmt_num(num, sizeof(num), t->s.median, fmt_decimals(t->s.median)), t->s.n);
	if (isnan(t->ratio))
		fputs("<td class=n>-</td>", f);
	else
		fprintf(f, "<td class=n>%.3fx</td>", t->ratio);
	html_cv(f, &t->s);
	if (c) {
		fprintf(f, "<td class=n>%s</td>",
			fmt_num(num, sizeof(num), c->s.median, fmt_decimals(c->s.median)));
		html_cv(f, &c->s);
	} else {
		fputs("<td class=n>-</td><td class=n>-</td>", f);
	}
	fputs("</tr>\n", f);
}

/* Kernel k's summary table and verdict. */
static void html_summary_kernel(FILE *f, const struct report *rep, int k)
{
	const struct report_row *first = NULL, *low = NULL;

	fprintf(f, "<h3>kernel ");
	html_esc(f, rep->kernels[k]);
	fprintf(f, "</h3>\n<table>\n<tr><th>scenario</th><th>throughput, Gbit/s</th><th>n</th>"
		   "<th>ratio to first</th><th>CV</th><th>cycles/byte</th><th>CV</th></tr>\n");
	for (int g = 0; g < rep->ngroups; g++) {
		const struct report_row *t, *c;

		if (strcmp(rep->groups[g].kernel, rep->kernels[k]))
			continue;
		t = find_row(rep, &rep->groups[g], METRIC_THROUGHPUT);
		c = find_row(rep, &rep->groups[g], METRIC_CPB);
		if (!t)
			continue;
		if (!first)
			first = t;
		if (t->s.n && (!low || t->s.median < low->s.median))
			low = t;
		html_summary_row(f, rep, g, t, c);
	}
	fputs("</table>\n", f);
	if (first && low && low != first && !isnan(low->ratio)) {
		fprintf(f, "<p class=verdict>Verdict: the slowest scenario, ");
		html_esc(f, low->g->scenario);
		fprintf(f, ", reaches %.3fx the throughput of ", low->ratio);
		html_esc(f, first->g->scenario);
		fprintf(f, " (%+.1f%%).</p>\n", 100 * (low->ratio - 1));
	}
}

/* Where it was measured, one item per source. */
static void html_summary_prov(FILE *f, const struct report *rep)
{
	fprintf(f, "<ul class=prov>\n");
	for (int i = 0; i < rep->nsrc; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		char accel[256];

		fprintf(f, "<li>testbed <strong>");
		html_esc(f, m->testbed ? m->testbed : "(not recorded)");
		fprintf(f, "</strong>, accelerator <strong>");
		html_esc(f, prov_accel(rep->src, &rep->all, i, accel, sizeof(accel)));
		fprintf(f, "</strong> on ");
		html_esc(f, m->host ? m->host : "(host not recorded)");
		if (m->cpu_model) {
			fputs(", ", f);
			html_esc(f, m->cpu_model);
		}
		if (m->cpu_count > 0)
			fprintf(f, ", %d CPUs", m->cpu_count);
		if (m->duration_s > 0)
			fprintf(f, "; %g s runs", m->duration_s);
		fputs("</li>\n", f);
		if (prov_emulated(rep->src, &rep->all, i)) {
			fprintf(f, "<li class=caution>Caution: ");
			html_esc(f, prov_emulated_caution());
			fputs("</li>\n", f);
		}
	}
	fputs("</ul>\n", f);
}

static void html_summary(FILE *f, const struct report *rep)
{
	char *warn = NULL;
	size_t wlen = 0;
	FILE *w;

	fprintf(f, "<section id=summary><h2>Summary</h2>\n");
	html_summary_prov(f, rep);
	for (int k = 0; k < rep->nkernels; k++)
		html_summary_kernel(f, rep, k);
	w = open_memstream(&warn, &wlen);
	if (w) {
		summary_cv_warnings(w, &rep->all);
		interval_warnings(w, rep);
		fclose(w);
		if (wlen) {
			fputs("<div class=warn><pre>", f);
			html_esc(f, warn + 1);
			fputs("</pre></div>\n", f);
		}
		free(warn);
	}
	if (total_not_ok(&rep->all))
		fprintf(f, "<p class=warn>%d runs not ok, left out of every figure (see the text report).</p>\n",
			total_not_ok(&rep->all));
	for (int i = 0; i < rep->notes.n; i++) {
		fprintf(f, "<p class=warn>%s: ", rep->notes.v[i].allowed ? "mismatch (allowed)" : "note");
		html_esc(f, rep->notes.v[i].text);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* The figures of one kernel: throughput and cycles per byte, then the counters. */
static void html_kernel_figures(FILE *f, const struct report *rep, int k)
{
	bool any = false;

	fprintf(f, "<h3>kernel ");
	html_esc(f, rep->kernels[k]);
	fprintf(f, "</h3>\n<table>\n<tr><th>scenario</th><th>metric</th><th>n</th><th>median</th>"
		   "<th>min-max</th><th>mean</th><th>95%% CI</th><th>CV</th><th>ratio</th></tr>\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64], mean[32], ci[64] = "-";
		int d = fmt_decimals(row->s.median);

		if (row->k != k || row->m.kind == METRIC_COUNTER)
			continue;
		if (row->s.n >= 2)
			snprintf(ci, sizeof(ci), "%.*f-%.*f", d, row->s.ci_lo, d, row->s.ci_hi);
		fprintf(f, "<tr><td>");
		html_esc(f, row->g->scenario);
		fprintf(f, "</td><td>%s</td><td class=n>%d</td><td class=n>%s</td><td class=n>%s</td>"
			   "<td class=n>%s</td><td class=n>%s</td>",
			metric_unit(&row->m), row->s.n, fmt_num(med, sizeof(med), row->s.median, d),
			fmt_range(rng, sizeof(rng), &row->s, d), fmt_num(mean, sizeof(mean), row->s.mean, d), ci);
		html_cv(f, &row->s);
		if (isnan(row->ratio))
			fputs("<td class=n></td></tr>\n", f);
		else
			fprintf(f, "<td class=n>%.3f</td></tr>\n", row->ratio);
	}
	fputs("</table>\n", f);
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char med[32], rng[64];
		int d = fmt_decimals(row->s.median);

		if (row->k != k || row->m.kind != METRIC_COUNTER || !row->s.n)
			continue;
		if (!any)
			fprintf(f, "<table>\n<tr><th>counter, per packet</th><th>scenario</th><th>n</th>"
				   "<th>median</th><th>min-max</th></tr>\n");
		any = true;
		fprintf(f, "<tr><td>");
		html_esc(f, row->m.counter);
		fprintf(f, "</td><td>");
		html_esc(f, row->g->scenario);
		fprintf(f, "</td><td class=n>%d</td><td class=n>%s</td><td class=n>%s</td></tr>\n", row->s.n,
			fmt_num(med, sizeof(med), row->s.median, d), fmt_range(rng, sizeof(rng), &row->s, d));
	}
	if (any)
		fputs("</table>\n", f);
}

/* Counters that no run gave a value: listed with their reason, never drawn. */
static void html_counters_not_drawn(FILE *f, const struct report *rep)
{
	json_t *seen = json_object();
	bool any = false;

	for (int i = 0; seen && i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		const char *why;

		if (row->m.kind != METRIC_COUNTER || json_object_get(seen, row->m.counter))
			continue;
		json_object_set_new(seen, row->m.counter, json_true());
		why = report_counter_not_drawn(rep, row->m.counter);
		if (!why)
			continue;
		if (!any)
			fputs("<p>Counters not drawn, without a value in any run:</p>\n<ul>\n", f);
		any = true;
		fputs("<li><strong>", f);
		html_esc(f, row->m.counter);
		fputs("</strong>: ", f);
		html_esc(f, why);
		fputs("</li>\n", f);
	}
	if (any)
		fputs("</ul>\n", f);
	json_decref(seen);
}

/* The page's head and style. */
static void html_head(FILE *f)
{
	html_page_head(f, "ipsecperf report");
}

/* Was a run recorded with --profile? Then the page has flame graphs. */
static bool report_profiled(const struct report *rep)
{
	for (int i = 0; i < rep->all.nruns; i++)
		if (rep->all.runs[i].profiled)
			return true;
	return false;
}

/* The flame graphs of the profiled runs (analyze/profile_flame.c reads them again, as report --profile does). */
static int html_profiles(FILE *f, const struct report *rep)
{
	char **dirs = calloc(rep->nsrc, sizeof(*dirs));
	int ret;

	if (!dirs)
		return -1;
	for (int i = 0; i < rep->nsrc; i++)
		dirs[i] = rep->src[i].dir;
	fputs("</section>\n", f);
	ret = profile_flame_html(f, dirs, rep->nsrc);
	free(dirs);
	return ret;
}

/* The contents, a link per chart. */
static void html_nav(FILE *f, const struct report *rep, int ncharts, char **chart_names)
{
	fputs("<nav><h2>Contents</h2>\n<ol>\n<li><a href=\"#summary\">Summary</a></li>\n"
	      "<li><a href=\"#figures\">Figures</a></li>\n<li><a href=\"#charts\">Charts</a>", f);
	if (ncharts > 0) {
		fputs("\n<ol>\n", f);
		for (int i = 0; i < ncharts; i++) {
			fprintf(f, "<li><a href=\"#chart-%d\">", i);
			chart_heading(f, rep, chart_names[i]);
			fputs("</a></li>\n", f);
		}
		fputs("</ol>\n", f);
	}
	fputs("</li>\n", f);
	if (report_profiled(rep))
		fputs("<li><a href=\"#profiles\">Flame graphs</a></li>\n", f);
	fputs("<li><a href=\"#text\">Text report</a></li>\n"
	      "<li><a href=\"#provenance\">Provenance</a></li>\n</ol></nav>\n", f);
}

/* The charts section: each SVG inline, captioned with where it was measured. */
static void html_charts(FILE *f, const struct report *rep, const char *chartdir, int ncharts,
			char **chart_names, const char *no_charts)
{
	char sub[1024];

	fputs("</section>\n<section id=charts><h2>Charts</h2>\n", f);
	if (ncharts > 0)
		fputs("<p>Bars: median; whiskers: min-max; dots: the runs; n in the labels. A chart whose "
		      "values span more than 10x has a log scale. Throughput over time: each run's 1 s "
		      "intervals (iperf3's or the stream load's), one line per repeat.</p>\n", f);
	if (no_charts) {
		fputs("<p class=warn>No charts: ", f);
		html_esc(f, no_charts);
		fputs(".</p>\n", f);
	}
	html_counters_not_drawn(f, rep);
	report_chart_subtitle(rep, sub, sizeof(sub));
	for (int i = 0; i < ncharts; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s.svg", chartdir, chart_names[i]);
		fprintf(f, "<figure id=\"chart-%d\">\n", i);
		html_svg(f, path, i);
		fputs("<figcaption>", f);
		chart_heading(f, rep, chart_names[i]);
		fputs(": ", f);
		html_esc(f, sub);
		fputs("</figcaption>\n</figure>\n", f);
	}
}

/* Where each source was measured, a table each. */
static void html_provenance(FILE *f, const struct report *rep)
{
	struct kv kv[12];

	for (int i = 0; i < rep->nsrc; i++) {
		int n = provenance(rep, i, kv, 12);

		fprintf(f, "<table>\n");
		for (int j = 0; j < n; j++) {
			fprintf(f, "<tr><th>%s</th><td%s>%s", kv[j].key,
				strcmp(kv[j].key, "caution") ? "" : " class=caution",
				strcmp(kv[j].key, "command") ? "" : "<code>");
			html_esc(f, kv[j].val);
			fprintf(f, "%s</td></tr>\n", strcmp(kv[j].key, "command") ? "" : "</code>");
		}
		fprintf(f, "</table>\n");
	}
}

int report_html(FILE *f, const struct report *rep, const char *chartdir, int ncharts,
		char **chart_names, const char *no_charts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);

	if (!t)
		return -1;
	report_text(t, rep);
	fclose(t);
	html_head(f);
	html_summary(f, rep);
	html_nav(f, rep, ncharts, chart_names);
	fprintf(f, "<section id=figures><h2>Figures</h2>\n<p>n: runs with status ok. Spread: min-max, "
		   "the 95%% confidence interval of the mean (Student t) and the coefficient of "
		   "variation (highlighted above %.0f%%). Ratio: the median throughput over the first "
		   "scenario's.</p>\n", 100 * CV_WARN);
	for (int k = 0; k < rep->nkernels; k++)
		html_kernel_figures(f, rep, k);
	html_charts(f, rep, chartdir, ncharts, chart_names, no_charts);
	if (report_profiled(rep) && html_profiles(f, rep) < 0) {
		free(text);
		return -1;
	}
	fprintf(f, "%s<section id=text><h2>Text report</h2>\n<p>As it would be pasted into a "
		   "mail.</p>\n<pre>", report_profiled(rep) ? "" : "</section>\n");
	html_esc(f, text);
	fprintf(f, "</pre></section>\n<section id=provenance><h2>Provenance</h2>\n");
	html_provenance(f, rep);
	fprintf(f, "</section>\n</body></html>\n");
	free(text);
	return ferror(f) ? -1 : 0;
}

/* ---- the command ---- */

static int write_to(const char *path, int (*fn)(FILE *, const struct report *), const struct report *rep)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	int ret;

	if (!f) {
		pr_warn("report: %s: %s", path, strerror(errno));
		return -1;
	}
	ret = fn(f, rep);
	if (path && fclose(f) != 0)
		ret = -1;
	if (ret < 0)
		pr_warn("report: cannot write %s", path ? path : "standard output");
	return ret;
}

static int rm_rf_charts(const char *dir, char **names, int n)
{
	/* only what report_charts wrote into a temporary directory */
	static const char *const ext[] = { ".dat", ".runs.dat", ".vars.gp", ".png", ".svg" };
	char path[4096];

	for (int i = 0; i < n; i++)
		for (size_t e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
			snprintf(path, sizeof(path), "%s/%s%s", dir, names[i], ext[e]);
			unlink(path);
		}
	snprintf(path, sizeof(path), "%s/bars.gp", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/timeseries.gp", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/replot.sh", dir);
	unlink(path);
	return rmdir(dir);
}

/* " (TCG)" after a kernel's name in the side-by-side table, from its runs' accelerator */
static const char *accel_note(const char *release, const void *arg)
{
	const struct report *rep = arg;
	static char note[160];
	char accel[128];

	note[0] = '\0';
	for (int i = 0; i < rep->nsrc; i++) {
		struct prov_src p = { .src = rep->src, .all = &rep->all, .s = i, .kernel = release };

		for (int g = 0; g < rep->ngroups; g++)
			if (!strcmp(rep->groups[g].kernel, release) &&
			    prov_value(&p, rep->groups[g].scenario, PROV_ACCEL, accel, sizeof(accel))) {
				snprintf(note, sizeof(note), " (accelerator %s)", accel);
				text_clean(note);
				return note;
			}
	}
	return note;
}

static int text_side_by_side(FILE *f, const struct report *rep)
{
	if (report_text(f, rep) < 0)
		return -1;
	return kernels_side_by_side(f, &rep->all, accel_note, rep);
}

/* The report in o->format, to o->output or standard output. */
static int report_write(const struct report_opts *o, const struct report *rep, const char *charts, int ncharts,
			char **names, const char *no_charts)
{
	FILE *f;
	int ret;

	if (!strcmp(o->format, "text"))
		return write_to(o->output, o->summary ? report_summary : o->side_by_side ? text_side_by_side : report_text,
				rep);
	if (!strcmp(o->format, "md") || !strcmp(o->format, "markdown"))
		return write_to(o->output, report_markdown, rep);
	if (!strcmp(o->format, "csv"))
		return write_to(o->output, report_csv, rep);
	if (!strcmp(o->format, "json"))
		return write_to(o->output, report_json, rep);
	f = o->output ? fopen(o->output, "w") : stdout;
	if (!f) {
		pr_warn("report: %s: %s", o->output, strerror(errno));
		return -1;
	}
	ret = report_html(f, rep, charts, ncharts, names, no_charts);
	if (o->output && fclose(f) != 0)
		ret = -1;
	return ret;
}

int report_run(const struct report_opts *o, char *const dirs[], int ndirs)
{
	char tmpdir[] = "/tmp/ipsecperf-charts-XXXXXX", why[256];
	const char *charts = o->charts, *no_charts = NULL;
	bool tmp_charts = false, html = !strcmp(o->format, "html");
	struct report rep;
	char **names = NULL;
	int ret = EXIT_OK, ncharts = 0;

	if (charts && out_dir_check(charts, false, why, sizeof(why)) < 0) {
		pr_warn("report: -c %s: %s; choose another folder", charts, why);
		return EXIT_USAGE;
	}
	if (report_load(&rep, dirs, ndirs) < 0)
		return EXIT_USAGE;
	if (report_check_pool(&rep, o->allow) < 0) {
		report_free(&rep);
		return EXIT_USAGE;
	}
	if (!charts && html) {
		if (!mkdtemp(tmpdir)) {
			pr_warn("report: %s: %s", tmpdir, strerror(errno));
			ret = EXIT_FAIL;
			goto out;
		}
		charts = tmpdir;
		tmp_charts = true;
	}
	if (charts && html && !exec_have("gnuplot")) {
		/* the page without charts is still worth having */
		no_charts = "gnuplot was not found (install gnuplot-nox), so the figures are in tables only";
		pr_warn("report: gnuplot not found: the HTML page has tables but no charts (install gnuplot-nox)");
	} else if (charts) {
		ncharts = report_charts(&rep, charts, &names);
		if (ncharts < 0) {
			ret = EXIT_FAIL;
			goto out;
		}
	}
	ret = report_write(o, &rep, charts, ncharts, names, no_charts) < 0 ? EXIT_FAIL : EXIT_OK;
out:
	if (tmp_charts)
		rm_rf_charts(tmpdir, names, ncharts);
	for (int i = 0; i < ncharts; i++)
		free(names[i]);
	free(names);
	report_free(&rep);
	return ret;
}
