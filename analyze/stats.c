// SPDX-License-Identifier: GPL-2.0
#include "stats.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_sorted(const double *s, int n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median(const double *x, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = median_sorted(s, n);
	free(s);
	return m;
}

double stats_median_ci(const double *x, int n, double *lo, double *hi)
{
	double *s, tail = 0, term = ldexp(1.0, -n); /* C(n, 0) / 2^n */
	int k = 0;

	*lo = *hi = NAN;
	if (n <= 0 || n > 1000 || !(s = malloc(n * sizeof(*s))))
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	while (k < n && tail + term <= 0.025) {
		tail += term;
		term = term * (n - k) / (k + 1); /* C(n, k+1) / 2^n */
		k++;
	}
	if (k) {
		*lo = s[k - 1];
		*hi = s[n - k];
	}
	free(s);
	return k ? 1 - 2 * tail : NAN;
}

double stats_median_interval(const double *x, int n, double *lo, double *hi)
{
	double cover = stats_median_ci(x, n, lo, hi);

	if (!isnan(cover) || n < 2 || n > 1000)
		return cover;
	/* too few for 95%: the widest such interval, min-max, covers 1 - 2 / 2^n */
	*lo = *hi = x[0];
	for (int i = 1; i < n; i++) {
		*lo = x[i] < *lo ? x[i] : *lo;
		*hi = x[i] > *hi ? x[i] : *hi;
	}
	return 1 - ldexp(1.0, 1 - n);
}

void stats_compute(const double *x, int n, struct stats *st)
{
	double *s, sum = 0, ss = 0;

	st->n = n > 0 ? n : 0;
	st->median = st->min = st->max = st->mean = NAN;
	st->sd = st->ci_lo = st->ci_hi = st->cv = NAN;
	st->iv_lo = st->iv_hi = st->iv_cover = NAN;
	if (n <= 0)
		return;
	st->iv_cover = stats_median_interval(x, n, &st->iv_lo, &st->iv_hi);
	s = malloc(n * sizeof(*s));
	if (!s) {
		st->n = 0;
		return;
	}
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	st->min = s[0];
	st->max = s[n - 1];
	st->median = median_sorted(s, n);
	for (int i = 0; i < n; i++)
		sum += s[i];
	st->mean = sum / n;
	free(s);
	if (n < 2)
		return;
	/* two passes: the spread is tiny next to the mean for good runs */
	for (int i = 0; i < n; i++)
		ss += (x[i] - st->mean) * (x[i] - st->mean);
	st->sd = sqrt(ss / (n - 1));
	double half = t_quantile(0.975, n - 1) * st->sd / sqrt(n);

	st->ci_lo = st->mean - half;
	st->ci_hi = st->mean + half;
	if (st->mean != 0)
		st->cv = st->sd / fabs(st->mean);
}

/* Continued fraction for the incomplete beta (modified Lentz). */
static double beta_cf(double x, double a, double b)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 500; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double inc_beta(double x, double a, double b)
{
	double front;

	if (isnan(x) || a <= 0 || b <= 0)
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(x, a, b) / a;
	return 1 - front * beta_cf(1 - x, b, a) / b;
}

/* P(|T| >= |t|) for Student t with df degrees of freedom */
static double t_two_tail(double t, double df)
{
	if (isinf(t))
		return 0;
	return inc_beta(df / (df + t * t), df / 2, 0.5);
}

double t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (t * t < df) {
		/* near the centre: P(|T| < |t|) directly, precise for small t */
		double inner = inc_beta(t * t / (df + t * t), 0.5, df / 2) / 2;

		return t > 0 ? 0.5 + inner : 0.5 - inner;
	}
	tail = t_two_tail(t, df) / 2;
	return t > 0 ? 1 - tail : tail;
}

