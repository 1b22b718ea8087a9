#!/bin/sh
# Re-draw the charts after editing bars.gp or a *.vars.gp file.
cd "$(dirname "$0")" || exit 1
for v in *.vars.gp; do
	t=bars.gp
	case $v in time-*) t=timeseries.gp;; latency.vars.gp) t=latency.gp;; esac
	for fmt in png svg; do
		gnuplot -e "fmt='$fmt'" "$v" $t || exit 1
	done
done
