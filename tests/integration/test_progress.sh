#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# On a terminal a progress line (scenario i/N, repeat, time left) is drawn
# on stderr; with stderr not a terminal, or --quiet, there is none.
. "$(dirname "$0")/lib.sh"
command -v script > /dev/null || skip_ours "script(1) (bsdutils) not installed"

# script(1) gives the run a pseudo-terminal
script -qec "$IPSECPERF run -t 1 -O 0 -r 2 -o $TMP/tty clear" /dev/null > "$TMP/tty.out" 2>&1 ||
	fail "run under a terminal failed"
grep -aq '\[1/1\] clear, repeat 1/2, [0-9]*:[0-9][0-9] left' "$TMP/tty.out" || fail "no progress line on a terminal"
grep -aq 'repeat 2/2' "$TMP/tty.out" || fail "progress did not advance"

"$IPSECPERF" run -t 1 -O 0 -r 1 -o "$TMP/pipe" clear > "$TMP/pipe.out" 2> "$TMP/pipe.err" || fail "run failed"
grep -q 'left' "$TMP/pipe.err" && fail "progress line drawn when stderr is not a terminal"
script -qec "$IPSECPERF run --quiet -t 1 -O 0 -r 1 -o $TMP/quiet clear" /dev/null > "$TMP/quiet.out" 2>&1 ||
	fail "quiet run failed"
grep -aq 'left' "$TMP/quiet.out" && fail "progress line drawn with --quiet"
exit 0
