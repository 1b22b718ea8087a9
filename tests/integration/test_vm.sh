#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The VM testbed on a stock Debian 6.1 cloud kernel: clear and esp-null for
# 2 s each inside the VM (--clock auto: TCG on the virtual clock here, KVM
# on the real one where it really runs a guest). Both ran, the ESP SAs
# counted packets, clear beat esp-null (on the virtual clock by 12x every
# time, whatever this host's load: docs/testing.md, "Speed assertions"),
# the record names its kernel, raw files and the console came home, and no
# qemu, temporary folder or journal is left behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
out="$TMP/res"
# --duration after the scenarios: it must reach the guest's run all the same
"$IPSECPERF" run --testbed vm --kernel "$k61" --clock auto --omit 0 --repeat 1 --count-repeats 0 -o "$out" \
	clear esp-null --duration 2 > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
cat "$TMP/stderr" >&2
assert_vm_clean "after a VM run"

assert_records "$out/runs.jsonl" '[(r["scenario"], r["status"]) for r in rs] == [("clear", "ok"), ("esp-null", "ok")]' \
	"clear and esp-null did not both run ok"
assert_jsonl "$out/runs.jsonl" 'r["testbed"] == "vm"' "testbed is not vm"
assert_records "$out/runs.jsonl" 'len({r["kernel"] for r in rs}) == 1 and match("^6[.]1[.].*-cloud-amd64$", rs[0]["kernel"])' \
	"records do not all name the 6.1 guest's kernel"
rel=$(json_values "$out/runs.jsonl" 'r["kernel"]' | sort -u)
python3 - "$out/runs.jsonl" << 'PY' || fail "SA counters or throughputs wrong (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
sas = recs["esp-null"]["sa"]
out = [s for s in sas if s["dir"] == "out"]
if not (out and all(s["packets"] > 0 for s in out)): raise AssertionError(f"ESP SAs counted no packets: {sas}")
if not (recs["clear"]["sa"] == []): raise AssertionError("clear installed SAs")
c, e = recs["clear"]["throughput_bps"], recs["esp-null"]["throughput_bps"]
print(f"  clear {c/1e9:.3f} Gbit/s, esp-null {e/1e9:.3f} Gbit/s", file=sys.stderr)
if not (c > e > 0): raise AssertionError(f"clear {c} did not beat esp-null {e}")
if not (all(1.5 < r["duration_s"] < 3 for r in recs.values())): raise AssertionError([r["duration_s"] for r in recs.values()])
PY
m="$out/meta.json"
assert_json --arg rel "$rel" "$m" 'len(d["kernels"]) == 1 and d["kernels"][0]["release"] == rel' \
	"meta.json does not name the guest kernel"
assert_json --arg rel "$rel" "$m" 'd["kernels"][0]["version"].startswith("Linux version " + rel)' \
	"meta.json: not the guest's /proc/version"
assert_json "$m" 'len(d["kernels"][0]["config_sha256"]) == 64' "meta.json: no config hash"
assert_json "$m" 'd["host_kernel"]["release"] != ""' "meta.json: host kernel not kept"
assert_json "$m" 'd["vm"][0]["accel"] in ("kvm", "tcg") and d["vm"][0]["boot_to_first_measured_byte_s"] > 0' \
	"meta.json: no accelerator or boot time"
for f in console.log clear-r1-iperf3-client.json esp-null-r1-iperf3-client.json; do
	[ -s "$out/raw/$rel/$f" ] || fail "raw/$rel/$f missing"
done
grep -q "vm: $rel: \(TCG\|KVM\), boot to init .* boot to first measured byte [0-9.]* s" "$TMP/stderr" ||
	fail "no boot-to-first-byte line"
grep -q "booting under \(TCG\( on the virtual clock (.*)\)\? (.*)\|KVM\)" "$TMP/stderr" || fail "the accelerator was not named"
grep -q "^kernel $rel" "$TMP/stdout" || fail "no summary for the guest's kernel"
exit 0
