// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the profiles' readers and the flame graph
 * (analyze/profile.c, analyze/flamegraph.c): folded stacks from a results
 * directory, or perf script's text, through everything `report --profile`
 * does with them (reduce, commands, merge, diff, the flame graph's tree and
 * SVG, single and differential).
 *
 * The first byte picks the reader (bit 0: perf script's text, else folded
 * stacks) and the graph's weight (bits 1-3); the second how many times the
 * rest is repeated, each copy's names made its own (its number written
 * after every ';' and every newline), up to 256 KiB: so a small input becomes
 * a stack thousands of frames deep, thousands of siblings or thousands of
 * commands, the shapes an algorithm quadratic in them takes seconds on.
 * The work on one input is linear in those 256 KiB, a fraction of a second
 * of CPU time; more than FUZZ_CPU_BUDGET of the process's CPU time for one
 * input aborts: a quadratic path is a finding however loaded the machine
 * (libFuzzer's -report_slow_units and -timeout, which make fuzz-run-profile
 * also sets, count wall time, which a busy machine stretches by itself).
 * Aborts also if a sum wraps (a count above 2^53 taken,
 * totals out of order), a share leaves [0, 1], the SVG does not end or holds
 * "nan", or a function's self samples exceed its total.
 * Build and run: make fuzz (docs/fuzzing.md).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flamegraph.h"
#include "profile.h"

#define EXPANDED_MAX (256 << 10)
#define FUZZ_CPU_BUDGET 2.0 /* s of CPU for one input; linear work takes under 0.3 s under ASan */

/*
 * A FILE that keeps nothing but the last bytes written and whether a
 * number the drawing reads (a position, a size, a frame's value) was
 * written as NaN. A function may well be named "nan": names are not
 * looked at.
 */
struct sink {
	char tail[32];
	size_t n;
	bool nan;
};

static bool numeric_nan(const char *buf, const char *p)
{
	static const char *const attrs[] = { " x=\"", " y=\"", " width=\"", " height=\"", " data-v=\"",
					     " data-sv=\"", " data-b=\"", " data-sb=\"" };

	if (p > buf && p[-1] == '-')
		p--;
	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
		size_t l = strlen(attrs[a]);

		if ((size_t)(p - buf) >= l && !memcmp(p - l, attrs[a], l))
			return true;
	}
	return false;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct sink *s = cookie;
	size_t keep = sizeof(s->tail), n = keep + len;
	char *all = malloc(n + 1);

	if (!all)
		abort();
	/* the chunk after the last bytes before it: a number cut between two writes is seen whole */
	memcpy(all, s->tail, keep);
	memcpy(all + keep, buf, len);
	all[n] = '\0';
	for (const char *p = all; (p = memmem(p, n - (size_t)(p - all), "nan", 3)); p++)
		s->nan |= numeric_nan(all, p);
	memcpy(s->tail, all + n - keep, keep);
	free(all);
	s->n += len;
	return (ssize_t)len;
}

/* body copied reps times, each copy's number after every ';' and newline; NUL-terminated */
static char *expand(const uint8_t *body, size_t len, size_t reps)
{
	char *out = malloc(EXPANDED_MAX + 64), num[24];
	size_t o = 0;

	if (!out)
		abort();
	for (size_t r = 0; r < reps && o < EXPANDED_MAX; r++)
		for (size_t i = 0; i < len && o < EXPANDED_MAX; i++) {
			out[o++] = (char)body[i];
			if (r && (body[i] == ';' || body[i] == '\n')) {
				int k = snprintf(num, sizeof(num), "%zx_", r);

				memcpy(out + o, num, (size_t)k);
				o += (size_t)k;
			}
		}
	/* one line without its count: the stack ends with one */
	if (o && !memchr(body, '\n', len) && o < EXPANDED_MAX + 40)
		o += (size_t)snprintf(out + o, 40, " 1");
	out[o] = '\0';
	return out;
}

