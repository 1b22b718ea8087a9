#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The ESP scenarios on a kernel that has ESP: Debian's stock 6.1 cloud
# kernel in the VM testbed (the development machines' own kernel has none).
# esp-null, esp-gcm and esp-null-gso for 2 s each: every run ok, four SAs per
# run (two SPIs, each in both namespaces) that all counted packets, the
# inbound SA of each direction took no more than its outbound peer sent
# (over the whole load, "sa_load"; "sa" is the measured window), and the GSO
# case shows GSO over ESP (fewer outbound SA packets than ESP packets on the
# wire) while esp-null does not. No key reaches the results or the console.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"

# Other runs may share this host (their processes, namespaces, journals):
# our journal folder is our own, and the snapshot leaves theirs out.
export IPSECPERF_JOURNAL_DIR="$TMP/journal"
snapshot() {
	echo "## netns"; ip netns list | awk '{print $1}' | grep -v '^ipsecperf-' | sort
	echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
	echo "## journals"; ls "$IPSECPERF_JOURNAL_DIR" 2> /dev/null
}
snapshot > "$TMP/before"
out="$TMP/res"
"$IPSECPERF" run --testbed vm --kernel "$k61" --duration 2 --omit 1 --repeat 1 --count-repeats 0 -o "$out" \
	esp-null esp-gcm esp-null-gso > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $?"; }
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a VM run"
cp "$out/runs.jsonl" "${KEEP_RUNS:-/dev/null}" 2> /dev/null

python3 - "$out/runs.jsonl" << 'PY' || fail "ESP records wrong (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
if not (sorted(recs) == ["esp-gcm", "esp-null", "esp-null-gso"]): raise AssertionError(sorted(recs))
for name, r in recs.items():
    if not (r["status"] == "ok"): raise AssertionError(f"{name}: {r['status']}: {r.get('reason')}")
    # "sa" covers the measured window; "sa_load", where the probes' code adds
    # it, the whole load: quiet at both ends, so the two sides must agree
    if not (all(s["packets"] > 0 for s in r["sa"])): raise AssertionError(f"{name}: an SA counted nothing in the window: {r['sa']}")
    sas = r.get("sa_load", r["sa"])
    exact = "sa_load" in r
    if not (len(sas) == 4): raise AssertionError(f"{name}: {len(sas)} SAs recorded, expected 4")
    if not (len({s["spi"] for s in sas}) == 2): raise AssertionError(f"{name}: SPIs {sas}")
    for s in sas:
        if not (s["packets"] > 0 and s["bytes"] > 0 and s["wire_packets"] > 0): raise AssertionError(f"{name}: SA counted nothing: {s}")
    for spi in {s["spi"] for s in sas}:
        o = next(s for s in sas if s["spi"] == spi and s["dir"] == "out")
        i = next(s for s in sas if s["spi"] == spi and s["dir"] == "in")
        if not (o["netns"] != i["netns"]): raise AssertionError(f"{name}: SA {spi} out and in in one namespace")
        # one end cannot take in more than the other sent (veth may drop
        # under load, so fewer is possible), nor can the highest sequence
        # number received pass it; over the whole load (quiet at both ends)
        # exactly, within the window by what was in flight at its edges
        slack = 3 if exact else 200
        if not (i["packets"] <= o["wire_packets"] + slack): raise AssertionError(f"{name}: {o} vs {i}")
        if not (i["wire_packets"] <= o["wire_packets"] + slack): raise AssertionError(f"{name}: {o} vs {i}")
    data_out = next(s for s in sas if s["dir"] == "out" and s["netns"] == "tx")
    print(f"  {name}: {r['throughput_bps']/1e9:.4f} Gbit/s, data SA {data_out['spi']}: "
          f"{data_out['packets']} packets, {data_out['wire_packets']} on the wire", file=sys.stderr)
    if name == "esp-null-gso":
        # GSO over ESP: the SA counts super-packets, the sequence numbers segments
        if not (data_out["wire_packets"] > data_out["packets"]): raise AssertionError(f"no GSO over ESP: {data_out}")
    else:
        if not (data_out["wire_packets"] == data_out["packets"]): raise AssertionError(f"{name}: GSO over ESP? {data_out}")
PY
# the crypto driver each SA's algorithm got in the guest, in the set-up the mail shows
assert_json "$out/meta.json" 'all(c and c[0]["driver"] for c in d["kernels"][0]["setup"]["crypto"].values()) and
	set(d["kernels"][0]["setup"]["crypto"]) == {"authenc(digest_null,ecb(cipher_null))", "rfc4106(gcm(aes))"}' \
	"meta.json: not each SA algorithm's crypto driver"
"$IPSECPERF" report --summary "$out" | grep -qE '^  crypto +authenc\(digest_null,ecb\(cipher_null\)\):' ||
	fail "the mail does not name esp-null's crypto driver"
# keys never leave the collector: no xfrm key material in what came back
if grep -rIl 'alg_key\|KEY_AEAD\|"key"' "$out" > "$TMP/keys" 2> /dev/null && [ -s "$TMP/keys" ]; then
	fail "key material in: $(cat "$TMP/keys")"
fi
exit 0
