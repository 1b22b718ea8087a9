#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Check that the source folders are layers and that no two modules depend
# on each other. The layers, bottom up (docs/architecture.md), the
# collector's under collector/, analyze/ and probes/ at the top:
#
#     lib < analyze < host < probes < run < testbed < kbuild < vm < bisect < cmd
#
# A file may include a header of its own folder or of a lower one (so
# analyze/ sees only collector/lib/ and analyze/). A module is foo.c with foo.h, in
# one folder, and foo_int.h, the header foo's own files share; a header
# with no .c of its name is a module of its own.
#
# What it reports, one line each, and exits 1 if there is any:
#   up:    FILE:LINE includes HEADER of a higher layer (both layers named);
#   cycle: modules that depend on each other, directly or through others,
#          with the includes that close the loop.
# With objects (OBJDIR, default ROOT/build/obj when it exists) it also
# reads which module calls which from nm, and reports the same two things
# for calls: a call up a layer, or modules that call each other in a loop
# (which the includes alone may hide, as with a table of functions defined
# in one file and declared in another's header).
#
# Each header is resolved as the compiler does for a quoted include: its
# own folder first, then the folders in the -I order of the Makefile.
# Headers the build generates (build/: version.h, datadir.h, vmlinux.h)
# belong to no layer; the BPF skeleton (*.skel.h) belongs to probes.
#
# usage: tools/layers.sh [-o OBJDIR | -n] [ROOT]     (-n: includes only)
set -eu

objdir= use_objs=1
while getopts o:n opt; do
	case $opt in
	o) objdir=$OPTARG ;;
	n) use_objs= ;;
	*) echo "usage: $0 [-o OBJDIR | -n] [ROOT]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root" ] || { echo "layers.sh: $root: not a folder" >&2; exit 2; }
[ -n "$objdir" ] || objdir=$root/build/obj
[ -d "$objdir" ] || use_objs=

LAYERS="collector/lib analyze collector/host probes collector/run collector/testbed collector/kbuild collector/vm collector/bisect collector/cmd"
work=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every source file, as "folder/name", and every quoted include in them,
# as "folder/name:line:header".
cd "$root"
for d in $LAYERS; do
	[ -d "$d" ] || continue
	for f in "$d"/*.c "$d"/*.h; do
		[ -f "$f" ] && echo "$f"
	done
done > "$work/files"
: > "$work/includes"
if [ -s "$work/files" ]; then
	# shellcheck disable=SC2046
	grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $(cat "$work/files") |
		sed 's/^\([^:]*\):\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2:\3/' > "$work/includes" || true
fi

# Calls between objects: "caller.o U sym" and "definer.o D sym" lines, for
# the objects whose source still exists (a stale .o of a moved file is not
# the tree).
: > "$work/syms"
if [ -n "$use_objs" ]; then
	while read -r f; do
		case $f in *.c) ;; *) continue ;; esac
		o=$objdir/${f%.c}.o
		[ -f "$o" ] || continue
		nm "$o" 2>/dev/null | awk -v m="${f%.c}" '
			$1 == "U" { print m, "U", $2; next }
			NF == 3 && $2 ~ /^[TDRBVWGS]$/ { print m, "D", $3 }'
	done < "$work/files" > "$work/syms"
fi

awk -v layers="$LAYERS" '
# foo_int.h, the header shared by the files of foo, is part of module foo.
function module(path,    m) { m = path; sub(/_int\.h$/, "", m); sub(/\.[ch]$/, "", m); return m }
function dir(path,    d) { d = path; sub(/\/[^\/]*$/, "", d); return d }
# The folder a quoted include of header h in a file of folder d resolves to,
# "" for a generated header or one that is not ours.
function resolve(d, h,    i) {
	if (index(h, "/")) return exists[h] ? dir(h) : ""
	if (exists[d "/" h]) return d
	for (i = 1; i <= nl; i++)
		if (exists[L[i] "/" h]) return L[i]
	if (h ~ /\.skel\.h$/) return "probes"
	return ""
}
# One graph per kind (include, call): a header that holds only types makes
# an include edge that is no call, so the two are not mixed.
function edge(a, b, why, kind) {
	if (a == b || (kind, a, b) in E) return
	E[kind, a, b] = why; out[kind, a] = out[kind, a] " " b
	nodes[a] = 1; nodes[b] = 1
}
# Report the groups of modules that reach each other in graph kind.
function cycles(kind,    n, x, k, j, s, m, a, b, top, group, seen, reach, done, members, nx, stack) {
	for (n in nodes) {
		split("", seen); top = 0; stack[++top] = n
		while (top > 0) {
			x = stack[top--]
			k = split(out[kind, x], nx, " ")
			for (j = 1; j <= k; j++)
				if (!(nx[j] in seen)) { seen[nx[j]] = 1; stack[++top] = nx[j] }
		}
		for (s in seen) reach[n, s] = 1
	}
	for (n in nodes) {
		if ((n in done) || !((n, n) in reach)) continue
		group = n; split("", members); members[n] = 1; done[n] = 1
		for (m in nodes)
			if (m != n && (n, m) in reach && (m, n) in reach) {
				group = group " " m; members[m] = 1; done[m] = 1
			}
		printf "cycle (%s): %s\n", kind, group
		for (a in members)
			for (b in members)
				if ((kind, a, b) in E) printf "    %s\n", E[kind, a, b]
		bad++
	}
}
BEGIN { nl = split(layers, L, " "); for (i = 1; i <= nl; i++) rank[L[i]] = i }
FILENAME ~ /files$/ { exists[$0] = 1; nodes[module($0)] = 1; next }
FILENAME ~ /includes$/ {
	split($0, p, ":"); f = p[1]; line = p[2]; h = p[3]
	d = dir(f); hd = resolve(d, h)
	if (hd == "") next
	hm = module(hd "/" (h ~ /\// ? substr(h, index(h, "/") + 1) : h))
	if (rank[hd] > rank[d]) {
		printf "up: %s:%s includes %s/%s (%s includes from %s, a higher layer)\n", \
			f, line, hd, h, d, hd
		upinc[module(f), hm] = 1
		bad++
	}
	edge(module(f), hm, f ":" line " includes " hd "/" h, "include")
	next
}
# nm lines: "module U sym" / "module D sym"
$2 == "D" { def[$3] = $1; next }
$2 == "U" { nu++; um[nu] = $1; us[nu] = $3; next }
END {
	for (i = 1; i <= nu; i++) {
		if (!(us[i] in def)) continue
		a = um[i]; b = def[us[i]]
		if (a == b) continue
		edge(a, b, a ".c calls " us[i] "() of " b ".c", "call")
		# A call up a layer that no include shows (an extern of its own).
		if (rank[dir(b)] > rank[dir(a)] && !((a, b) in upcall) && !((a, b) in upinc)) {
			upcall[a, b] = 1
			printf "up: %s.c calls %s() of %s.c (%s calls into %s, a higher layer)\n", \
				a, us[i], b, dir(a), dir(b)
			bad++
		}
	}
	cycles("include")
	cycles("call")
	exit (bad > 0)
}' "$work/files" "$work/includes" "$work/syms"
