# SPDX-License-Identifier: GPL-2.0
# ipsecperf chart template: the latency of the request/response scenarios
# as a distribution, HdrHistogram's percentile plot: the x axis runs
# through the percentiles by their "nines" (50%, 90%, 99%, 99.9%, ...), so
# that the tail, where ESP's per-packet cost and the host's noise show, is
# as wide as the middle. One line per kernel and scenario: at each
# percentile, the median over the runs of that run's value.
#
#     cd DIR && gnuplot -e "fmt='png'" latency.vars.gp latency.gp
#
# Settings latency.vars.gp gives: datafile, outfile (without extension),
# title, nsubtitle and subtitle[1..nsubtitle] (provenance lines), nl (the
# number of lines) and llabel[1..nl]. The data file holds one block per
# line (two blank lines between): 1/(1 - quantile), microseconds.

if (!exists("fmt")) fmt = 'png'
if (!exists("nsubtitle")) nsubtitle = 0
if (fmt eq 'svg') {
	set terminal svg size 900,450 dynamic font 'Helvetica,12' background rgb 'white'
} else {
	set terminal pngcairo size 900,450 font 'sans,10' background rgb 'white'
}
set output outfile.'.'.fmt

fulltitle = title
do for [i=1:nsubtitle] { fulltitle = fulltitle."\n".subtitle[i] }
set title fulltitle noenhanced
set logscale x 10
set logscale y 10
set xtics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000)
set xlabel 'percentile'
set ylabel 'latency, microseconds'
set key outside right top vertical noenhanced
set grid xtics ytics mytics

plot for [i=0:nl-1] datafile index i using 1:2 with linespoints pt 7 ps 0.5 title llabel[i+1]
