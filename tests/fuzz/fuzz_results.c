// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the results reader (analyze/results.c): the input is
 * parsed as runs.jsonl and as meta.json; what parses is grouped, summarised
 * and printed, so the statistics and the summary see odd values too. What
 * the reader accepts must hold no control character in any string it kept
 * (a kernel name must never end a gnuplot string): abort if one does.
 * Build and run: make fuzz (docs/fuzzing.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "summary.h"

static void must_be_data(const char *s)
{
	if (s && results_bad_char(s, strlen(s)))
		abort();
}

static void check_runs(const struct results *r)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct run_record *rec = &r->runs[i];

		must_be_data(rec->kernel);
		must_be_data(rec->scenario);
		must_be_data(rec->reason);
		must_be_data(rec->start);
		for (int c = 0; c < rec->ncounters; c++) {
			must_be_data(rec->counters[c].name);
			must_be_data(rec->counters[c].symbol);
		}
	}
}

static void check_meta(const struct results_meta *m)
{
	const char *s[] = { m->tool_version, m->command, m->host, m->cpu_model, m->testbed,
			    m->iperf3_version, m->created };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		must_be_data(s[i]);
	for (int k = 0; k < m->nkernels; k++)
		must_be_data(m->kernels[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results r = { 0 };
	struct results_meta m;
	char err[1024] = "";

	if (results_parse_runs("runs.jsonl", (const char *)data, size, &r, err, sizeof(err)) == 0 &&
	    r.nruns > 0) {
		FILE *out = fopen("/dev/null", "w");

		check_runs(&r);

		if (out) {
			summary_tables(out, &r);
			fclose(out);
		}
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort(); /* the message must be terminated */
	}
	results_free(&r);
	if (results_parse_meta("meta.json", (const char *)data, size, &m, err, sizeof(err)) == 0) {
		check_meta(&m);
		results_meta_free(&m);
	}
	return 0;
}
