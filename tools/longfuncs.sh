#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The functions longer than N lines (default 80), longest first, as
#     LINES  FILE:LINE  NAME
# from the opening of the definition to its closing brace. It reads the
# kernel style the tree is written in: a definition starts at column 0 and
# its body's braces are alone at column 0.
#
# usage: tools/longfuncs.sh [-n N] [FILE|DIR...]   (default: every .c of
#        collector/, analyze/ and probes/, .bpf.c included)
set -eu
# shellcheck disable=SC2034 # read by long_lib.sh
me=longfuncs.sh max=80 dirs="collector analyze probes"
# shellcheck source=tools/long_lib.sh
. "$(dirname "$0")/long_lib.sh"
c_files "$@" | while read -r f; do
	awk -v max="$max" '
	FNR == 1 { sig = ""; start = 0; body = 0 }
	# a definition: a line at column 0 that starts a name, up to the "{" alone
	!body && /^[A-Za-z_]/ && !/;[ \t]*$/ && !/^(typedef|struct [A-Za-z_]+ *\{|enum|union)/ {
		sig = $0; start = FNR; next
	}
	!body && sig != "" && /^\{/ { body = 1; next }
	!body && sig != "" && /^[ \t]/ { sig = sig " " $0; next }
	!body { sig = "" }
	body && /^\}/ {
		n = FNR - start + 1
		name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
		if (n > max) printf "%5d  %s:%d  %s\n", n, FILENAME, start, name
		body = 0; sig = ""
	}' "$f"
done | sort -rn
