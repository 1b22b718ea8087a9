# SPDX-License-Identifier: GPL-2.0
# ipsecperf chart template: one group of bars per scenario, one bar per
# kernel; bar = median, whisker = min-max over the ok runs; n in the labels.
#
# `ipsecperf report --charts DIR` copies this file into DIR with, for each
# chart, a data file NAME.dat and its settings NAME.vars.gp. To re-plot
# after editing either (DIR/replot.sh does all of them):
#
#     cd DIR && gnuplot -e "fmt='png'" NAME.vars.gp bars.gp
#
# Settings a NAME.vars.gp gives: datafile, outfile (without extension),
# title, subtitle (provenance: kernels, host, testbed, accelerator),
# ylabel, nk (number of kernels) and kernel[1..nk] (their names),
# ns (number of scenarios) and label[1..ns] (their tic labels, with n).
# Names are gnuplot strings in single quotes, never script text. The data
# file holds only numbers: column 1 the scenario's number (its label is
# label[n]), then for kernel k (from 1) 3k-1 median, 3k min, 3k+1 max;
# "-" marks a missing value.

if (!exists("fmt")) fmt = 'png'
if (fmt eq 'svg') {
	set terminal svg size 900,480 dynamic font 'Helvetica,12' background rgb 'white'
} else {
	set terminal pngcairo size 900,480 font 'sans,10' background rgb 'white'
}
set output outfile.'.'.fmt

set datafile missing '-'
if (!exists("subtitle")) subtitle = ''
set title title."\n".subtitle noenhanced font ',10'
set ylabel ylabel noenhanced
set key outside bottom center horizontal noenhanced
set style data histogram
set style histogram errorbars gap 1 lw 1.5
set style fill solid 0.55 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set xtics noenhanced nomirror rotate by -20 left
set bars front

plot for [k=1:nk] datafile using (column(3*k-1)):(column(3*k)):(column(3*k+1)) \
	:xticlabels(label[int(column(1))]) title kernel[k]
