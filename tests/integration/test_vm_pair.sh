#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The vm-pair testbed: two Debian 6.1 guests, the sender and the receiver,
# joined by a virtio-net link, clear and esp-null for 3 s each (TCG here).
# Both ran; the SAs of both guests counted packets, and so did the probes on
# both (--probe-set esp: about one esp_output and one memmove per ESP
# packet); each side
# has its cycles from its own guest; clear beat esp-null;
# the options reached the sender's run (--port, the addresses); wireguard
# and macsec ran, the receiver's device made by its agent, each device's
# counters and its kind's agreeing across the link; both
# consoles came home, and no qemu, namespace, tap, scratch folder or
# journal is left.
#
# run-all: alone (on vm-pair the SAs are read at other moments than the
# probes' window: under TCG that skew is a few percent on a quiet host,
# and beside another test's guests it passed the 10% allowed here)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61 at both ends"
cd "$TMP" || fail "cd $TMP"
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --tag pair -O 1 --repeat 1 --duration 3 -q --port 5301 --probe-set esp \
	--addr-tx 198.18.7.1 --addr-rx 198.18.7.2 --congestion reno clear esp-null wireguard macsec > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
cat "$TMP/stderr" >&2
out=$(ls -d "$TMP"/results/*-vm-pair-pair 2> /dev/null)
[ -d "$out" ] || fail "--tag pair: no results/*-vm-pair-pair folder"
assert_vm_clean "after a vm-pair run"

r="$out/runs.jsonl"
assert_records "$r" '[(r["scenario"], r["status"]) for r in rs] == [("clear", "ok"), ("esp-null", "ok"), ("wireguard", "ok"), ("macsec", "ok")]' \
	"clear, esp-null, wireguard and macsec did not all run ok"
assert_jsonl "$r" 'r["testbed"] == "vm-pair" and r["peer_kernel"] == r["kernel"] and match("^6[.]1[.]", r["kernel"])' \
	"records do not name the vm-pair testbed and both 6.1 kernels"
rel=$(json_values "$r" 'r["kernel"]' | sort -u)
python3 - "$r" << 'PY' || fail "SAs, probes, cycles or throughputs wrong (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
e = recs["esp-null"]
for host in ("sender", "receiver"):
    outs = [s for s in e["sa"] if s["dir"] == "out" and s["host"] == host]
    if not (outs and all(s["packets"] > 0 for s in outs)): raise AssertionError(f"the {host}'s ESP SAs counted nothing: {e['sa']}")
# the probes on both guests: esp_output about once per ESP packet of each
# guest's out SA (the peer testbed reads the SAs at the window's edges
# through ssh, so the two intervals differ by what passes meanwhile)
for host, ctr in (("sender", "counters"), ("receiver", "counters_receiver")):
    per = e[ctr]["esp_output"]["per_esp_packet"]
    print(f"  esp_output on the {host}: {e[ctr]['esp_output']['count']} calls, {per:.3f} per ESP packet", file=sys.stderr)
    if not (0.9 < per < 1.1): raise AssertionError(f"the {host}'s esp_output probe: {per} per ESP packet")
    # each program's count is read in turn while packets flow: alike within 1%
    m, x = e[ctr]["memmove_transport_output"]["count"], e[ctr]["esp_output"]["count"]
    if not (abs(m - x) <= 0.01 * x): raise AssertionError(f"the {host}: {m} memmoves for {x} esp_output calls")
for r in recs.values():
    if not (r["cycles_per_byte_sender"] > 0 and r["cycles_per_byte_receiver"] > 0): raise AssertionError("a side has no cycles")
    if not (2.5 < r["duration_s"] < 4): raise AssertionError(r["duration_s"])
if not (recs["clear"]["sa"] == []): raise AssertionError("clear installed SAs")
# one run each under the real clock (vm-pair takes no virtual one): this
# fails by chance, 3.8% of the time under load 11-19 (docs/testing.md)
c, x = recs["clear"]["throughput_bps"], e["throughput_bps"]
print(f"  clear {c/1e9:.3f} Gbit/s, esp-null {x/1e9:.3f} Gbit/s", file=sys.stderr)
if not (c > x > 0): raise AssertionError(f"clear {c} did not beat esp-null {x}")
from enclink_check import check_enclink
check_enclink(recs["wireguard"], "wireguard", "chacha20-poly1305")
check_enclink(recs["macsec"], "macsec", "gcm-aes-128")
PY
# --port and the addresses reached the sender's run: iperf3 says where it went
grep -q '"remote_host":[[:space:]]*"198.18.7.2"' "$out/raw/$rel/clear-r1-iperf3-client.json" ||
	fail "--addr-rx did not reach the sender's run"
grep -q '"remote_port":[[:space:]]*5301' "$out/raw/$rel/clear-r1-iperf3-client.json" ||
	fail "--port did not reach the sender's run"
for f in console.log console-receiver.log; do
	[ -s "$out/raw/$rel/$f" ] || fail "raw/$rel/$f missing"
done
grep -q 'ipsecperf-guest: receiver ready' "$out/raw/$rel/console-receiver.log" || fail "the receiver's console is not its own"
assert_json "$out/meta.json" 'd["vm"][0]["boot_to_first_measured_byte_s"] > 0' "meta.json: no boot time"
assert_jsonl "$out/runs.jsonl" 'r["congestion"] == "reno"' "--congestion reno: the sending guest's records do not say reno"
# both guests' set-up, the receiver's told by its agent, and the host's that runs them
assert_json "$out/meta.json" 'd["kernels"][0]["setup"]["nics"][0]["dev"] == "ipp-link" and
	d["kernels"][0]["setup_receiver"]["nics"][0]["dev"] == "ipp-link" and d["kernels"][0]["setup_receiver"]["kernel"] != "" and
	d["host_kernel"]["setup"]["cpu"]["cpus"] > 0' "meta.json: not both guests' set-up and the host's"
"$IPSECPERF" report --summary "$out" > "$TMP/mail" || fail "report --summary: exit $?"
grep -q '^receiving guest: kernel ' "$TMP/mail" && grep -q '^sending guest: kernel ' "$TMP/mail" ||
	{ cat "$TMP/mail" >&2; fail "the mail lacks a guest's set-up"; }
# -q: no progress and no boot lines
grep -q "booting under\|boot to init" "$TMP/stderr" && fail "-q: the boot was still reported"
exit 0
