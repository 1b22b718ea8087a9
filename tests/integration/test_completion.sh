#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (tools/ipsecperf.bash-completion), sourced after
# bash-completion as a shell would, its function called with COMP_WORDS:
# commands, options (from the help pages), option values (choices from the
# program's tables, as --list-choices prints them), scenario names
# (also under --scenario-dir), cached kernels, results directories.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion
[ -f "$BC" ] || skip_ours "no $BC: install bash-completion (make deps)"

# a kernel cache of one fake kernel, a results directory, two scenarios
cache="$TMP/cache/linux-image-9.9.9-test_9.9.9-1_amd64"
mkdir -p "$cache/boot" "$cache/lib/modules/9.9.9-test"
touch "$cache/boot/vmlinuz-9.9.9-test" "$cache/lib/modules/9.9.9-test/modules.order" "$cache/.ipsecperf-complete"
mkdir -p "$TMP/work/results/20260101T000000-netns-run" "$TMP/sc"
cp "$TOP/scenarios/clear.ini" "$TMP/sc/mine-a.ini"
cp "$TOP/scenarios/clear.ini" "$TMP/sc/mine-b.ini"

# complete.sh LINE: what completing at the end of LINE (after the
# program's name) offers, one a line, sorted. The line is split into
# COMP_WORDS as bash splits it: at blanks, and ':' a word of its own.
cat > "$TMP/complete.sh" << 'END'
. /usr/share/bash-completion/bash_completion
. "$TOP/tools/ipsecperf.bash-completion"
COMP_LINE="$IPSECPERF $1"
COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "${COMP_LINE//:/ : }"
[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_ipsecperf "$IPSECPERF" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort
END
comp() {
	(cd "$TMP/work" && TOP="$TOP" IPSECPERF="$IPSECPERF" IPSECPERF_CACHE="$TMP/cache" \
		bash "$TMP/complete.sh" "$1" 2> "$TMP/comp.err")
}
expect() { # "what" "LINE" "the words it must offer, sorted"
	local got
	got=$(comp "$2" | tr '\n' ' ' | sed 's/ *$//')
	[ "$got" = "$3" ] || { cat "$TMP/comp.err" >&2; fail "$1: completing '$2' gave '$got', not '$3'"; }
}
has() { # "what" "LINE" word: the candidates include word
	comp "$2" | grep -qx -- "$3" || { cat "$TMP/comp.err" >&2; fail "$1: completing '$2' does not offer '$3'"; }
}

expect "commands" "r" "report run"
has "every command" "" peer-agent
expect "the program's options" "--ver" "--verbose --version"
expect "run's options" "run --dur" "--duration"
has "run's options" "run --scen" --scenario-dir
expect "options after a scenario" "run clear --rep" "--repeat --repeat-from"
expect "report --profile's own options" "report --profile --to" "--top"
# the choices come from the program's tables (--list-choices), never from a list here
choices() { # CMD OPTION: the program's choices of OPTION, sorted, space-separated
	"$IPSECPERF" "$1" --list-choices | awk -F '\t' -v o="$2" '$1 == o { print $3 }' | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ *$//'
}
tbs=$(choices run --testbed)
[ "$(echo "$tbs" | wc -w)" -ge 4 ] && [[ " $tbs " == *" netns "* ]] || fail "run --list-choices names no testbeds: '$tbs'"
expect "--testbed" "run --testbed " "$tbs"
expect "--probe-set" "run --probe-set " "$(choices run --probe-set)"
expect "--probe-set" "run --probe-set " "all default esp kernel tracepoints"
expect "--direction" "run --direction " "both rx tx"
expect "report --format" "report -f " "csv html json md text"
expect "report --profile --format" "report --profile -f " "json svg text"
expect "compare --format" "compare --format j" "json junit"
expect "compare --test" "compare --test " "mw welch"
expect "doctor --format" "doctor --format " "json text"
expect "kernel list --format" "kernel list -f j" "json"
expect "scenario names" "run --quiet cl" "clear clear-mtu9000 clear-stream"
expect "scenarios of --scenario-dir" "run --scenario-dir $TMP/sc mi" "mine-a mine-b"
expect "list --scenario-dir takes a folder" "list --scenario-dir res" "results"
expect "kernel actions" "kernel " "build config fetch list show"
expect "cached kernels" "kernel show debian:linux" "linux-image-9.9.9-test"
expect "--kernel from the cache" "run --testbed vm --kernel debian:" "linux-image-9.9.9-test"
expect "results directories" "report res" "results"
expect "results directories" "compare results/2" "results/20260101T000000-netns-run"
expect "help's commands" "help comp" "compare"
expect "a value not to guess" "run --duration " ""
exit 0
