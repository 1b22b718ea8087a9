#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The probe counters on this kernel: every counter in every record, each
# either counted (with how it was attached) or null with its reason; the
# GSO effect seen from net:net_dev_start_xmit (no-gso hands one segment
# per skb to the device, clear hands superpackets); probe --list agrees.
. "$(dirname "$0")/lib.sh"

NAMES="esp_output esp_output_tail xfrm_transport_output memmove_transport_output
memmove_transport_input kmalloc_esp_output kfree_esp_output skb_segment
tcp_gso_segment xmit_skbs xmit_segs"

"$IPSECPERF" probe --list > "$TMP/list" 2> "$TMP/list.err" || fail "probe --list exited $?"
for n in $NAMES; do
	grep -q "^$n " "$TMP/list" || fail "probe --list has no row for $n"
done
grep -q '^xmit_segs .*tracepoint' "$TMP/list" ||
	skip "net:net_dev_start_xmit cannot be probed here: $(grep '^xmit_segs' "$TMP/list")"

snapshot > "$TMP/before"
out="$TMP/res"
# no-gso first: see the note on the scenario order in docs/probes.md
"$IPSECPERF" run --quiet --duration 2 --omit 1 --repeat 1 -o "$out" no-gso clear \
	> "$TMP/stdout" 2> "$TMP/stderr" || { cat "$TMP/stderr" >&2; fail "run exited $?"; }
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a run with probes"

python3 - "$out/runs.jsonl" "$NAMES" <<'PY' || fail "counters (see above)"
import json, os, sys
names = sys.argv[2].split()
kprobes = os.path.exists("/sys/bus/event_source/devices/kprobe/type")
recs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    recs[r["scenario"]] = r
    c = r["counters"]
    assert sorted(c) == sorted(names), ("counter names", sorted(c))
    for n, v in c.items():
        assert "count" in v and "per_packet" in v and "symbol" in v, (n, v)
        if v["count"] is None:
            assert v["symbol"].startswith("unavailable: ") and len(v["symbol"]) > 20, (n, v)
        else:
            assert isinstance(v["count"], int) and v["count"] >= 0, (n, v)
            assert not v["symbol"].startswith("unavailable"), (n, v)
    for n in ("xmit_skbs", "xmit_segs"):
        assert c[n]["count"] and c[n]["count"] > 1000, (r["scenario"], n, c[n])
        assert "tracepoint net:net_dev_start_xmit" in c[n]["symbol"], c[n]
    # xmit_segs is the per-TCP-segment base of a clear scenario
    assert c["xmit_segs"]["per_tcp_segment"] == 1.0, c["xmit_segs"]
    if not kprobes:
        assert "kprobe" in c["skb_segment"]["symbol"], c["skb_segment"]
ng, cl = recs["no-gso"]["counters"], recs["clear"]["counters"]
# the GSO effect: segmented before the device without GSO, superpackets with it
assert ng["xmit_segs"]["count"] == ng["xmit_skbs"]["count"], ("no-gso", ng["xmit_skbs"], ng["xmit_segs"])
assert cl["xmit_segs"]["count"] > 2 * cl["xmit_skbs"]["count"], ("clear", cl["xmit_skbs"], cl["xmit_segs"])
if kprobes:
    # software GSO: every superpacket is cut by tcp_gso_segment -> skb_segment
    assert ng["tcp_gso_segment"]["count"] > 0 and ng["skb_segment"]["count"] >= ng["tcp_gso_segment"]["count"], ng
    assert cl["tcp_gso_segment"]["count"] == 0, cl["tcp_gso_segment"]
print("  no-gso: %d skbs = %d segments; clear: %d skbs, %d segments" % (
    ng["xmit_skbs"]["count"], ng["xmit_segs"]["count"], cl["xmit_skbs"]["count"], cl["xmit_segs"]["count"]),
    file=sys.stderr)
PY
exit 0