/* The largest count of the lines of text (what follows each line's last blank). */
static unsigned long long largest_count(const char *text)
{
	unsigned long long max = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p), *sp = NULL;

		for (const char *q = p; q < end; q++)
			if (*q == ' ')
				sp = q;
		if (sp && sp[1] >= '0' && sp[1] <= '9') {
			unsigned long long c = strtoull(sp + 1, NULL, 10);

			max = c > max ? c : max;
		}
		p = nl ? nl + 1 : end;
	}
	return max;
}

static void check_summary(const struct prof_summary *s)
{
	uint64_t busy = s->samples - s->idle, self = 0;

	if (s->idle > s->samples)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		const struct prof_func *f = &s->f[i];

		if (f->self > f->total || f->total > busy || !(f->share >= 0 && f->share <= 1) ||
		    !(f->total_share >= 0 && f->total_share <= 1))
			abort();
		self = self > UINT64_MAX - f->self ? UINT64_MAX : self + f->self;
	}
	if (self > busy)
		abort();
}

/* The flame graph of f (and, differential, against g): it must end, whole, with no NaN. */
static void graph(const struct prof_folded *f, const struct prof_folded *g, double w)
{
	struct sink s = { 0 };
	FILE *out = fopencookie(&s, "w", (cookie_io_functions_t){ .write = sink_write });
	struct fg_tree *t = fg_tree_new();
	struct fg_labels l = { .id = "f", .title = "fuzz <&>", .unit = "cycles/byte", .side = { "base", "new" },
			       .diff = g != NULL };

	if (!out || !t)
		abort();
	if (fg_tree_add(t, 1, f, w) == 0 && (!g || fg_tree_add(t, 0, g, 1.0) == 0)) {
		if (fg_svg(out, t, &l, true) < 0)
			abort();
		fflush(out);
		if (s.nan || s.n < 7 || memcmp(s.tail + sizeof(s.tail) - 7, "</svg>\n", 7))
			abort();
	}
	fclose(out);
	fg_tree_free(t);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double weights[] = { 1.0, 1e300, -1.5, 1e-300, 0.01, 2.5, 1e15, 0 };
	struct prof_folded f = { 0 };
	struct prof_summary s = { 0 }, m = { 0 }, runs[2];
	struct prof_diff_row *rows = NULL;
	struct prof_func *cmds = NULL;
	size_t ncmds = 0, nrows = 0;
	char err[512], *text;
	int ok;

	double t0 = cpu_s();

	if (size < 2)
		return 0;
	text = expand(data + 2, size - 2, 1 + (size_t)data[1] * 64);
	err[0] = '\0';
	if (data[0] & 1)
		ok = prof_fold_perf_script(text, &f, err, sizeof(err)) >= 0;
	else
		ok = prof_folded_parse("fuzz", text, &f, err, sizeof(err)) == 0;
	if (!ok && !memchr(err, '\0', sizeof(err)))
		abort();
	if (ok && !(data[0] & 1) && largest_count(text) > PROF_MAX_COUNT)
		abort(); /* a count a double cannot hold was taken */
	if (ok && prof_reduce(&f, 1.5, &s) == 0) {
		if (s.samples != prof_folded_total(&f))
			abort();
		check_summary(&s);
		runs[0] = s;
		runs[1] = s;
		if (prof_merge(runs, 2, &m) == 0) {
			check_summary(&m);
			if (prof_diff(&s, &m, &rows, &nrows) != 0)
				abort();
		}
		if (prof_commands(&f, &cmds, &ncmds) == 0)
			prof_funcs_free(cmds, ncmds);
		graph(&f, NULL, weights[(data[0] >> 1) & 7]);
		graph(&f, &f, weights[(data[0] >> 1) & 7]);
	}
	free(rows);
	prof_summary_free(&m);
	prof_summary_free(&s);
	prof_folded_free(&f);
	free(text);
	if (cpu_s() - t0 > FUZZ_CPU_BUDGET) {
		fprintf(stderr, "fuzz_profile: %.1f s of CPU for one input, over %.1f s: slower than linear?\n",
			cpu_s() - t0, FUZZ_CPU_BUDGET);
		abort();
	}
	return 0;
}
