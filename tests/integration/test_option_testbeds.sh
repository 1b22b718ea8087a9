#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every run option on every testbed (netns, peer, vm, vm-pair): the program's own
# table (`run --list-options`, so a new option cannot be forgotten) says
# where it works. Where it does not, run must refuse it at parse time with
# one line naming the option and the testbed, exit 2, and change nothing.
# Where it does, it must parse (with --dry-run; the peer reached through
# ProxyCommand=false, so nothing leaves the host and the dry run cannot
# start: exit 2, saying so), and PROOFS below must
# name the existing test that shows it has its effect there: an accepted
# option without an entry fails this test, so a new option forces the
# decision; there is no "not yet": an option no test can prove is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/expect_lib.sh"

# option testbed proof (a test in tests/integration that uses the option)
# (--count-repeats counts ESP, which this machine's kernel lacks: its netns
# proof is the vm testbed's guest, which runs the netns testbed; its peer
# proof is vm-pair's, which runs the peer testbed between two guests)
PROOFS='
duration netns test_netns_matrix.sh
duration peer test_peer.sh
duration vm test_vm.sh
omit netns test_netns_matrix.sh
omit peer test_peer_guard.sh
omit vm test_vm.sh
repeat netns test_netns_matrix.sh
repeat peer test_peer.sh
repeat vm test_vm.sh
output netns test_netns_matrix.sh
output peer test_peer.sh
output vm test_vm.sh
tag netns test_journal.sh
tag peer test_option_effects_peer.sh
tag vm test_option_effects_vm.sh
testbed netns test_netns_matrix.sh
testbed peer test_peer.sh
testbed vm test_vm.sh
kernel vm test_vm_two_kernels.sh
addr-tx netns test_option_effects.sh
addr-tx peer test_option_effects_peer.sh
addr-tx vm test_option_effects_vm.sh
addr-rx netns test_option_effects.sh
addr-rx peer test_peer.sh
addr-rx vm test_option_effects_vm.sh
prefix-len netns test_option_effects.sh
prefix-len vm test_option_effects_vm.sh
port netns test_option_effects.sh
port peer test_peer_guard.sh
port vm test_option_effects_vm.sh
dry-run netns test_bad_input.sh
dry-run peer test_option_effects_peer.sh
dry-run vm test_option_effects_vm.sh
quiet netns test_progress.sh
quiet peer test_peer.sh
quiet vm test_vm_failure.sh
no-probes netns test_option_effects.sh
no-probes peer test_option_effects_peer.sh
no-probes vm test_option_effects_vm.sh
probe-set netns test_probes.sh
probe-set peer test_peer_probes.sh
probe-set vm test_option_effects_vm.sh
probe-overhead netns test_probes.sh
probe-overhead peer test_peer_probes.sh
probe-overhead vm test_option_effects_vm.sh
probe-cost netns test_probes.sh
probe-cost peer test_peer_probes.sh
probe-cost vm test_option_effects_vm.sh
peer peer test_peer.sh
dev peer test_peer.sh
peer-dev peer test_peer.sh
ssh-option peer test_peer.sh
peer-ipsecperf peer test_peer.sh
cpu-tx peer test_peer.sh
cpu-rx peer test_peer.sh
profile netns test_profile.sh
profile vm test_profile_vm.sh
profile-hz netns test_option_effects.sh
profile-hz vm test_option_effects_vm.sh
interleave vm test_vm_two_kernels.sh
repeat-from netns test_option_effects.sh
repeat-from peer test_option_effects_peer.sh
repeat-from vm test_option_effects_vm.sh
scenario-dir netns test_option_effects.sh
scenario-dir peer test_option_effects_peer.sh
scenario-dir vm test_option_effects_vm.sh
no-wait netns test_option_effects.sh
tune netns test_journal.sh
congestion netns test_option_effects.sh
congestion peer test_option_effects_peer.sh
congestion vm test_option_effects_vm.sh
congestion vm-pair test_vm_pair.sh
no-wait peer test_peer_guard.sh
until-ci netns test_until_ci.sh
max-repeat netns test_until_ci.sh
duration vm-pair test_vm_pair.sh
omit vm-pair test_vm_pair.sh
repeat vm-pair test_vm_pair.sh
output vm-pair test_vm_pair.sh
tag vm-pair test_vm_pair.sh
testbed vm-pair test_vm_pair.sh
kernel vm-pair test_vm_pair.sh
peer-kernel vm-pair test_vm_pair_fail.sh
addr-tx vm-pair test_vm_pair.sh
addr-rx vm-pair test_vm_pair.sh
port vm-pair test_vm_pair.sh
dry-run vm-pair test_vm_pair_fail.sh
quiet vm-pair test_vm_pair.sh
no-probes vm-pair test_vm_pair_fail.sh
probe-set vm-pair test_vm_pair.sh
interleave vm-pair test_vm_pair_ends.sh
repeat-from vm-pair test_vm_pair_ends.sh
count-repeats netns test_vm_count.sh
count-repeats vm test_vm_count.sh
count-repeats peer test_vm_pair_count.sh
count-repeats vm-pair test_vm_pair_count.sh
flows netns test_flows.sh
sas netns test_vm_sas.sh
sas vm test_vm_sas.sh
sas peer test_vm_pair_sas.sh
sas vm-pair test_vm_pair_sas.sh
flows peer test_flows.sh
flows vm test_vm_flows.sh
flows vm-pair test_vm_flows.sh
vcpus vm test_vm_flows.sh
clock vm test_vm_clock.sh
clock vm-pair test_vm_clock.sh
vcpus vm-pair test_vm_flows.sh
direction peer test_flows.sh
direction vm-pair test_vm_flows.sh
'

