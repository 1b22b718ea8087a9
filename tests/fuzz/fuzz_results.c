// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the results reader (analyze/results.c): the input is
 * parsed as runs.jsonl and as meta.json; what parses is grouped, summarised
 * and printed, so the statistics and the summary see odd values too.
 * Build and run: make fuzz (docs/fuzzing.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results r = { 0 };
	struct results_meta m;
	char err[1024] = "";

	if (results_parse_runs("runs.jsonl", (const char *)data, size, &r, err, sizeof(err)) == 0 &&
	    r.nruns > 0) {
		FILE *out = fopen("/dev/null", "w");

		if (out) {
			summary_tables(out, &r);
			fclose(out);
		}
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort(); /* the message must be terminated */
	}
	results_free(&r);
	if (results_parse_meta("meta.json", (const char *)data, size, &m, err, sizeof(err)) == 0)
		results_meta_free(&m);
	return 0;
}
