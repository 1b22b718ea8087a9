// SPDX-License-Identifier: GPL-2.0
/* The JSON report (-f json): sources, rows, runs not ok and notes (docs/reports.md). */
#include "report.h"
#include "report_int.h"

#include <jansson.h>
#include <math.h>

#include "provenance.h"

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

			report_source_purposes(rep, i, &measured, &counted);
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
			json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				  "kernel", row->g->kernel, "scenario", row->g->scenario, "metric",
				  metric_name(&row->m, name, sizeof(name)), "unit", metric_unit(&row->m),
				  "higher_is_better", metric_higher_is_better(&row->m), "n", row->s.n,
				  "n_not_ok", group_not_ok(row->g), "median", jnum(row->s.median),
				  "min", jnum(row->s.min), "max", jnum(row->s.max), "mean", jnum(row->s.mean),
				  "sd", jnum(row->s.sd), "interval_lo", jnum(row->s.iv_lo), "interval_hi",
				  jnum(row->s.iv_hi), "interval_coverage", jnum(row->s.iv_cover), "cv", jnum(row->s.cv), "ratio", jnum(row->ratio),
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
