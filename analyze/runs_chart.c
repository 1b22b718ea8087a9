// SPDX-License-Identifier: GPL-2.0
/* Two samples as a dot chart in SVG (runs_chart.h): for compare's page. */
#include <math.h>

#include "html.h"
#include "runs_chart.h"

#define RC_W 560
#define RC_L 90    /* room for the side's label */
#define RC_R 20
#define RC_ROW 44  /* px per side */
#define RC_MAX_TICKS 20 /* a 1-2-5 step gives 5 to 11; more only on values no step can part */

/* A step of 1, 2 or 5 x 10^k giving about 5 ticks over span. */
static double tick_step(double span)
{
	double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static double px(double v, double lo, double hi)
{
	return RC_L + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (RC_W - RC_L - RC_R);
}

/* One side's row: its interval as a band, the median as a bar, each run a dot. */
static void side_row(FILE *f, const struct runs_side *s, int row, double lo, double hi, const char *colour)
{
	double y = 10 + row * RC_ROW + RC_ROW / 2.0;

	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", RC_L - 8, y + 4);
	xml_esc(f, s->label, 12);
	fputs("</text>\n", f);
	if (isfinite(s->lo) && isfinite(s->hi))
		fprintf(f, "<rect class=\"interval\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" fill=\"%s\" "
			   "fill-opacity=\"0.2\"/>\n", px(s->lo, lo, hi), y - 10, px(s->hi, lo, hi) - px(s->lo, lo, hi),
			colour);
	if (isfinite(s->median))
		fprintf(f, "<line class=\"median\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"3\"/>\n", px(s->median, lo, hi), px(s->median, lo, hi), y - 14, y + 14, colour);
	for (int i = 0; i < s->n; i++)
		fprintf(f, "<circle class=\"run\" cx=\"%.2f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" fill-opacity=\"0.7\"/>\n",
			px(s->v[i], lo, hi), y - 8 + (i % 5) * 4, colour);
}

int runs_chart_svg(FILE *f, const struct runs_side *base, const struct runs_side *new, const char *unit)
{
	double lo = INFINITY, hi = -INFINITY, step, h = 10 + 2 * RC_ROW + 40, nt, prev = 0;
	int dec;
	const struct runs_side *s[2] = { base, new };

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < s[k]->n; i++) {
			lo = fmin(lo, s[k]->v[i]);
			hi = fmax(hi, s[k]->v[i]);
		}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	step = hi > lo ? tick_step(hi - lo) : (lo ? fabs(lo) / 10 : 1);
	lo = floor(lo / step) * step;
	hi = ceil(hi / step) * step;
	if (hi <= lo)
		hi = lo + step;
	/* as many decimals as the step needs (0.0005 beside 0.0010), at most 9 */
	dec = (int)fmax(0, fmin(9, -floor(log10(step) + 1e-9)));
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"runs\" width=\"%d\" height=\"%.0f\" "
		   "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", RC_W, h, RC_W, h);
	fprintf(f, "<rect width=\"%d\" height=\"%.0f\" fill=\"rgb(255,255,255)\"/>\n", RC_W, h);
	/*
	 * Ticks are counted, not stepped: at 1e17 a step of 2 is below the
	 * spacing of doubles, and t += step would never reach hi. A tick that
	 * rounds to the one before it is not drawn twice.
	 */
	nt = (hi - lo) / step + 0.5;
	for (int i = 0; i <= (nt >= 0 && nt < RC_MAX_TICKS ? (int)nt : RC_MAX_TICKS) && !ferror(f); i++) {
		double t = lo + i * step;

		if (i && t == prev)
			continue;
		prev = t;
		fprintf(f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"10\" y2=\"%d\" stroke=\"rgb(220,220,220)\"/>"
			   "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n",
			px(t, lo, hi), px(t, lo, hi), 10 + 2 * RC_ROW, px(t, lo, hi), 10 + 2 * RC_ROW + 16, dec,
			fabs(t) < step / 1e6 ? 0 : t);
	}
	side_row(f, base, 0, lo, hi, "rgb(60,60,200)");
	side_row(f, new, 1, lo, hi, "rgb(210,90,0)");
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">", (RC_W + RC_L) / 2, h - 4);
	xml_esc(f, unit, 60);
	fputs("</text>\n</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
