#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The VM testbed on a stock Debian 6.1 cloud kernel: clear and esp-null for
# 3 s each inside the VM (TCG here, KVM where it really runs a guest). Both
# ran, the ESP SAs counted packets, clear beat esp-null, the record names
# its kernel, raw files and the console came home, and no qemu, temporary
# folder or journal is left behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
out="$TMP/res"
# --duration after the scenarios: it must reach the guest's run all the same
"$IPSECPERF" run --testbed vm --kernel "$k61" --omit 1 --repeat 1 -o "$out" \
	clear esp-null --duration 3 > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $?"; }
cat "$TMP/stderr" >&2
assert_vm_clean "after a VM run"

rel=$(jq_lines "$out/runs.jsonl" 'r["kernel"]' | sort -u)
case "$rel" in
6.1.*-cloud-amd64) ;;
*) fail "records name kernel '$rel', not the 6.1 guest's" ;;
esac
[ "$(jq_lines "$out/runs.jsonl" 'r["scenario"] + ":" + r["status"]' | tr '\n' ' ')" = \
	"clear:ok esp-null:ok " ] || fail "clear and esp-null did not both run ok"
[ "$(jq_lines "$out/runs.jsonl" 'r["testbed"]' | sort -u)" = vm ] || fail "testbed is not vm"
python3 - "$out/runs.jsonl" << 'PY' || fail "SA counters or throughputs wrong (above)"
import json, sys
recs = {r["scenario"]: r for r in map(json.loads, open(sys.argv[1]))}
sas = recs["esp-null"]["sa"]
out = [s for s in sas if s["dir"] == "out"]
assert out and all(s["packets"] > 0 for s in out), f"ESP SAs counted no packets: {sas}"
assert recs["clear"]["sa"] == [], "clear installed SAs"
c, e = recs["clear"]["throughput_bps"], recs["esp-null"]["throughput_bps"]
print(f"  clear {c/1e9:.3f} Gbit/s, esp-null {e/1e9:.3f} Gbit/s", file=sys.stderr)
assert c > e > 0, f"clear {c} did not beat esp-null {e}"
assert all(2.5 < r["duration_s"] < 4 for r in recs.values()), [r["duration_s"] for r in recs.values()]
PY
python3 - "$out/meta.json" "$rel" << 'PY' || fail "meta.json does not name the guest kernel"
import json, sys
m = json.load(open(sys.argv[1]))
k = m["kernels"]
assert len(k) == 1 and k[0]["release"] == sys.argv[2], k
assert k[0]["version"].startswith("Linux version " + sys.argv[2]), k[0]["version"]
assert len(k[0]["config_sha256"]) == 64, k[0]
assert m["host_kernel"]["release"], "host kernel not kept"
assert m["vm"][0]["accel"] in ("kvm", "tcg") and m["vm"][0]["boot_to_first_measured_byte_s"] > 0
PY
for f in console.log clear-r1-iperf3-client.json esp-null-r1-iperf3-client.json; do
	[ -s "$out/raw/$rel/$f" ] || fail "raw/$rel/$f missing"
done
grep -q "vm: $rel: \(TCG\|KVM\), boot to init .* boot to first measured byte [0-9.]* s" "$TMP/stderr" ||
	fail "no boot-to-first-byte line"
grep -q "booting under \(TCG (.*)\|KVM\)" "$TMP/stderr" || fail "the accelerator was not named"
grep -q "^kernel $rel" "$TMP/stdout" || fail "no summary for the guest's kernel"
exit 0
