#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run options have their effect on the VM testbed (named for them
# by test_option_testbeds.sh): the options the guest gets must reach it and
# act there, and the host's own must act on the host. A stock Debian 6.1
# kernel, 1 s runs. One boot combines the probe options and the network:
#   --addr-tx/-rx, --port  the guest's iperf3 client JSON (brought home)
#   --prefix-len 16        the addresses are in two /24s: at the default 24
#                          they cannot reach each other (a netns run shows
#                          it first), so an ok run means the guest got 16
#   --probe-overhead       a clear+noprobes record beside each clear one
#   --probe-cost           probe_cost in the record with probes, not without
#   --probe-set tracepoints  the kprobes "not asked for"
#   --profile-hz           profile.hz in the records
#   --repeat-from          the records' repeat and the raw files' names
# A second boot gives --no-probes (it excludes the probe options), --tag
# (the default folder) and --scenario-dir (a scenario only that folder has:
# the host reads it and the guest runs it). A dry run prints the qemu line and starts nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

command -v perf > /dev/null || skip_ours "perf not installed (apt-get install linux-perf)"
k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
TX=198.18.62.1 RX=198.18.63.2 PORT=5444
mkdir -p "$TMP/cwd" "$TMP/sc"
cp "$TOP/scenarios/clear.ini" "$TMP/sc/onlyhere.ini"
[ -e "$TOP/scenarios/onlyhere.ini" ] && fail "onlyhere.ini is in the tree's scenarios: pick another name"

# --- the control: at the default prefix length these addresses do not meet --
"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 --addr-tx $TX --addr-rx $RX -o "$TMP/control" clear \
	> "$TMP/control.out" 2> "$TMP/control.err"
assert_records "$TMP/control/runs.jsonl" '[r["status"] for r in rs] == ["failed"] and "unreachable" in rs[0]["reason"]' \
	"control: $TX and $RX met at the default prefix length: pick addresses that do not"

# --- the dry run: the qemu line, and nothing started or left ----------------
"$IPSECPERF" run --dry-run --quiet --testbed vm --kernel "$k61" -t 1 -O 0 -r 1 -o "$TMP/dry" clear \
	> "$TMP/dry.out" 2> "$TMP/dry.err" || { rc=$?; cat "$TMP/dry.err" >&2; fail "the VM dry run exited $rc"; }
grep -qE '^qemu-system-x86_64 .*-kernel [^ ]+ -initrd [^ ]+ -append .*rdinit=' "$TMP/dry.out" ||
	{ cat "$TMP/dry.out" >&2; fail "dry run: no qemu line with a kernel, an initramfs and a command line"; }
# the accelerator the run would use (qemu's own test, as doctor's), and the guest's own command
grep -qE '^# accelerator: (kvm|tcg \(.+\))$' "$TMP/dry.out" && grep -q -- "-accel $(sed -n 's/^# accelerator: \([a-z]*\).*/\1/p' "$TMP/dry.out") " "$TMP/dry.out" ||
	{ cat "$TMP/dry.out" >&2; fail "dry run: the accelerator is not said, or not the qemu line's"; }
grep -qE '^# the guest \([^)]+\) runs: /bin/ipsecperf run .*--testbed netns .*-- clear$' "$TMP/dry.out" ||
	{ cat "$TMP/dry.out" >&2; fail "dry run: what the guest runs is not said"; }
[ -e "$TMP/dry" ] && fail "the VM dry run made its results folder"
assert_vm_clean "after the VM dry run"
info "dry run: prints the qemu line, starts and leaves nothing"

# --- boot 1: network and probe options ---------------------------------------
"$IPSECPERF" run --quiet --testbed vm --kernel "$k61" -t 1 -O 0 -r 1 --addr-tx $TX --addr-rx $RX --prefix-len 16 \
	--port $PORT --probe-set tracepoints --probe-overhead --probe-cost --profile --profile-hz 49 --repeat-from 3 \
	-C reno -o "$TMP/res" clear > "$TMP/run.out" 2> "$TMP/run.err" ||
	{ rc=$?; cat "$TMP/run.err" >&2; fail "the VM run with the guest's options exited $rc"; }
assert_vm_clean "after the VM run"
res="$TMP/res/runs.jsonl"
assert_records "$res" '[(r["scenario"], r["repeat"], r["status"], r["probes"]) for r in rs] ==
	[("clear", 3, "ok", "on"), ("clear+noprobes", 3, "ok", "off")]' \
	"not clear and clear+noprobes, both ok and numbered 3 (--probe-overhead, --repeat-from, --prefix-len)"
assert_records "$res" 'rs[0]["probe_cost"]["runs"] > 0 and "probe_cost" not in rs[1]' \
	"--probe-cost: no probe_cost with the probes, or one without them"
assert_records "$res" '"kprobes not asked for (--probe-set tracepoints)" in rs[0]["counters"]["esp_output"]["symbol"]' \
	"--probe-set tracepoints: the kprobes were attached (or not said so)"
assert_jsonl "$res" 'r["profile"]["status"] == "ok" and r["profile"]["hz"] == 49' "--profile-hz 49: not profiled at 49 Hz"
assert_jsonl "$res" 'r["congestion"] == "reno"' "-C reno: the guest's records do not say reno"
client=$(ls "$TMP/res/raw/"*/clear-r3-iperf3-client.json 2> /dev/null)
[ -n "$client" ] || fail "--repeat-from 3: no raw/<release>/clear-r3-iperf3-client.json"
assert_json --arg tx $TX --arg rx $RX --arg port $PORT "$client" \
	'[(c["local_host"], c["remote_host"], c["remote_port"]) for c in d["start"]["connected"]] == [(tx, rx, int(port))]' \
	"--addr-tx/--addr-rx/--port: the guest's iperf3 did not connect from $TX to $RX:$PORT"
info "addresses, prefix-len, port, probe-set, probe-overhead, probe-cost, profile-hz, repeat-from: effective in the guest"

# --- boot 2: --no-probes, --tag, --scenario-dir -------------------------------
(cd "$TMP/cwd" && exec "$IPSECPERF" run --quiet --testbed vm --kernel "$k61" -t 1 -O 0 -r 1 --no-probes \
	--tag vmfx --scenario-dir "$TMP/sc" onlyhere) > "$TMP/np.out" 2> "$TMP/np.err" ||
	{ rc=$?; cat "$TMP/np.err" >&2; fail "the VM run with --no-probes exited $rc"; }
assert_vm_clean "after the VM run with --no-probes"
out=$(ls -d "$TMP/cwd/results/"*-vm-vmfx 2> /dev/null)
[ "$(echo "$out" | grep -c .)" = 1 ] ||
	fail "--tag vmfx: no single results/*-vm-vmfx folder: $(ls "$TMP/cwd/results" 2> /dev/null)"
assert_records "$out/runs.jsonl" '[(r["scenario"], r["status"]) for r in rs] == [("onlyhere", "ok")]' \
	"--scenario-dir: not one ok record of onlyhere"
assert_json --arg f "$TMP/sc/onlyhere.ini" "$out/meta.json" '[s["file"] for s in d["scenarios"]] == [f]' \
	"--scenario-dir: meta.json does not name the scenario file in that folder"
assert_jsonl "$out/runs.jsonl" 'len(r["counters"]) > 0 and all(c.get("count") is None for c in r["counters"].values())' \
	"--no-probes: a counter counted in the guest"
info "no-probes, tag, scenario-dir: effective"
exit 0
