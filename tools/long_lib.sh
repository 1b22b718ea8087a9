# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # me, max and dirs: the sourcing script's
# What tools/longfuncs.sh and tools/longfiles.sh share, sourced after they
# set me (their name), max (the default N) and dirs (the default folders):
# takes -n N into max, checks the FILE|DIR operands (default: $dirs), moves
# to the top of the tree, and defines c_files, which prints the operands'
# .c files, sorted.
while getopts n: opt; do
	case $opt in
	n) max=$OPTARG ;;
	*) echo "usage: $0 [-n N] [FILE|DIR...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $max in '' | *[!0-9]*) echo "$me: -n wants a number, not '$max'" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2086 # dirs is a list of words
[ $# -gt 0 ] || set -- $dirs
# checked here, since an exit in c_files' pipeline would leave only its subshell
for a in "$@"; do
	[ -e "$a" ] || { echo "$me: $a: no such file or folder" >&2; exit 2; }
done

c_files() {
	for a in "$@"; do
		if [ -d "$a" ]; then
			find "$a" -name '*.c' -type f
		else
			echo "$a"
		fi
	done | sort
}
