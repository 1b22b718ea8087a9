#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A copy of a built kernel tree that make rebuilds only where it differs:
# the source hard-linked (cp -al: seconds, no space), its build folder
# TREE/build copied with its mtimes (cp -a), and then PATCH applied to the
# copy, the files it changes written anew first so that the original
# keeps its own. For a build folder directly inside its tree: kbuild then
# names the source "..", the same in both. objtool's and resolve_btfids'
# commands name the folders by their paths, so those are moved to COPY's;
# as they were, make would rebuild both tools and then every object.
#
# usage: tools/kernel-tree-copy.sh TREE COPY [PATCH]
#   COPY must not exist; on failure it is removed. The copy of the build
#   folder is made under TREE/build's ipsecperf-build.lock (`kernel
#   build` holds it while it writes there).
set -u
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: tools/kernel-tree-copy.sh TREE COPY [PATCH]" >&2; exit 2; }
tree=${1%/} copy=${2%/} patch=${3:-}
die() {
	echo "kernel-tree-copy: $*" >&2
	rm -rf "$copy"
	exit 1
}
[ -f "$tree/Makefile" ] && [ -d "$tree/build" ] || { echo "kernel-tree-copy: $tree: not a tree with a build/ folder" >&2; exit 2; }
[ ! -e "$copy" ] || { echo "kernel-tree-copy: $copy exists" >&2; exit 2; }
tree=$(realpath "$tree")
mkdir "$copy" && copy=$(realpath "$copy") || die "cannot make $copy"
# the source without its build folder, which a build may be writing (its
# temporary files come and go): that is copied below, under its lock
for e in "$tree"/* "$tree"/.[!.]*; do
	[ -e "$e" ] || continue
	case ${e##*/} in build | .ipsecperf-unpacked) continue ;; esac
	cp -al "$e" "$copy/" || die "cannot copy $e to $copy"
done
if [ -n "$patch" ] && [ -s "$patch" ]; then
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch"); do
		case $f in */../* | ../* | /*) die "bad path in $patch: $f" ;; esac
		[ ! -f "$copy/$f" ] || { cp "$copy/$f" "$copy/$f.new" && mv "$copy/$f.new" "$copy/$f"; } ||
			die "cannot copy $f"
	done
	patch -s -d "$copy" -p1 < "$patch" || die "$patch does not apply to $tree"
fi
flock "$tree/build/ipsecperf-build.lock" cp -a "$tree/build" "$copy/build" || die "cannot copy $tree/build"
find "$copy/build/tools" -name '.*.cmd' -exec sed -i "s|$tree/|$copy/|g" {} + ||
	die "cannot move the tools' commands to $copy"
