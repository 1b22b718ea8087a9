#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Headers that declare the functions of several .c files without saying
# so. A header foo.h (or foo_int.h) is the face of foo.c; when the
# functions it declares are defined in other files too (read from the
# objects with nm), it must say it is a façade in its first comment
# ("façade" or "facade"), naming what it gathers. Reported, one line each,
# as
#     HEADER: declares functions of FILE (N), FILE (N), ...
# and exit 1 if there is any.
#
# usage: tools/headers.sh [-o OBJDIR] [ROOT]   (default OBJDIR: ROOT/build/obj)
set -eu

objdir=
while getopts o: opt; do
	case $opt in
	o) objdir=$OPTARG ;;
	*) echo "usage: $0 [-o OBJDIR] [ROOT]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root" ] || { echo "headers.sh: $root: not a folder" >&2; exit 2; }
[ -n "$objdir" ] || objdir=$root/build/obj
[ -d "$objdir" ] || { echo "headers.sh: $objdir: no objects (run make first)" >&2; exit 2; }
cd "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/headers.XXXXXX")
trap 'rm -rf "$work"' EXIT

# "symbol file.c" for every function or object the program defines
find "$objdir" -name '*.o' | while read -r o; do
	src=${o#"$objdir"/}
	[ -f "${src%.o}.c" ] || continue # a stale object of a moved file
	nm --defined-only "$o" 2>/dev/null | awk -v f="${src%.o}.c" 'NF == 3 && $2 ~ /^[TDRB]$/ { print $3, f }'
done > "$work/defs"

find collector analyze probes -name '*.h' 2>/dev/null | sort | while read -r h; do
	# the names a header declares: identifiers before "(" outside comments
	# and outside the bodies of its static inline functions
	awk '
		/\/\*/ { c = 1 } c { if (/\*\//) c = 0; next }
		/^static inline/ { s = 1 } s { if (/^}/) s = 0; next }
		{ sub(/\/\/.*/, ""); while (match($0, /[a-z_][a-z0-9_]*[ \t]*\(/)) {
			print substr($0, RSTART, RLENGTH - 1); $0 = substr($0, RSTART + RLENGTH) } }' "$h" |
		sed 's/[ \t]*$//' | sort -u > "$work/names"
	mod=${h%.h}; mod=${mod%_int}
	files=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { n[$2]++ }
		END { for (f in n) print f, n[f] }' "$work/names" "$work/defs" | sort)
	[ -n "$files" ] || continue
	echo "$files" | awk -v m="$mod" '{ f = $1; sub(/\.c$/, "", f); if (f != m) other = 1 } END { exit !other }' || continue
	# said in its first comment (after the SPDX line)?
	awk '/SPDX-License-Identifier/ { next } { print } /\*\// { exit }' "$h" | grep -qiE 'fa(ç|c)ade' && continue
	printf '%s: declares functions of %s\n' "$h" "$(echo "$files" | awk '{ printf "%s%s (%s)", sep, $1, $2; sep = ", " }')"
done > "$work/out"
cat "$work/out"
[ ! -s "$work/out" ]
