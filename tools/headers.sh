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

# "symbol file.c" for every function or object the program defines (one
# nm for every object; a stale object of a moved file is left out)
find "$objdir" -name '*.o' | sort > "$work/objs"
[ -s "$work/objs" ] || { echo "headers.sh: no objects in $objdir (run make first)" >&2; exit 2; }
# shellcheck disable=SC2046 # one object path a line, no spaces
nm -A --defined-only $(cat "$work/objs") 2>/dev/null |
	awk -v d="$objdir/" 'NF == 3 && $2 ~ /^[TDRB]$/ {
		f = $1; sub(/:[0-9a-f]*$/, "", f); sub(/^.*:/, "", f) # "obj.o:addr" (nm -A) -> obj.o
		if (index(f, d) == 1) f = substr(f, length(d) + 1)
		sub(/\.o$/, ".c", f); print $3, f }' |
	while read -r sym src; do [ -f "$src" ] && echo "$sym $src"; done > "$work/defs"

# Every header, in one awk: the names it declares (identifiers before "("
# outside comments and the bodies of its static inline functions), and
# whether its first comment after the SPDX line says it is a façade.
find collector analyze probes -name '*.h' 2>/dev/null | sort > "$work/headers"
# shellcheck disable=SC2046 # one header path a line, no spaces
awk '
	FNR == 1 { c = 0; s = 0; first = 1; said[FILENAME] = 0; seen[FILENAME] = 1 }
	first && /SPDX-License-Identifier/ { next }
	first { if (tolower($0) ~ /fa(ç|c)ade/) said[FILENAME] = 1; if (/\*\//) first = 0 }
	/\/\*/ { c = 1 } c { if (/\*\//) c = 0; next }
	/^static inline/ { s = 1 } s { if (/^}/) s = 0; next }
	{ sub(/\/\/.*/, ""); while (match($0, /[a-z_][a-z0-9_]*[ \t]*\(/)) {
		n = substr($0, RSTART, RLENGTH - 1); sub(/[ \t]*$/, "", n); print "N", FILENAME, n
		$0 = substr($0, RSTART + RLENGTH) } }
	END { for (h in seen) print "S", h, said[h] }' $(cat "$work/headers") > "$work/names"

# Join: per header, the files that define what it declares; a header whose
# files are not only its own module (foo.h, foo_int.h: foo.c) and that
# does not say it is a façade is reported.
awk '
	NR == FNR { def[$1] = $2; next }
	$1 == "S" { said[$2] = $3; next }
	$1 == "N" && ($3 in def) && !(($2, $3) in done) { done[$2, $3] = 1; n[$2, def[$3]]++; files[$2] = files[$2] " " def[$3] }
	END {
		for (h in files) {
			m = h; sub(/\.h$/, "", m); sub(/_int$/, "", m)
			k = split(files[h], fs, " "); other = 0; list = ""; split("", uniq)
			for (i = 1; i <= k; i++) if (!(fs[i] in uniq)) { uniq[fs[i]] = 1; f = fs[i]; sub(/\.c$/, "", f); if (f != m) other = 1 }
			if (!other || said[h]) continue
			nf = 0; for (f in uniq) sorted[++nf] = f
			for (i = 2; i <= nf; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) { t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
			for (i = 1; i <= nf; i++) list = list (i > 1 ? ", " : "") sorted[i] " (" n[h, sorted[i]] ")"
			print h ": declares functions of " list
		}
	}' "$work/defs" "$work/names" | sort > "$work/out"
cat "$work/out"
[ ! -s "$work/out" ]
