#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The netns testbed is set up through netlink: a run of
# clear, no-gso and tcp-md5 starts no `ip` and no `ethtool` (strace counts
# every execve of the run and its children: iperf3 is there, so the count
# can see programs). (test_restore.sh checks the journal's netlink records
# and their undo by cleanup.) --dry-run still prints the ip and ethtool commands a person could type.
. "$(dirname "$0")/lib.sh"

command -v strace > /dev/null || skip_ours "strace is not installed (apt-get install strace)"
export IPSECPERF_JOURNAL_DIR="$TMP/journal"

# (LeakSanitizer cannot work under ptrace: off for this run of a SANITIZE=1 build)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=execve -e signal=none -o "$TMP/execve" \
	"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 -o "$TMP/run" clear no-gso tcp-md5 \
	> "$TMP/run.out" 2> "$TMP/run.err" || { rc=$?; cat "$TMP/run.err" >&2; fail "the run exited $rc"; }
[ "$(jq_lines "$TMP/run/runs.jsonl" 'r["status"]' | tr '\n' ' ')" = "ok ok ok " ] ||
	fail "the run's records are not all ok"
# successful execs only: a PATH search tries several folders
execs() { grep -E "execve\(\"[^\"]*/$1\", .*\) = 0" "$TMP/execve" | grep -c .; }
[ "$(execs iperf3)" -ge 2 ] || { head -20 "$TMP/execve" >&2; fail "strace did not see iperf3 start: it counts nothing"; }
for prog in ip ethtool; do
	n=$(execs $prog)
	[ "$n" = 0 ] || { grep -E "/$prog\"" "$TMP/execve" >&2; fail "the run started $prog $n time(s)"; }
done
info "a netns run of clear, no-gso and tcp-md5: $(execs iperf3) iperf3, 0 ip, 0 ethtool"

# --dry-run: the commands, as before
"$IPSECPERF" run --dry-run -r 1 no-gso > "$TMP/dry" 2>&1 || fail "dry-run failed"
for re in '^ip netns add ipsecperf-[0-9]*-[0-9]*-tx$' \
	'^ip link add ipp-tx netns ipsecperf-[0-9]*-[0-9]*-tx type veth peer name ipp-rx netns ipsecperf-[0-9]*-[0-9]*-rx$' \
	'^ip -n ipsecperf-[0-9]*-[0-9]*-rx addr add 198.18.0.2/24 dev ipp-rx$' \
	'^ip -n ipsecperf-[0-9]*-[0-9]*-rx link set lo up$' \
	'^ip netns exec ipsecperf-[0-9]*-[0-9]*-tx ethtool -K ipp-tx tso off gso off gro on$' \
	'^ip netns del ipsecperf-[0-9]*-[0-9]*-tx$'; do
	grep -q "$re" "$TMP/dry" || { cat "$TMP/dry" >&2; fail "dry-run does not print /$re/"; }
done
info "dry-run prints the ip and ethtool commands"
exit 0
