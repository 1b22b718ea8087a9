#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The ESP scenarios on a kernel that has ESP: Debian's stock 6.1 cloud
# kernel in the VM testbed (the development machines' own kernel has none),
# the streams and, in the same boot, tcp-rr, udp-rr and udp-rate over
# esp-null's SAs.
# esp-null, esp-gcm and esp-null-gso for 2 s each: every run ok, four SAs per
# run (two SPIs, each in both namespaces) that all counted packets, the
# inbound SA of each direction took no more than its outbound peer sent
# (over the whole load, "sa_load"; "sa" is the measured window), and the GSO
# case shows GSO over ESP (fewer outbound SA packets than ESP packets on the
# wire) while esp-null does not. No key reaches the results or the console.
# Beside them, in the same boot: esp-chacha20 (WireGuard's cipher in ESP),
# wireguard and tcp-rr-macsec (the encrypted links' devices in the two
# namespaces, and the request/response load over them): ok, their ciphers
# named, each device's counters and its kind's agreeing across the link.
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
# the request/response and packet-rate loads over esp-null's SAs too, in the same boot
sc="$TMP/scenarios"
mkdir -p "$sc"
cp "$TOP"/scenarios/{esp-null,esp-gcm,esp-null-gso,tcp-rr-esp-null,udp-rr-esp-null,udp-rate-esp-null,esp-chacha20,wireguard,tcp-rr-macsec}.ini "$sc"/
printf 'step-ms = 200\nsteps = 4\n' >> "$sc/udp-rate-esp-null.ini"
"$IPSECPERF" run --testbed vm --kernel "$k61" --scenario-dir "$sc" --duration 2 --omit 1 --repeat 1 --count-repeats 0 \
	-o "$out" esp-null esp-gcm esp-null-gso tcp-rr-esp-null udp-rr-esp-null udp-rate-esp-null \
	esp-chacha20 wireguard tcp-rr-macsec \
	> "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a VM run"
cp "$out/runs.jsonl" "${KEEP_RUNS:-/dev/null}" 2> /dev/null

python3 - "$out/runs.jsonl" << 'PY' || fail "ESP records wrong (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
if not (sorted(recs) == ["esp-chacha20", "esp-gcm", "esp-null", "esp-null-gso", "tcp-rr-esp-null", "tcp-rr-macsec",
                         "udp-rate-esp-null", "udp-rr-esp-null", "wireguard"]):
    raise AssertionError(sorted(recs))
# the streams' ESP; the request/response and rate loads' below
recs = {k: v for k, v in recs.items() if k.startswith("esp-")}
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

# Through ESP, one transaction is one ESP packet each way: the window's SAs
# (read at its edges, the transactions counted between them) against the
# transactions, a few in flight at the edges apart. The rate load sends one
# way: its SAs out of the sender carry exactly the window's datagrams (the
# sender is paused at both edges), the way back nothing, and the receiver's
# count is the receiving namespace's UdpInDatagrams.
python3 - "$out/runs.jsonl" << 'PY' || fail "request/response or rate records over ESP wrong (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
def sa(r, netns, d):
    return next(s for s in r["sa"] if s["netns"] == netns and s["dir"] == d)
for name in ("tcp-rr-esp-null", "udp-rr-esp-null"):
    r = recs[name]
    if not (r["status"] == "ok" and r["unit"] == "transaction"): raise AssertionError(f"{name}: {r['status']}: {r.get('reason')}")
    n = r["transactions"]
    req, resp = sa(r, "tx", "out")["packets"], sa(r, "rx", "out")["packets"]
    if not (n > 0 and n <= req <= 1.1 * n + 6 and n <= resp <= 1.1 * n + 6): raise AssertionError(f"{name}: {n} transactions, ESP out {req} and {resp}")
    print(f"  {name}: {r['transactions_per_s']:.0f} transactions/s, p50 {r['latency_ns']['p50']/1e3:.0f} us, "
          f"ESP packets {req} + {resp} for {n} transactions", file=sys.stderr)
r = recs["udp-rate-esp-null"]
if not (r["status"] == "ok" and r["unit"] == "datagram"): raise AssertionError(f"udp-rate-esp-null: {r['status']}: {r.get('reason')}")
out_tx, back = sa(r, "tx", "out")["packets"], sa(r, "rx", "out")["packets"]
if not (out_tx == r["datagrams_sent"] - r["kernel_drops"]["sender"].get("UdpSndbufErrors", 0)):
    raise AssertionError(f"udp-rate-esp-null: ESP out {out_tx}, datagrams sent {r['datagrams_sent']}: {r['kernel_drops']}")
if not (back == 0): raise AssertionError(f"udp-rate-esp-null: the way back's SA counted {back}")
if not (r["kernel_drops"]["receiver"]["UdpInDatagrams"] == r["datagrams"] > 0): raise AssertionError(r["kernel_drops"])
print(f"  udp-rate-esp-null: {r['datagrams_per_s']:.0f} datagrams/s, {r['rate_search']['nsteps']} steps, "
      f"ESP out {out_tx}", file=sys.stderr)
PY
python3 - "$out/runs.jsonl" << 'PY' || fail "the encrypted links' records wrong (above)"
import sys
from assert_json import records
from enclink_check import check_enclink
recs = {r["scenario"]: r for r in records(sys.argv[1])}
check_enclink(recs["wireguard"], "wireguard", "chacha20-poly1305")
check_enclink(recs["tcp-rr-macsec"], "macsec", "gcm-aes-128")
if not (recs["tcp-rr-macsec"]["transactions"] > 0): raise AssertionError("tcp-rr-macsec: no transaction")
PY
# the crypto driver each SA's algorithm got in the guest, in the set-up the mail shows
assert_json "$out/meta.json" 'all(c and c[0]["driver"] for c in d["kernels"][0]["setup"]["crypto"].values()) and
	set(d["kernels"][0]["setup"]["crypto"]) == {"authenc(digest_null,ecb(cipher_null))", "rfc4106(gcm(aes))",
		"rfc7539esp(chacha20,poly1305)"}' \
	"meta.json: not each SA algorithm's crypto driver"
"$IPSECPERF" report --summary "$out" | grep -qE '^  crypto +authenc\(digest_null,ecb\(cipher_null\)\):' ||
	fail "the mail does not name esp-null's crypto driver"
# keys never leave the collector: no xfrm key material in what came back
if grep -rIl 'alg_key\|KEY_AEAD\|"key"' "$out" > "$TMP/keys" 2> /dev/null && [ -s "$TMP/keys" ]; then
	fail "key material in: $(cat "$TMP/keys")"
fi
exit 0
