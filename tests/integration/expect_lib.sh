# SPDX-License-Identifier: GPL-2.0
# Bad input gets one line and exit 2: expect_exit2 WHAT ERE ARGV... runs
# ARGV (bounded, so input that hangs the program fails the case, not the
# suite) and fails unless it exits 2 with exactly one line on stderr that
# starts with "ipsecperf: " and matches ERE. Needs $TMP and fail().
expect_exit2() { # what pattern argv...
	local what=$1 pattern=$2 rc
	shift 2
	timeout --kill-after=5 30 "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null
	rc=$?
	[ $rc = 2 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc, not 2"; }
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "$what: not one line"; }
	grep -q "^ipsecperf: " "$TMP/err" || fail "$what: message does not start with 'ipsecperf: '"
	grep -qE -e "$pattern" "$TMP/err" || { cat "$TMP/err" >&2; fail "$what: message lacks /$pattern/"; }
}
