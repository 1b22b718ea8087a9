#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The .c files longer than N lines (default 800), longest first, as
#     LINES  FILE
# a report beside tools/longfuncs.sh: a file that long does more than one
# job. Only the folders named are read; by default the program's
# (collector/, analyze/ and probes/). tests/integration/test_layers.sh
# checks that it finds none.
#
# usage: tools/longfiles.sh [-n N] [FILE|DIR...]   (default: collector analyze probes)
set -eu
# shellcheck disable=SC2034 # read by long_lib.sh
me=longfiles.sh max=800 dirs="collector analyze probes"
# shellcheck source=tools/long_lib.sh
. "$(dirname "$0")/long_lib.sh"
c_files "$@" | while read -r f; do
	n=$(wc -l < "$f")
	[ "$n" -le "$max" ] || printf '%5d  %s\n' "$n" "$f"
done | sort -rn
