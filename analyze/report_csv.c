// SPDX-License-Identifier: GPL-2.0
/* The CSV report (-f csv): a row per kernel, scenario and metric. */
#include "report.h"

#include <math.h>
#include <string.h>

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
	/* the clock of the whole set: a figure's meaning (per second or per instruction-time) depends on it */
	const char *clock = results_clock(&rep->all);

	fprintf(f, "kernel,scenario,metric,unit,clock,n,n_not_ok,median,min,max,mean,sd,interval_lo,interval_hi,interval_coverage,cv,ratio\n");
	for (int i = 0; i < rep->nrows; i++) {
		const struct report_row *row = &rep->rows[i];
		char name[160];

		csv_field(f, row->g->kernel);
		fputc(',', f);
		csv_field(f, row->g->scenario);
		fputc(',', f);
		csv_field(f, metric_name(&row->m, name, sizeof(name)));
		fprintf(f, ",%s,%s,%d,%d", metric_unit(&row->m), clock, row->s.n, group_not_ok(row->g));
		csv_num(f, row->s.median);
		csv_num(f, row->s.min);
		csv_num(f, row->s.max);
		csv_num(f, row->s.mean);
		csv_num(f, row->s.sd);
		csv_num(f, row->s.iv_lo);
		csv_num(f, row->s.iv_hi);
		csv_num(f, row->s.iv_cover);
		csv_num(f, row->s.cv);
		csv_num(f, row->ratio);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