# a sample value for each option that takes one, and what an option needs beside it
value() { # option testbed
	case $1 in
	duration) echo 2 ;; omit) echo 0 ;; repeat) echo 2 ;; output) echo "$TMP/out-$RANDOM$RANDOM" ;;
	tag) echo probe ;; testbed) echo "$2" ;; kernel) echo "${KERNEL:-debian:linux-image-none}" ;;
	addr-tx) echo 198.18.0.1 ;; addr-rx) echo 198.18.0.2 ;; prefix-len) echo 24 ;; port) echo 5301 ;;
	probe-set) echo tracepoints ;; peer) echo root@192.0.2.1 ;; dev | peer-dev) echo lo ;;
	ssh-option) echo ConnectTimeout=1 ;; peer-ipsecperf) echo /usr/bin/ipsecperf ;;
	cpu-tx) echo 0 ;; cpu-rx) echo 1 ;; profile-hz) echo 49 ;; repeat-from) echo 3 ;; count-repeats) echo 2 ;; flows) echo 2 ;; sas) echo 1 ;; vcpus) echo 2 ;; clock) echo auto ;; direction) echo rx ;;
	scenario-dir) echo "$TOP/scenarios" ;; until-ci) echo 5 ;; max-repeat) echo 10 ;; congestion) echo reno ;;
	peer-kernel) echo "${KERNEL:-debian:linux-image-none}" ;;
	*) fail "no sample value for --$1: add one to value() in this test" ;;
	esac
}
needs() { # option testbed: other options it needs there
	case $1:$2 in
	max-repeat:netns) echo --until-ci 5 ;;
	esac
}

KERNEL=$("$IPSECPERF" kernel list 2>/dev/null | awk 'NR == 1 { print $1 }')
[ -n "$KERNEL" ] || info "no cached kernel: the vm column is checked for refusals only (ipsecperf kernel fetch)"
base() { # testbed: the options it always needs, for a dry run that changes nothing
	case $1 in
	netns) echo --testbed netns --dry-run --quiet ;;
	peer) echo --testbed peer --peer root@192.0.2.1 --dev lo --peer-dev lo --ssh-option ProxyCommand=false --dry-run --quiet ;;
	vm) echo --testbed vm --kernel "$KERNEL" --dry-run --quiet ;;
	vm-pair) echo --testbed vm-pair --kernel "$KERNEL" --dry-run --quiet ;;
	esac
}

