#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every help page fits 80 columns: `ipsecperf help` and each command's
# --help (and report --profile --help); `help CMD` prints the same page;
# every option of a command's table (`CMD --list-options`) is on its page.
. "$(dirname "$0")/lib.sh"

wide() { # what file
	awk -v w="$1" 'length($0) > 80 { printf "%s: %d columns: %s\n", w, length($0), $0; bad = 1 } END { exit bad }' "$2" >&2 ||
		fail "$1 has lines over 80 columns (above)"
}
"$IPSECPERF" help > "$TMP/help" || fail "ipsecperf help exited $?"
wide "ipsecperf help" "$TMP/help"
cmds=$(awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' "$TMP/help")
[ "$(wc -w <<< "$cmds")" -ge 10 ] || fail "ipsecperf help lists only: $cmds"
for c in $cmds "report --profile"; do
	# shellcheck disable=SC2086
	"$IPSECPERF" $c --help > "$TMP/page" || fail "$c --help exited $?"
	wide "$c --help" "$TMP/page"
	if [ "$c" != "report --profile" ]; then
		"$IPSECPERF" help "$c" | cmp -s - "$TMP/page" || fail "help $c and $c --help differ"
	fi
	# shellcheck disable=SC2086
	"$IPSECPERF" $c --list-options > "$TMP/opts" 2> /dev/null || continue # help, version: no table
	while IFS=$'\t' read -r name short arg _; do
		want="$name"
		[ "$arg" != - ] && want="$name $arg"
		[ "$short" != - ] && want="$short, $want"
		grep -qF -- "  $want" "$TMP/page" || fail "$c --help does not list '$want'"
	done < "$TMP/opts"
done
exit 0
