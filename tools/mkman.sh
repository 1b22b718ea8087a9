#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Make the man pages from the help text the program itself prints, so that
# there is no second copy to go stale: ipsecperf(1) from `ipsecperf help`,
# and ipsecperf-COMMAND(1) from `ipsecperf help COMMAND` for every command
# that page lists. A command's second page (`report --profile --help`)
# becomes a section of its own.
#
# usage: tools/mkman.sh PROGRAM OUTDIR VERSION DATE DOCDIR
set -eu
prog=$1 out=$2 version=$3 date=$4 docdir=$5
awk_prog=$(dirname "$0")/help2roff.awk
list="$out/commands.txt"

"$prog" help > "$list"
# "  NAME       summary" lines under "commands:"
commands() {
	awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print; next } on { exit }' "$list"
}
names=$(commands | awk '{ print $1 }')
[ -n "$names" ] || { echo "mkman.sh: no commands in \`$prog help\`" >&2; exit 1; }

# the tools ipsecperf drives, named on every page
tools="iperf3 ip-xfrm(8) perf ethtool(8) qemu-system-x86_64"
see_also=""
for c in $names; do see_also="$see_also ipsecperf-$c"; done
awk -v page=ipsecperf -v version="$version" -v date="$date" -v docdir="$docdir" -v see_also="$see_also $tools" \
	-f "$awk_prog" "$list" > "$out/ipsecperf.1"

for c in $names; do
	summary=$(commands | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
	{
		"$prog" help "$c"
		# the commands with a second page: a form feed, the flag, the page
		if [ "$c" = report ]; then
			printf '\f--profile\n'
			"$prog" report --profile --help
		fi
	} > "$out/$c.txt"
	# ipsecperf(1), the sibling pages, the tools
	siblings=""
	for s in $names; do [ "$s" = "$c" ] || siblings="$siblings ipsecperf-$s"; done
	awk -v page="ipsecperf-$c" -v summary="$summary" -v version="$version" -v date="$date" -v docdir="$docdir" \
		-v see_also="ipsecperf$siblings $tools" -f "$awk_prog" "$out/$c.txt" > "$out/ipsecperf-$c.1"
	rm "$out/$c.txt"
done
rm "$list"
