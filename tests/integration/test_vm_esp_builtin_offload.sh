#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# esp-null means ESP without GSO on every kernel, on
# linux-source-6.12 built from source in the VM testbed, with probes:
#  - CONFIG_INET_ESP_OFFLOAD=y (a variant of the base build, made once by
#    kernel_lib.sh and cached next to it): esp4_offload cannot be unloaded, so esp-null is
#    skipped, every repeat, with a reason that names the option; esp-null-gso
#    runs ok on the built-in offload: esp_output never called, esp_output_tail
#    once per ESP packet (the SA's sequence numbers). The same kernel booted
#    without its module lists (IMAGE:EMPTY): the same skip, found from
#    /proc/kallsyms.
#  - the base build (=m): both ok, esp-null with esp_output once per packet
#    of the data SA and no GSO over ESP, esp-null-gso with GSO over ESP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

# The base build (kernel_tree.sh makes it before the tests), and the same
# with CONFIG_INET_ESP_OFFLOAD=y: a copy of tree and build folder, rebuilt
# incrementally once and cached (kernel_lib.sh, ktree_variant).
KBASE=$(ktree_base) || fail "cannot build the tests' kernel (above)"
grep -q '^CONFIG_INET_ESP_OFFLOAD=m$' "$KBASE/.config" ||
	fail "$KBASE: CONFIG_INET_ESP_OFFLOAD is not =m; kernel config must build ESP offload as a module"
KVAR=$(ktree_variant espoffload-y /dev/null -e INET_ESP_OFFLOAD) ||
	fail "cannot build the CONFIG_INET_ESP_OFFLOAD=y variant (above)"
info "kernels: $KBASE, $KVAR"
grep -q '^CONFIG_INET_ESP_OFFLOAD=y$' "$KVAR/.config" || fail "$KVAR: CONFIG_INET_ESP_OFFLOAD is not =y"
# built in: not among its modules (the copied base's .ko may linger), in its own list
! grep -Eq 'esp4_offload\.k?o$' "$KVAR/modules.order" || fail "$KVAR: esp4_offload is a module"
grep -q 'esp4_offload\.ko$' "$KVAR/modules.builtin" || fail "$KVAR: modules.builtin lacks esp4_offload"

# Other runs may share this host: our journal folder is our own (vm_lib.sh),
# and the snapshot leaves their namespaces and processes out.
snapshot() {
	echo "## netns"; ip netns list | awk '{print $1}' | grep -v '^ipsecperf-' | sort
	echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
}
snapshot > "$TMP/before"
vmrun() { # out kernel scenario...
	local out=$1 k=$2
	shift 2
	"$IPSECPERF" run --testbed vm --kernel "$k" --probe-set esp --duration 3 --omit 1 --repeat 2 -o "$out" "$@" \
		> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run on $k exited $rc"; }
}
vmrun "$TMP/y" "$KVAR" esp-null esp-null-gso
# the same kernel without installed module lists (no modules.builtin in the guest)
mkdir "$TMP/nomods"
vmrun "$TMP/y-nolists" "$KVAR/arch/x86/boot/bzImage:$TMP/nomods" esp-null
vmrun "$TMP/m" "$KBASE" esp-null esp-null-gso
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after the VM runs"
assert_vm_clean "the VM runs"

python3 - "$TMP/y/runs.jsonl" "$TMP/y-nolists/runs.jsonl" "$TMP/m/runs.jsonl" << 'PY' || fail "records wrong (above)"
import sys
from assert_json import records

def by_name(path):
    rs = records(path)
    out = {}
    for r in rs:
        out.setdefault(r["scenario"], []).append(r)
    return out

def out_sas(r):
    return [s for s in r["sa_load"] if s["dir"] == "out"]

def data_sa(r):
    return next(s for s in r["sa_load"] if s["dir"] == "out" and s["netns"] == "tx")

def check_gso(name, r):
    # the GSO path: esp_xmit calls esp_output_tail once per ESP packet, esp_output never
    c = r["counters"]
    if not (c["esp_output"]["count_load"] == 0): raise AssertionError((name, c["esp_output"]))
    per = c["esp_output_tail"]["per_sa_load"]
    # a program run the kernel skipped (recursion) is in probe_missed: short by at most that
    missed = r.get("probe_missed", {}).get("load", 0) or 0
    for s in out_sas(r):
        got = per.get(s["spi"], 0)
        if not (s["wire_packets"] - missed <= got <= s["wire_packets"] and got > 0): raise AssertionError((name, s, got, missed))
    d = data_sa(r)
    if not (d["wire_packets"] > d["packets"]): raise AssertionError((name, "no GSO over ESP", d))
    print(f"  {name} {r['kernel']}: {r['throughput_bps']/1e9:.4f} Gbit/s, esp_output 0, "
          f"esp_output_tail {c['esp_output_tail']['count_load']}, data SA {d['packets']} packets, "
          f"{d['wire_packets']} on the wire", file=sys.stderr)

def check_no_gso(name, r):
    # off the GSO path: esp_output once per ESP packet, each calling esp_output_tail
    c = r["counters"]
    per = c["esp_output"]["per_sa_load"]
    for s in out_sas(r):
        got = per.get(s["spi"], 0)
        if not (got == s["packets"] == s["wire_packets"] > 0): raise AssertionError((name, s, got))
    if not (c["esp_output"]["count_load"] == c["esp_output_tail"]["count_load"] > 0): raise AssertionError((name, c))
    d = data_sa(r)
    print(f"  {name} {r['kernel']}: {r['throughput_bps']/1e9:.4f} Gbit/s, esp_output "
          f"{c['esp_output']['count_load']}, data SA {d['packets']} packets, {d['wire_packets']} on the wire",
          file=sys.stderr)

y, ynl, m = by_name(sys.argv[1]), by_name(sys.argv[2]), by_name(sys.argv[3])
if not (sorted(y) == ["esp-null", "esp-null-gso"] and sorted(ynl) == ["esp-null"]): raise AssertionError((sorted(y), sorted(ynl)))
if not (sorted(m) == ["esp-null", "esp-null-gso"]): raise AssertionError(sorted(m))
for what, recs in (("=y", y), ("=y, no module lists", ynl)):
    if not (len(recs["esp-null"]) == 2): raise AssertionError((what, recs["esp-null"]))
    for r in recs["esp-null"]:
        if not (r["kernel"].endswith("-espoffload-y")): raise AssertionError(r["kernel"])
        why = r.get("reason", "")
        if not (r["status"] == "skipped"): raise AssertionError((what, r["status"], why))
        if not ("esp4_offload is built into this kernel (CONFIG_INET_ESP_OFFLOAD=y)" in why): raise AssertionError((what, why))
        if not ("throughput_bps" not in r): raise AssertionError((what, "measured all the same", r["throughput_bps"]))
    print(f"  esp-null ({what}): skipped: {why}", file=sys.stderr)
for r in y["esp-null-gso"]:
    if not (r["status"] == "ok"): raise AssertionError(("esp-null-gso =y", r.get("reason")))
    check_gso("esp-null-gso", r)
for name in ("esp-null", "esp-null-gso"):
    if not (len(m[name]) == 2): raise AssertionError((name, m[name]))
    for r in m[name]:
        if not (not r["kernel"].endswith("-espoffload-y")): raise AssertionError(r["kernel"])
        if not (r["status"] == "ok"): raise AssertionError((name, "=m", r.get("reason")))
        (check_gso if name == "esp-null-gso" else check_no_gso)(name, r)
PY
exit 0