snapshot > "$TMP/before"
"$IPSECPERF" run --list-options > "$TMP/options" || fail "run --list-options exited $?"
[ "$(wc -l < "$TMP/options")" -ge 30 ] || fail "run --list-options lists $(wc -l < "$TMP/options") options"
"$IPSECPERF" run --help > "$TMP/help"
checked=0
while IFS=$'\t' read -r name short arg testbeds where; do
	opt=${name#--}
	[[ $testbeds =~ ^(netns|peer|vm|vm-pair)(,(netns|peer|vm|vm-pair))*$ ]] || fail "$name: marks '$testbeds' name no testbed"
	[[ $where == guest || $where == host ]] || fail "$name: neither guest nor host ('$where')"
	# a guest's option is for a VM testbed (--direction: vm-pair's only, both ends being one kernel on vm)
	[[ $where == guest && ,$testbeds, != *,vm,* && ,$testbeds, != *,vm-pair,* ]] &&
		fail "$name goes to the guest but is refused on vm and vm-pair"
	grep -q -- "$name" "$TMP/help" || fail "$name is not in run --help"
	for tb in netns peer vm vm-pair; do
		val=()
		[ "$arg" != - ] && val=("$(value "$opt" "$tb")")
		if [[ ,$testbeds, != *,$tb,* ]]; then
			# shellcheck disable=SC2046
			expect_exit2 "$name on $tb" "^ipsecperf: run: $name is for the .* testbeds?, not $tb$" \
				"$IPSECPERF" run $(base "$tb") "$name" "${val[@]}" clear
			checked=$((checked + 1))
			continue
		fi
		proof=$(awk -v o="$opt" -v t="$tb" '$1 == o && $2 == t { $1 = $2 = ""; sub(/^ +/, ""); print }' <<< "$PROOFS")
		[ -n "$proof" ] || fail "$name works on $tb, but PROOFS names no test that shows its effect there: add one"
		[[ $proof =~ ^test_[a-z0-9_]+\.sh$ ]] ||
			fail "$name works on $tb, but PROOFS gives '$proof', not a test that shows its effect there"
		[ -f "$TOP/tests/integration/$proof" ] || fail "$name on $tb: PROOFS names $proof, which does not exist"
		pat=$name
		[ "$short" != - ] && pat="$pat|${short}[ =0-9]"
		grep -qE -- "$pat" "$TOP/tests/integration/$proof" "$TOP/tests/integration/"*lib.sh ||
			fail "$name on $tb: $proof does not use $name"
		[[ $tb == vm* ]] && [ -z "$KERNEL" ] && continue
		# --kernel itself: not twice the same kernel (a dry run with a kernel
		# left out could not start as asked)
		args=$(base "$tb")
		[ "$opt" = kernel ] && args=${args/--kernel $KERNEL/}
		# shellcheck disable=SC2046,SC2086
		timeout 60 "$IPSECPERF" run $args $(needs "$opt" "$tb") "$name" "${val[@]}" clear \
			> "$TMP/out" 2> "$TMP/err" < /dev/null
		rc=$?
		# the peer is never reached (ProxyCommand=false): a dry run that parsed the
		# option and could not start says so and exits 2
		[ $rc = 2 ] && [ "$tb" = peer ] && grep -q 'run: --dry-run: the run could not start' "$TMP/err" && rc=0
		[ $rc = 0 ] || { cat "$TMP/err" >&2; fail "$name on $tb: a dry run exited $rc"; }
		checked=$((checked + 1))
	done
done < "$TMP/options"
# every entry of PROOFS is an option that works there
while read -r opt tb _; do
	[ -n "$opt" ] || continue
	grep -qP -- "^--$opt\t.*\t[^\t]*\b$tb\b[^\t]*\t[a-z]+$" "$TMP/options" ||
		fail "PROOFS has --$opt on $tb, which run refuses there (or no such option)"
done <<< "$PROOFS"
info "$checked option x testbed cases, each refused or proven by a named test"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after the option table"
exit 0
