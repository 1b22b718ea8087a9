# SPDX-License-Identifier: GPL-2.0
# The peer testbed's test fixture: sourced after lib.sh, never run.
#
# Two namespaces stand for two hosts: "local" (where ipsecperf runs, with
# `ip netns exec`) and "peer" (where a test sshd listens on its veth ends
# only). Two veth pairs join them, as a real pair of hosts has a link under
# test and a management network: ssh goes over the second, so that ESP
# policies on the first cannot take it. Nothing is made in the host's own
# namespace, so the host's links never change. The peer shares the host's
# filesystem, so ipsecperf is "installed" there: the agent is tested too.

PEER_NS_L="ipsecperf-peertest-$$-l"
PEER_NS_P="ipsecperf-peertest-$$-p"
PEER_DEV_L="ippt-l"
PEER_DEV_P="ippt-p"
PEER_ADDR_L="198.18.7.1"
PEER_ADDR_P="198.18.7.2"
PEER_MGMT_L="198.18.8.1"   # the management network: ippt-ml <-> ippt-mp
PEER_MGMT_P="198.18.8.2"
SSHD_PID=""

command -v /usr/sbin/sshd >/dev/null || skip_ours "no /usr/sbin/sshd: install openssh-server (make deps)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip_ours "no ssh client: install openssh-client"
command -v iperf3 >/dev/null || skip_ours "no iperf3"

# Every process of the test sshd: the listener and its session children.
sshd_tree() {
	local p="$1" c
	[ -n "$p" ] || return 0
	echo "$p"
	for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do sshd_tree "$c"; done
}

