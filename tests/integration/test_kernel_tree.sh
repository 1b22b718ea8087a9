#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A kernel built from source, end to end: Debian's linux-source-6.12,
# configured and built by `ipsecperf kernel config` and `kernel build`
# (kernel_lib.sh; cached, so only the first run on a machine builds it),
# booted in the VM testbed with every scenario of scenarios/:
# - kernel show finds nothing missing, and a rebuild has nothing to do;
# - every scenario runs ok, tcp-ao among them (no Debian kernel here has
#   CONFIG_TCP_AO) next to tcp-md5;
# - every probe attaches (--probe-set all: kprobes, BTF), and over the whole load the
#   probes' counts equal the SAs' own: esp_output calls == SA packets on
#   esp-null, esp_output_tail calls == SA wire packets on esp-null-gso,
#   esp_input calls == the receiving SA's packets on esp-null (the receive
#   path's esp_gro_receive and kmalloc_esp_input may be unavailable for a
#   reason this kernel gives, said in their symbol).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

kb=$(ktree_base) || fail "the tests' kernel could not be built"
rel=$(cat "$kb/include/config/kernel.release")
info "kernel: $kb ($rel)"

"$IPSECPERF" kernel show "$kb" > "$TMP/show" 2>&1 || { rc=$?; cat "$TMP/show" >&2; fail "kernel show exited $rc"; }
grep -q '^missing: nothing the VM testbed needs' "$TMP/show" ||
	{ cat "$TMP/show" >&2; fail "kernel show: the configuration kernel config wrote lacks something"; }
# incremental: a second build finds nothing to do (the image is not rewritten)
before=$(stat -c %Y "$kb/arch/x86/boot/bzImage")
"$IPSECPERF" kernel build -q -O "$kb" "$KSRC" > "$TMP/build" 2>&1 || { cat "$TMP/build" >&2; fail "rebuild failed"; }
[ "$(stat -c %Y "$kb/arch/x86/boot/bzImage")" = "$before" ] || fail "a rebuild with nothing changed rewrote bzImage"
grep -q "release $rel" "$TMP/build" || { cat "$TMP/build" >&2; fail "kernel build did not name release $rel"; }

scen=$(cd "$TOP/scenarios" && ls *.ini | sed 's/\.ini$//' | sort)
out="$TMP/res"
# shellcheck disable=SC2086
"$IPSECPERF" run --testbed vm --kernel "$kb" --probe-set all --duration 2 --omit 1 --repeat 1 -o "$out" $scen \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "run exited $rc"; }
assert_vm_clean "run on the built kernel"

python3 - "$out/runs.jsonl" "$rel" $scen << 'PY' || fail "the built kernel's runs (above)"
import sys
from assert_json import probe_equals_sa, records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
rel, want = sys.argv[2], sys.argv[3:]
if not (sorted(recs) == sorted(want)): raise AssertionError((sorted(recs), want))
for name, r in sorted(recs.items()):
    if not (r["kernel"] == rel): raise AssertionError((name, r["kernel"]))
    if not (r["status"] == "ok"): raise AssertionError((name, r["status"], r.get("reason")))
    print(f"  {name}: {r['throughput_bps'] / 1e9:.4f} Gbit/s", file=sys.stderr)
    esp = r["scenario"].startswith("esp-")
    for n, v in r["counters"].items():
        if not esp and n in ("esp_output", "esp_output_tail", "kmalloc_esp_output", "kfree_esp_output",
                             "memmove_transport_output", "memmove_transport_input", "xfrm_transport_output",
                             "esp_input", "xfrm_input", "esp_gro_receive", "esp_gro_merged", "kmalloc_esp_input"):
            continue
        # unavailable for a reason of the kernel's own making, said
        if n == "esp_gro_receive" and "esp4_offload is not loaded" in v["symbol"]:
            continue
        if n == "kmalloc_esp_input" and "esp_alloc_tmp is a function of its own" in v["symbol"]:
            continue
        if not (v.get("count") is not None): raise AssertionError((name, n, v.get("symbol")))
for name in ("tcp-ao", "tcp-md5"):
    if not (recs[name]["throughput_bps"] > 0): raise AssertionError(name)

probe_equals_sa(recs["esp-null"], "esp_output", "packets")
probe_equals_sa(recs["esp-null-gso"], "esp_output_tail", "wire_packets")
probe_equals_sa(recs["esp-null"], "esp_input", "packets", "in")
if not (recs["esp-null-gso"]["counters"]["esp_output"]["count_load"] == 0): raise AssertionError
PY
exit 0