double t_quantile(double q, double df)
{
	double lo = -1, hi = 1;

	if (!(q > 0 && q < 1) || !(df > 0))
		return NAN;
	while (t_cdf(lo, df) > q)
		lo *= 2;
	while (t_cdf(hi, df) < q)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void mean_var(const double *x, int n, double *mean, double *var)
{
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = ss / (n - 1);
}

double welch_p(const double *a, int na, const double *b, int nb)
{
	double ma, va, mb, vb, sa, sb, se2, t, df;

	if (na < 2 || nb < 2)
		return NAN;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	if (se2 == 0)
		return ma == mb ? NAN : 0;
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	return t_two_tail(t, df);
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *x, const void *y)
{
	return cmp_double(&((const struct tagged *)x)->v, &((const struct tagged *)y)->v);
}

double mann_whitney_min_p(int na, int nb)
{
	/* the most extreme split, in either tail: 2 / C(na + nb, na) */
	double c = 1;

	if (na <= 0 || nb <= 0)
		return NAN;
	for (int i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	return fmin(1, 2 / c);
}

/*
 * Pool a and b, sorted, into t; r2[i]: twice the mid-rank of t[i] (an
 * integer). Returns the tie correction, the sum of (size^3 - size) over
 * each run of equal values.
 */
static double mw_ranks(const double *a, int na, const double *b, int nb, struct tagged *t, int *r2)
{
	int n = na + nb;
	double ties = 0;

	for (int i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (int i = 0; i < nb; i++)
		t[na + i] = (struct tagged){ b[i], 0 };
	qsort(t, n, sizeof(*t), cmp_tagged);
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		/* ranks i+1..j+1 share (i+1 + j+1)/2; doubled: i + j + 2 */
		for (int k = i; k <= j; k++)
			r2[k] = i + j + 2;
		ties += (double)(j - i + 1) * (j - i + 1) * (j - i + 1) - (j - i + 1);
		i = j + 1;
	}
	return ties;
}

/*
 * The exact two-sided p: the share of the ways to pick na of the n pooled
 * doubled ranks r2 whose sum is at least dev from e2. NAN out of memory.
 */
static double mw_exact_p(const int *r2, int n, int na, bool no_ties, long e2, long dev)
{
	/*
	 * cnt[k][s]: ways to pick k of the pooled values with doubled rank
	 * sum s. Without ties the distribution depends on (na, n) only, so
	 * the last one is kept: the simulation calls this many times.
	 */
	static long double *cache;
	static int cache_na, cache_n;
	long smax = (long)n * (n + 1);
	long double *cnt = NULL, *row, total = 0, hit = 0;

	if (no_ties && cache && cache_na == na && cache_n == n) {
		row = cache;
	} else {
		cnt = calloc((size_t)(na + 1) * (smax + 1), sizeof(*cnt));
		if (!cnt)
			return NAN;
		cnt[0] = 1;
		for (int i = 0; i < n; i++)
			for (int k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
				for (long s = smax; s >= r2[i]; s--)
					cnt[k * (smax + 1) + s] += cnt[(k - 1) * (smax + 1) + s - r2[i]];
		row = cnt + na * (smax + 1);
		if (no_ties) {
			long double *c = malloc((smax + 1) * sizeof(*c));

			if (c) {
				memcpy(c, row, (smax + 1) * sizeof(*c));
				free(cache);
				cache = c;
				cache_na = na;
				cache_n = n;
			}
		}
	}
	for (long s = 0; s <= smax; s++) {
		total += row[s];
		if (labs(s - e2) >= dev)
			hit += row[s];
	}
	free(cnt);
	return (double)(hit / total);
}

/* The normal approximation with continuity and tie corrections. */
static double mw_normal_p(int na, int nb, double ties, double u)
{
	int n = na + nb;
	double mu = (double)na * nb / 2;
	double var = (double)na * nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
	double z;

	if (var <= 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	return z <= 0 ? 1 : erfc(z / M_SQRT2);
}

double mann_whitney_p(const double *a, int na, const double *b, int nb, double *u_out)
{
	int n = na + nb;
	struct tagged *t;
	int *r2;        /* twice the mid-rank of each pooled value: an integer */
	long w2 = 0;    /* twice the rank sum of sample a */
	double ties, p = NAN, u;

	if (u_out)
		*u_out = NAN;
	if (na <= 0 || nb <= 0)
		return NAN;
	t = malloc(n * sizeof(*t));
	r2 = malloc(n * sizeof(*r2));
	if (!t || !r2)
		goto out_free;
	ties = mw_ranks(a, na, b, nb, t, r2);
	for (int i = 0; i < n; i++)
		if (t[i].from_a)
			w2 += r2[i];
	u = w2 / 2.0 - na * (na + 1) / 2.0;
	if (u_out)
		*u_out = u;

	long e2 = (long)na * (n + 1); /* twice the expected rank sum */
	long dev = labs(w2 - e2);

	if (n <= MW_EXACT_MAX)
		p = mw_exact_p(r2, n, na, ties == 0, e2, dev);
	else
		p = mw_normal_p(na, nb, ties, u);
	if (p > 1)
		p = 1;
out_free:
	free(t);
	free(r2);
	return p;
}

double stats_modes(const double *x, int n, double *lo, double *hi)
{
	double s[STATS_MODES_MAX], gap = 0, split = NAN;
	int at = 0;

	*lo = *hi = NAN;
	if (n < 4 || n > STATS_MODES_MAX)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	/* the widest gap between neighbours, each side at least two values */
	for (int i = 1; i + 1 < n; i++)
		if (i >= 2 && s[i] - s[i - 1] > gap) {
			gap = s[i] - s[i - 1];
			at = i;
		}
	if (!at || !(s[n / 2] > 0))
		return NAN;
	double within = fmax(s[at - 1] - s[0], s[n - 1] - s[at]);

	/* a gap that is noise's size, or the spread's, is no split */
	if (gap < STATS_MODES_MIN_GAP * fabs(s[n / 2]) || gap < STATS_MODES_RATIO * within)
		return NAN;
	split = (s[at - 1] + s[at]) / 2;
	*lo = stats_median(s, at);
	*hi = stats_median(s + at, n - at);
	return split;
}
