// SPDX-License-Identifier: GPL-2.0
#include "until_ci.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

void until_ci_eval(const double *x, int n, double pct, struct until_ci *u)
{
	u->n = n;
	u->median = n ? stats_median(x, n) : NAN;
	u->lo = u->hi = u->width_pct = NAN;
	u->reached = false;
	if (n < UNTIL_CI_MIN || isnan(stats_median_ci(x, n, &u->lo, &u->hi)))
		return;
	if (u->median > 0)
		u->width_pct = 100 * (u->hi - u->lo) / u->median;
	u->reached = u->width_pct < pct;
}

bool until_ci_stop(const struct until_ci *u, int done, int max_repeat)
{
	return u->reached || done >= max_repeat;
}

/* ---- the simulation ---- */

static unsigned long long rng_state;

static double uniform(void)
{
	/* xorshift64*: fast, and enough for a coverage estimate */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) + 1e-18;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

enum shape { SHAPE_NORMAL, SHAPE_LOGNORMAL, SHAPE_STALLS };

/* One run's throughput around a true median of 1. */
static double draw(enum shape sh, double cv)
{
	switch (sh) {
	case SHAPE_NORMAL:
		return 1 + cv * normal();
	case SHAPE_LOGNORMAL:
		return exp(cv * normal()); /* median exp(0) = 1 */
	case SHAPE_STALLS:
		/* 15% of runs hit a stall and lose half; the rest are normal around 1.0 */
		return (uniform() < 0.15 ? 0.5 : 1.0) + cv * normal();
	}
	return 1;
}

/* The true median of a shape, where it is not 1 by construction: from a large sample. */
static double true_median(enum shape sh, double cv)
{
	enum { N = 200001 };
	double *x, m;

	if (sh != SHAPE_STALLS)
		return 1;
	x = malloc(N * sizeof(*x));
	if (!x)
		return NAN;
	for (int i = 0; i < N; i++)
		x[i] = draw(sh, cv);
	m = stats_median(x, N);
	free(x);
	return m;
}

int until_ci_simulate(FILE *f, int trials, unsigned long long seed)
{
	static const char *const names[] = { "normal", "lognormal", "stalls" };
	static const double cvs[] = { 0.02, 0.05, 0.10 };
	static const double pcts[] = { 2, 5, 10 };
	static const int maxes[] = { 10, 30 };
	double x[64];

	rng_state = seed ? seed : 1;
	fprintf(f, "ipsecperf compare --simulate-until-ci --trials %d --seed %llu\n\n", trials, seed);
	fprintf(f, "Each row: %d scenarios repeated until the 95%% interval of the median is\n"
		   "narrower than PCT%% of the median (at least %d runs) or MAX runs are done.\n"
		   "runs: mean repeats taken; reached: share that met PCT; cover: share of\n"
		   "final intervals holding the true median (all; those that met PCT).\n\n",
		trials, UNTIL_CI_MIN);
	fprintf(f, "%-9s %4s %4s %4s %6s %8s %7s %8s\n", "noise", "cv", "PCT", "MAX", "runs", "reached",
		"cover", "cover|r");
	for (int sh = 0; sh < 3; sh++)
		for (size_t c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++) {
			double tm = true_median(sh, cvs[c]);

			for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++)
				for (size_t mx = 0; mx < sizeof(maxes) / sizeof(maxes[0]); mx++) {
					long runs = 0, reached = 0, cover = 0, cover_r = 0;

					for (int t = 0; t < trials; t++) {
						struct until_ci u;
						int n = 0;

						do {
							x[n] = draw(sh, cvs[c]);
							n++;
							until_ci_eval(x, n, pcts[p], &u);
						} while (!until_ci_stop(&u, n, maxes[mx]));
						runs += n;
						reached += u.reached;
						if (u.lo <= tm && tm <= u.hi) {
							cover++;
							cover_r += u.reached;
						}
					}
					fprintf(f, "%-9s %3.0f%% %3.0f%% %4d %6.1f %7.1f%% %6.1f%% ", names[sh],
						100 * cvs[c], pcts[p], maxes[mx], (double)runs / trials,
						100.0 * reached / trials, 100.0 * cover / trials);
					if (reached)
						fprintf(f, "%7.1f%%\n", 100.0 * cover_r / reached);
					else
						fprintf(f, "%8s\n", "-");
				}
		}
	return ferror(f) ? -1 : 0;
}
