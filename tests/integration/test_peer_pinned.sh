#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An ssh key pinned to the agent (command="ipsecperf peer-agent" in the
# peer's authorized_keys): sshd starts the agent whatever the run asks, and
# says what that was in SSH_ORIGINAL_COMMAND. The run asks ssh for more than
# the agent's session (the iperf3 server, the undo of each change):
# - pinned to an agent of this release, which serves those, a run changes
#   the peer's offloads and policies and puts them back;
# - pinned to an agent that does not see what was asked (an older one, or a
#   sudo rule whose env_reset drops SSH_ORIGINAL_COMMAND), or of another
#   release, the run refuses before it changes anything, naming the key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
pin() { # the forced command
	printf 'command="%s" %s\n' "$1" "$(cat "$TMP/id_test.pub")" > "$TMP/authorized_keys"
}
peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"

# --- pinned to this release's agent: served --------------------------------------
# no-tso: tso off on the peer by the agent, back on by ssh's undo; esp-null:
# policies by the agent, each undone by ssh's `peer-agent --undo` (on a
# kernel without ESP the scenario is then skipped); iperf3's server by ssh.
pin "$IPSECPERF peer-agent"
run_l "$IPSECPERF" run "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/pinned" no-tso esp-null \
	> "$TMP/pinned.out" 2> "$TMP/pinned.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/pinned.err" >&2; fail "a run with a key pinned to the agent exited $rc"; }
grep -q "reaches only the agent (a key pinned to it): the agent serves what the run sends" "$TMP/pinned.err" ||
	{ cat "$TMP/pinned.err" >&2; fail "the run did not say that the key is pinned to the agent"; }
assert_records "$TMP/pinned/runs.jsonl" '[r["scenario"] for r in rs] == ["no-tso", "esp-null"] and rs[0]["status"] == "ok"
	and rs[0]["throughput_bps"] > 0' "no-tso did not measure through the pinned key"
json_check --each "$TMP/pinned/runs.jsonl" 'r["status"] == "ok" or match("no ESP|cannot make|lacks", r["reason"])' ||
	{ cat "$TMP/pinned/runs.jsonl" >&2; fail "esp-null failed for another reason than a kernel without ESP"; }
grep -q 'undo on\|could not be undone' "$TMP/pinned.err" && { cat "$TMP/pinned.err" >&2; fail "an undo failed through the pinned key"; }
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the pinned run"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the pinned run (its undos through the pinned key)"
info "pinned to this release's agent: no-tso measured, offloads and policies put back through the key"

# --- pinned to an agent that does not see what was asked: refused ------------------
# what sudo's env_reset does, and what an older agent did: SSH_ORIGINAL_COMMAND unseen
cat > "$TMP/blind-agent" << EOF
#!/bin/sh
unset SSH_ORIGINAL_COMMAND
exec "$IPSECPERF" peer-agent
EOF
# another release: the real agent, whose hello says 0.0.1
cat > "$TMP/other-agent" << EOF
#!/bin/bash
set -o pipefail
"$IPSECPERF" peer-agent | sed -u -E '1s/"version": ?"[^"]*"/"version": "0.0.1"/'
EOF
chmod +x "$TMP/blind-agent" "$TMP/other-agent"
for agent in blind other; do
	pin "$TMP/$agent-agent"
	run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/$agent" no-tso \
		> "$TMP/$agent.out" 2> "$TMP/$agent.err"
	rc=$?
	[ $rc = 1 ] || { cat "$TMP/$agent.err" >&2; fail "$agent: a key pinned to an agent that cannot serve the run: exit $rc, not 1"; }
	case $agent in
	blind) want="runs \`ipsecperf peer-agent\` whatever it is asked" ;;
	other) want="reaches only the agent (a key pinned to it), and that agent is ipsecperf 0.0.1" ;;
	esac
	grep -qF "$want" "$TMP/$agent.err" && grep -qF "IdentityFile=$TMP/id_test" "$TMP/$agent.err" &&
		grep -q 'nothing was changed' "$TMP/$agent.err" ||
		{ cat "$TMP/$agent.err" >&2; fail "$agent: the refusal does not name the pinned key and why"; }
	[ -s "$TMP/$agent/runs.jsonl" ] && { cat "$TMP/$agent/runs.jsonl" >&2; fail "$agent: runs were made"; }
	peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
	assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the refused run ($agent)"
	info "pinned to the $agent agent: refused before anything changed: $(grep -o 'ssh to .\{60\}' "$TMP/$agent.err" | head -1)..."
done
exit 0
