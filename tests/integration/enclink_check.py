# SPDX-License-Identifier: GPL-2.0
"""An ok record of a scenario with an encrypted link ([wireguard], [macsec]):
its "encrypted_link" names the kind and the cipher, has both ends, and the
kernel's counters agree with each other across the link over the whole
load (quiet at both ends when they are read: a packet or two in flight at
the end is allowed), and with the load. (lib.sh puts this folder on
PYTHONPATH.)"""
import sys

SLACK = 3  # packets in flight when the two ends are read in turn


def check_enclink(r, kind, cipher):
    name = r["scenario"]
    if not (r["status"] == "ok"): raise AssertionError(f"{name}: {r['status']}: {r.get('reason')}")
    el = r["encrypted_link"]
    if not (el["kind"] == kind and el["cipher"] == cipher): raise AssertionError(f"{name}: {el['kind']} {el['cipher']}")
    if not (el["mtu"] > 576): raise AssertionError(f"{name}: MTU {el['mtu']}")
    ends = {e["end"]: e for e in el["ends"]}
    if not (sorted(ends) == ["receiver", "sender"]): raise AssertionError(f"{name}: ends {sorted(ends)}")
    tx, rx = ends["sender"], ends["receiver"]
    # what one end sent the other took in: fewer under load (veth, virtio-net and
    # WireGuard's own queues drop: 3% seen on vm-pair under TCG), never more
    for a, b in ((tx, rx), (rx, tx)):
        if not (0 < b["rx_packets"] <= a["tx_packets"] + SLACK):
            raise AssertionError(f"{name}: {a['end']} sent {a['tx_packets']}, {b['end']} took {b['rx_packets']}")
    # the load went through the devices: the receiver took in at least what the load received
    if not (rx["rx_bytes"] >= r["bytes"] > 0):
        raise AssertionError(f"{name}: the device took {rx['rx_bytes']} B, the load {r['bytes']}")
    if kind == "wireguard":
        # the device's statistics and its peer's counters count the same messages, where they meet UDP
        for e in (tx, rx):
            if not (e["peer_tx_bytes"] == e["tx_bytes"] and e["peer_rx_bytes"] == e["rx_bytes"]):
                raise AssertionError(f"{name}: the {e['end']}'s device and peer counters differ: {e}")
    else:
        for a, b in ((tx, rx), (rx, tx)):
            # every frame out encrypted; the other end authenticated and decrypted them, none bad
            if not (a["out_pkts_encrypted"] == a["tx_packets"]): raise AssertionError(f"{name}: {a}")
            if not (b["in_pkts_ok"] + b["in_pkts_delayed"] == b["rx_packets"] and b["in_pkts_bad"] == 0):
                raise AssertionError(f"{name}: the {b['end']}'s receive counters: {b}")
            if not (b["in_octets_decrypted"] <= a["out_octets_encrypted"] + SLACK * 1600):
                raise AssertionError(f"{name}: {a['out_octets_encrypted']} octets encrypted, "
                                     f"{b['in_octets_decrypted']} decrypted")
    print(f"  {name}: {r.get('throughput_bps', 0) / 1e9:.4f} Gbit/s, {tx['tx_packets']} packets out of the "
          f"sender's {el['dev']}, {rx['rx_packets']} into the receiver's", file=sys.stderr)
