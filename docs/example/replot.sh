#!/bin/sh
# Re-draw the charts after editing bars.gp or a *.vars.gp file.
cd "$(dirname "$0")" || exit 1
for v in *.vars.gp; do
	for fmt in png svg; do
		gnuplot -e "fmt='$fmt'" "$v" bars.gp || exit 1
	done
done
