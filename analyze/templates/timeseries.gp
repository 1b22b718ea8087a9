# SPDX-License-Identifier: GPL-2.0
# ipsecperf chart template: throughput over time inside the runs of one
# kernel and scenario, one line per repeat, from the 1 s intervals that
# iperf3 -J or the stream load kept in raw/ (the warm-up left out).
#
#     cd DIR && gnuplot -e "fmt='png'" time-gN.vars.gp timeseries.gp
#
# Settings a time-gN.vars.gp gives: datafile, outfile (without extension),
# title, nsubtitle and subtitle[1..nsubtitle] (provenance lines), nr (the
# number of repeats) and rlabel[1..nr]. The data file holds one block per
# repeat (two blank lines between): the interval's end in seconds, Gbit/s.

if (!exists("fmt")) fmt = 'png'
if (!exists("nsubtitle")) nsubtitle = 0
if (fmt eq 'svg') {
	set terminal svg size 900,400 dynamic font 'Helvetica,12' background rgb 'white'
} else {
	set terminal pngcairo size 900,400 font 'sans,10' background rgb 'white'
}
set output outfile.'.'.fmt

fulltitle = title
do for [i=1:nsubtitle] { fulltitle = fulltitle."\n".subtitle[i] }
set title fulltitle noenhanced
set xlabel 'seconds into the measurement'
set ylabel 'Gbit/s'
set key outside right top vertical noenhanced
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set grid xtics ytics

plot for [i=0:nr-1] datafile index i using 1:2 with linespoints pt 7 ps 0.4 title rlabel[i+1]
