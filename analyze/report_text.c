// SPDX-License-Identifier: GPL-2.0
/* The text report (-f text, the default): for a mail, 72 columns; --summary, --side-by-side. */
#include "report.h"
#include "report_int.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "provenance.h"
#include "side_by_side.h"
#include "summary.h"
#include "until_ci.h"

static void text_header(FILE *f, const struct report *rep)
{
	struct report_kv kv[16];

	fprintf(f, "ipsecperf report\n================\n");
	for (int i = 0; i < rep->nsrc; i++) {
		int n = report_provenance(rep, i, kv, 12);

		if (i)
			fputc('\n', f);
		for (int j = 0; j < n; j++) {
			/* said once, in the reproduce block */
			if (!strcmp(kv[j].key, "tool") || !strcmp(kv[j].key, "command"))
				continue;
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
	static const char *const heads[] = { "scenario", "metric", "n", "covers", "CV" };
	static const bool left[] = { true, true, false, false, false };

	fprintf(f, "\nSpread: how often each interval above holds the median (its\n"
		   "coverage), and the coefficient of variation (sd/mean)\n");
	for (int k = 0; k < rep->nkernels; k++) {
		const struct run_group *last = NULL;
		struct tab t;

		tab_init(&t, 5, heads, left);
		for (int i = 0; i < rep->nrows; i++) {
			const struct report_row *row = &rep->rows[i];
			char cover[16];
			int r;

			if (row->m.kind == METRIC_COUNTER || row->k != k)
				continue;
			if ((r = tab_row(&t)) < 0)
				break;
			tab_set(&t, r, 0, "%s", row->g != last ? row->g->scenario : "");
			last = row->g;
			tab_set(&t, r, 1, "%s", metric_unit(&row->m));
			tab_set(&t, r, 2, "%d", row->s.n);
			tab_set(&t, r, 3, "%s", fmt_cover(cover, sizeof(cover), row->s.iv_cover));
			if (isnan(row->s.cv))
				tab_set(&t, r, 4, "-");
			else
				tab_set(&t, r, 4, "%.1f%%", 100 * row->s.cv);
		}
		fprintf(f, "\nkernel %s\n", rep->kernels[k]);
		tab_print(f, &t, NULL);
		tab_free(&t);
	}
}

/* Where the testbed measured each end's cycles apart (peer, vm-pair): sender and receiver, per kernel. */
static void text_ends(FILE *f, const struct report *rep)
{
	static const char *const heads[] = { "scenario", "n", "median", "interval", "median", "interval" };
	static const bool left[] = { true, false, false, false, false, false };
	static const char *const groups[] = { NULL, NULL, "sender", NULL, "receiver", NULL };

	for (int k = 0; k < rep->nkernels; k++) {
		struct tab t;
		int nrow = 0;

		tab_init(&t, 6, heads, left);
		for (int i = 0; i < rep->nrows; i++) {
			const struct report_row *s = &rep->rows[i], *r = NULL;
			char med[2][32], iv[2][64];
			int row;

			if (s->k != k || s->m.kind != METRIC_CPB_SENDER)
				continue;
			if (i + 1 < rep->nrows && rep->rows[i + 1].g == s->g && rep->rows[i + 1].m.kind == METRIC_CPB_RECEIVER)
				r = &rep->rows[i + 1];
			if ((row = tab_row(&t)) < 0)
				break;
			for (int e = 0; e < 2; e++) {
				const struct stats *st = e ? (r ? &r->s : NULL) : &s->s;
				int d = st ? fmt_decimals(st->median) : 0;

				fmt_num(med[e], sizeof(med[e]), st ? st->median : NAN, d);
				fmt_interval(iv[e], sizeof(iv[e]), st, d);
			}
			tab_set(&t, row, 0, "%s", s->g->scenario);
			tab_set(&t, row, 1, "%d", s->s.n);
			tab_set(&t, row, 2, "%s", med[0]);
			tab_set(&t, row, 3, "%s", iv[0]);
			tab_set(&t, row, 4, "%s", med[1]);
			tab_set(&t, row, 5, "%s", iv[1]);
			nrow++;
		}
		if (nrow) {
			fprintf(f, "\nEach end's cycles per byte: median and its interval%s%s\n\n",
				rep->nkernels > 1 ? ", kernel " : "",
				rep->nkernels > 1 ? rep->kernels[k] : "");
			tab_print(f, &t, groups);
		}
		tab_free(&t);
	}
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
	static const char *const heads[] = { "scenario", "counter", "n", "median", "interval" };
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
			fmt_interval(rng, sizeof(rng), &row->s, d);
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
	bool units = false;

	for (int i = 0; i < rep->nrows && !units; i++)
		units = rep->rows[i].m.kind == METRIC_COUNTER && rep->rows[i].m.unit != UNIT_BYTE;
	fprintf(f, "\nPer-packet counters: events per packet sent (median and its interval)\n");
	if (units)
		fputs_wrapped(f, "(per transaction for the request/response scenarios, per datagram received for the packet-rate ones)", 0, 1);
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
int report_interval_warnings(FILE *f, const struct report *rep)
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

/* The mail's body: header, set-up, figures, each end's cycles, counters (no reproduce block). */
static int summary_body(FILE *f, const struct report *rep)
{
	text_header(f, rep);
	bool streams = false;

	for (int g = 0; g < rep->ngroups && !streams; g++)
		streams = group_unit(&rep->all, &rep->groups[g]) == UNIT_BYTE;
	report_setup_text(f, rep);
	/* the first table's title (the other loads' tables carry their own) */
	fprintf(f, !streams ? "\n" : !strcmp(results_clock(&rep->all), "virtual")
		   ? "Throughput (receiver) and instructions per byte: median and its interval\n\n"
		   : "Throughput (receiver) and cycles per byte: median and its interval\n\n");
	if (summary_tables(f, &rep->all) < 0)
		return -1;
	text_ends(f, rep);
	text_counters(f, rep);
	return 0;
}

int report_summary(FILE *f, const struct report *rep)
{
	if (summary_body(f, rep) < 0 || report_summary_pairs(f, rep) < 0)
		return -1;
	report_reproduce_text(f, rep);
	return ferror(f) ? -1 : 0;
}

/*
 * The packet-rate runs' searches, a line each: every step's offered rate
 * (0: as fast as the sender could) and its loss, the steps that passed
 * starred, and the rate found.
 */
static void text_rate_steps(FILE *f, const struct report *rep)
{
	bool any = false;

	for (int i = 0; i < rep->all.nruns; i++) {
		const struct run_record *rec = &rep->all.runs[i];
		char line[4096];
		int len, best = -1;

		if (rec->unit != UNIT_DATAGRAM || !rec->rate_steps || rec->counting)
			continue;
		if (!any) {
			fputc('\n', f);
			fputs_wrapped(f, "Rate search: each step's offered rate in datagrams/s (0: as fast as the sender could) and its loss; * within the threshold",
				      0, 0);
		}
		any = true;
		len = snprintf(line, sizeof(line), "%s%s%s r%d:", rep->nkernels > 1 ? rec->kernel : "",
			       rep->nkernels > 1 ? " " : "", rec->scenario, rec->repeat);
		for (int k = 0; k < rec->rate_steps && len < (int)sizeof(line) - 64; k++) {
			const struct rate_step_rec *st = &rec->steps[k];

			len += snprintf(line + len, sizeof(line) - len, " %.0f%s %.3g%%%s", st->offered_pps, st->pass ? "*" : "",
					100 * st->loss, k + 1 < rec->rate_steps ? "," : "");
			if (st->pass && (best < 0 || st->sent_pps > rec->steps[best].sent_pps))
				best = k;
		}
		if (len < (int)sizeof(line) - 64)
			snprintf(line + len, sizeof(line) - len, best >= 0 ? "; found %.0f" : "; none found",
				 best >= 0 ? rec->steps[best].sent_pps : 0.0);
		text_clean(line);
		fputs_wrapped(f, line, 0, 4);
	}
}

int report_text(FILE *f, const struct report *rep)
{
	if (summary_body(f, rep) < 0)
		return -1;
	text_spread(f, rep);
	if (report_text_cpus(f, rep) < 0)
		return -1;
	text_rate_steps(f, rep);
	if (report_summary_pairs(f, rep) < 0)
		return -1;
	report_text_pairs(f, rep);
	report_interval_warnings(f, rep);
	text_until_ci(f, rep);
	report_reproduce_text(f, rep);
	return ferror(f) ? -1 : 0;
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

int report_side_by_side(FILE *f, const struct report *rep)
{
	if (report_text(f, rep) < 0)
		return -1;
	return kernels_side_by_side(f, &rep->all, accel_note, rep);
}
