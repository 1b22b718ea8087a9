# SPDX-License-Identifier: GPL-2.0
# ipsecperf chart template: one group of bars per scenario, one bar per
# kernel; bar = median, whisker = min-max over the ok runs, a dot = one
# run; n in the labels.
#
# `ipsecperf report --charts DIR` copies this file into DIR with, for each
# chart, a data file NAME.dat, the runs NAME.runs.dat and its settings
# NAME.vars.gp. To re-plot after editing either (DIR/replot.sh does all of
# them):
#
#     cd DIR && gnuplot -e "fmt='png'" NAME.vars.gp bars.gp
#
# Settings a NAME.vars.gp gives: datafile, runsfile, outfile (without
# extension), title, nsubtitle and subtitle[1..nsubtitle] (lines of
# provenance: kernels, host, testbed, accelerator), ylabel, logscale (1 where the values span more than 10x),
# nk (number of kernels) and kernel[1..nk] (their names), ns (number of
# scenarios) and label[1..ns] (their tic labels, with n).
# Names are gnuplot strings in single quotes, never script text. The data
# file holds only numbers: column 1 the scenario's number (its label is
# label[n]), then for kernel k (from 1) 3k-1 median, 3k min, 3k+1 max;
# "-" marks a missing value. The runs file: scenario number, kernel
# number, one run's value per line.

if (!exists("fmt")) fmt = 'png'
if (!exists("nsubtitle")) nsubtitle = 0
if (!exists("logscale")) logscale = 0
if (fmt eq 'svg') {
	set terminal svg size 900,480 dynamic font 'Helvetica,12' background rgb 'white'
} else {
	set terminal pngcairo size 900,480 font 'sans,10' background rgb 'white'
}
set output outfile.'.'.fmt

set datafile missing '-'
fulltitle = title
do for [i=1:nsubtitle] { fulltitle = fulltitle."\n".subtitle[i] }
set title fulltitle noenhanced
set ylabel ylabel noenhanced
set key outside bottom center horizontal noenhanced
set style fill solid 0.55 border -1
bw = 0.8 / nk
set boxwidth bw * 0.9
xpos(s, k) = s + (k - (nk + 1) / 2.0) * bw
set xrange [0.4:ns + 0.6]
set xtics () noenhanced nomirror rotate by -20 left
do for [s=1:ns] { set xtics add (label[s] s) }
if (logscale) {
	set logscale y
	set yrange [*:*]
	set ylabel ylabel.' (log scale)' noenhanced
} else {
	set yrange [0:*]
	set offsets 0, 0, graph 0.08, 0
}
set grid ytics
set bars front

plot for [k=1:nk] datafile using (xpos($1, k)):(column(3*k-1)) with boxes lc k title kernel[k], \
	for [k=1:nk] datafile using (xpos($1, k)):(column(3*k-1)):(column(3*k)):(column(3*k+1)) \
		with yerrorbars lc rgb 'black' pt -1 lw 1.5 notitle, \
	runsfile using (xpos($1, $2) - bw / 4):3 with points pt 7 ps 0.5 lc rgb '#202020' title 'runs'