# sshd needs /run/sshd (its privilege-separation directory, fixed when it
# was built). Tests that run beside each other share it: the first one that
# finds it absent makes it, the last one out removes it, so no test removes
# it under another's sshd (which then resets every connection).
# The lock is /run/lock itself: always there, so nothing is left to remove.
SSHD_DIR_LOCK=/run/lock
SSHD_DIR_USERS=/run/lock/ipsecperf-tests-sshd.users
sshd_dir_prune() { # under the lock: forget users that are gone
	local f
	for f in "$SSHD_DIR_USERS"/*.pid; do
		[ -e "$f" ] || continue
		kill -0 "$(basename "$f" .pid)" 2>/dev/null || rm -f "$f"
	done
}
sshd_dir_hold() {
	(
		flock 9
		mkdir -p "$SSHD_DIR_USERS"
		sshd_dir_prune
		if [ ! -d /run/sshd ]; then
			mkdir -p /run/sshd && chmod 755 /run/sshd && touch "$SSHD_DIR_USERS/made"
		fi
		touch "$SSHD_DIR_USERS/$$.pid"
	) 9<"$SSHD_DIR_LOCK"
}
sshd_dir_release() {
	[ -e "$SSHD_DIR_USERS/$$.pid" ] || return 0
	(
		flock 9
		rm -f "$SSHD_DIR_USERS/$$.pid"
		sshd_dir_prune
		if ! compgen -G "$SSHD_DIR_USERS/*.pid" >/dev/null; then
			[ -e "$SSHD_DIR_USERS/made" ] && rmdir /run/sshd 2>/dev/null
			rm -f "$SSHD_DIR_USERS/made"
			rmdir "$SSHD_DIR_USERS" 2>/dev/null
		fi
	) 9<"$SSHD_DIR_LOCK"
}

sshd_stop() {
	local pids
	[ -n "$SSHD_PID" ] || return 0
	pids=$(sshd_tree "$SSHD_PID")
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	for _ in $(seq 50); do kill -0 "$SSHD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$SSHD_PID" 2>/dev/null
	SSHD_PID=""
}

sshd_start() {
	ip netns exec "$PEER_NS_P" /usr/sbin/sshd -D -e -f "$TMP/sshd_config" 2>>"$TMP/sshd.log" &
	SSHD_PID=$!
	for _ in $(seq 50); do
		ip netns exec "$PEER_NS_P" ss -ltn 2>/dev/null | grep -q "$PEER_MGMT_P:22 " && return 0
		sleep 0.1
	done
	cat "$TMP/sshd.log" >&2
	fail "the test sshd did not listen on $PEER_MGMT_P:22"
}

peer_cleanup() {
	sshd_stop
	ip netns del "$PEER_NS_L" 2>/dev/null
	ip netns del "$PEER_NS_P" 2>/dev/null
	sshd_dir_release
	rm -rf "$TMP"
}
trap peer_cleanup EXIT

# Links come up (carrier) and get their IPv6 link-local addresses (after
# DAD) a moment after `ip link set up`: a snapshot taken before that would
# differ from one taken after the run for no fault of the run.
peer_links_settle() {
	local ns settled
	for _ in $(seq 100); do
		settled=1
		for ns in "$PEER_NS_L" "$PEER_NS_P"; do
			ip -n "$ns" -o link show | grep -q NO-CARRIER && settled=0
			[ -n "$(ip -n "$ns" -6 addr show tentative)" ] && settled=0
			[ "$(ip -n "$ns" -6 -o addr show scope link | wc -l)" -ge 2 ] || settled=0
		done
		[ $settled = 1 ] && return 0
		sleep 0.1
	done
	fail "the test's links did not settle within 10 s"
}

peer_setup() {
	ip netns add "$PEER_NS_L" || fail "cannot create namespace $PEER_NS_L"
	ip netns add "$PEER_NS_P" || fail "cannot create namespace $PEER_NS_P"
	ip link add "$PEER_DEV_L" netns "$PEER_NS_L" type veth peer name "$PEER_DEV_P" netns "$PEER_NS_P" ||
		fail "cannot create the veth pair"
	ip -n "$PEER_NS_L" addr add "$PEER_ADDR_L/24" dev "$PEER_DEV_L"
	ip -n "$PEER_NS_P" addr add "$PEER_ADDR_P/24" dev "$PEER_DEV_P"
	for ns in "$PEER_NS_L" "$PEER_NS_P"; do ip -n "$ns" link set lo up; done
	ip -n "$PEER_NS_L" link set "$PEER_DEV_L" up
	ip -n "$PEER_NS_P" link set "$PEER_DEV_P" up
	ip link add ippt-ml netns "$PEER_NS_L" type veth peer name ippt-mp netns "$PEER_NS_P" ||
		fail "cannot create the management veth pair"
	ip -n "$PEER_NS_L" addr add "$PEER_MGMT_L/24" dev ippt-ml
	ip -n "$PEER_NS_P" addr add "$PEER_MGMT_P/24" dev ippt-mp
	ip -n "$PEER_NS_L" link set ippt-ml up
	ip -n "$PEER_NS_P" link set ippt-mp up
	peer_links_settle

	ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh_host_ed25519_key" || fail "ssh-keygen (host key)"
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/id_test" || fail "ssh-keygen (client key)"
	cp "$TMP/id_test.pub" "$TMP/authorized_keys"
	chmod 600 "$TMP/authorized_keys"
	sshd_dir_hold
	cat >"$TMP/sshd_config" <<-EOF
	ListenAddress $PEER_MGMT_P:22
	ListenAddress $PEER_ADDR_P:22
	HostKey $TMP/ssh_host_ed25519_key
	PidFile none
	AuthorizedKeysFile $TMP/authorized_keys
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	StrictModes no
	LogLevel ERROR
	# the session shell must not read root's ~/.bashrc (Debian bash does for sshd when SHLVL < 2): it may be slow, and it is not under test.
	# The lane (lib.sh) goes into every session's own environment: what a
	# session starts and leaves to init as it ends (a killed run's iperf3
	# under timeout) is still known as this test's by the test beside it.
	SetEnv SHLVL=1${IPSECPERF_TEST_LANE:+ IPSECPERF_TEST_LANE=$IPSECPERF_TEST_LANE}${PEER_SESSION_PATH:+ PATH=$PEER_SESSION_PATH}
	EOF
	sshd_start
	SSH_OPTS=(--ssh-option "IdentityFile=$TMP/id_test" --ssh-option StrictHostKeyChecking=no
		  --ssh-option UserKnownHostsFile=/dev/null)
	PEER_ARGS=(--testbed peer --peer "root@$PEER_MGMT_P" "${SSH_OPTS[@]}" --dev "$PEER_DEV_L"
		   --peer-dev "$PEER_DEV_P" --peer-ipsecperf "$IPSECPERF")
}

# The test's own journals, apart from those of other runs on this host:
# this host's changes (a tmpfs, /run/ipsecperf, for real), and the peer's
# (/var/lib/ipsecperf/journal, for real: it outlives a reboot of this host).
export IPSECPERF_JOURNAL_DIR="$TMP/journal"
export IPSECPERF_PEER_JOURNAL_DIR="$TMP/peer-journal"

# iperf3 and ipsecperf processes in namespace ns (not those of other tests).
peer_procs() { # ns
	local pids
	pids=$(ip netns pids "$1" 2>/dev/null | tr '\n' ',' | sed 's/,$//')
	[ -n "$pids" ] || return 0
	ps -o comm=,args= -p "$pids" | grep -E '^(iperf3|ipsecperf|timeout) ' | sort
}

# What a run must leave on each end: links, addresses, offloads, xfrm, processes.
peer_snapshot() { # ns
	local ns="$1" dev
	dev=$([ "$ns" = "$PEER_NS_L" ] && echo "$PEER_DEV_L" || echo "$PEER_DEV_P")
	{
		echo "## links"; ip -n "$ns" -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-5
		echo "## addresses"; ip -n "$ns" -o addr show | awk '{print $2, $3, $4}'
		echo "## offloads"; ip netns exec "$ns" ethtool -k "$dev"
		echo "## xfrm"; ip -n "$ns" xfrm state; ip -n "$ns" xfrm policy
		echo "## processes"; peer_procs "$ns"
		echo "## journals"; ls "$IPSECPERF_JOURNAL_DIR" "$IPSECPERF_PEER_JOURNAL_DIR" 2>/dev/null | grep journal- || true
	}
}
