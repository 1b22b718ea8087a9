#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input gets one clear line on stderr, exit status 2, and changes
# nothing: no namespace, no link, no results directory, no journal.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"
cd "$TMP" # a default results directory would land here

expect_usage() { # what pattern -- argv...
	local what=$1 pattern=$2
	shift 3
	"$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	[ $rc = 2 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc, not 2"; }
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "$what: not one line"; }
	grep -q "^ipsecperf: " "$TMP/err" || fail "$what: message does not start with 'ipsecperf: '"
	grep -qE -e "$pattern" "$TMP/err" || { cat "$TMP/err" >&2; fail "$what: message lacks /$pattern/"; }
}

cat > "$TMP/unknown-key.ini" <<'INI'
[scenario]
description = a typo on line 4
tso = off
INI
cat > "$TMP/bad-value.ini" <<'INI'
[scenario]
description = x

[offload]
gso = maybe
INI
printf '[scenario\ndescription = x\n' > "$TMP/syntax.ini"

expect_usage "unknown scenario" "unknown scenario 'nope'; known: .*clear" -- "$IPSECPERF" run nope
expect_usage "unknown key" "unknown-key.ini:3: unknown key 'tso' in \[scenario\]" -- "$IPSECPERF" run "$TMP/unknown-key.ini"
expect_usage "bad value" "bad-value.ini:5: gso must be on or off" -- "$IPSECPERF" run "$TMP/bad-value.ini"
expect_usage "syntax" "syntax.ini:1:" -- "$IPSECPERF" run "$TMP/syntax.ini"
expect_usage "duration 0" "--duration takes a whole number from 1 to 3600, not '0'" -- "$IPSECPERF" run --duration 0 clear
expect_usage "repeat x" "--repeat takes a whole number" -- "$IPSECPERF" run --repeat x clear
expect_usage "omit 61" "--omit takes a whole number from 0 to 60" -- "$IPSECPERF" run --omit 61 clear
expect_usage "bad address" "is not an IPv4 or IPv6 address" -- "$IPSECPERF" run --addr-tx 300.1.1.1 clear
expect_usage "unknown option" "unknown option" -- "$IPSECPERF" run --frobnicate clear
expect_usage "twice" "named twice" -- "$IPSECPERF" run clear clear
expect_usage "testbed" "unknown testbed 'cloud'" -- "$IPSECPERF" run --testbed cloud clear
expect_usage "interleave" "--interleave is for the vm testbed" -- "$IPSECPERF" run clear --interleave
expect_usage "repeat-from 0" "--repeat-from takes a whole number from 1" -- "$IPSECPERF" run --repeat-from 0 clear
expect_usage "command" "'frob' is not a command" -- "$IPSECPERF" frob
expect_usage "not root" "needs root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$IPSECPERF" run clear

# tools missing: a PATH with ip and ethtool but no iperf3, then no ethtool
mkdir -p "$TMP/bin1" "$TMP/bin2"
ln -s "$(command -v ip)" "$TMP/bin1/ip"; ln -s "$(command -v ethtool)" "$TMP/bin1/ethtool"
ln -s "$(command -v ip)" "$TMP/bin2/ip"; ln -s "$(command -v iperf3)" "$TMP/bin2/iperf3"
expect_usage "no iperf3" "iperf3 not found in PATH: install the iperf3 package" -- env PATH="$TMP/bin1" "$IPSECPERF" run clear
expect_usage "no ethtool" "ethtool not found in PATH: install the ethtool package" -- env PATH="$TMP/bin2" "$IPSECPERF" run clear

# an existing, non-empty results directory is refused before anything changes
mkdir -p "$TMP/full" && touch "$TMP/full/x"
expect_usage "results dir" "exists and is not empty" -- "$IPSECPERF" run -o "$TMP/full" clear

[ -z "$(ls -d "$TMP"/results 2>/dev/null)" ] || fail "bad input created a results directory"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after bad input"

# --dry-run changes nothing either, and prints commands a person could type
"$IPSECPERF" run --dry-run -r 1 no-gso > "$TMP/dry" 2>&1 || fail "dry-run failed"
grep -q '^ip netns add ipsecperf-' "$TMP/dry" || fail "dry-run: no netns command"
grep -q 'ethtool -K ipp-tx tso off gso off gro on' "$TMP/dry" || fail "dry-run: no ethtool command"
grep -q '^ip netns del ipsecperf-' "$TMP/dry" || fail "dry-run: no undo"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after --dry-run"
exit 0
