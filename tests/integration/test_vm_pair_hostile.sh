#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The vm-pair's sender guest is not trusted either: a stand-in qemu plays
# both guests (the receiver says it is ready and waits to be stopped, the
# sender sends a record whose peer_kernel is not the release the host booted
# as the receiver, or an empty one). The record is refused with a reason that says so, the
# run exits 1, and both stand-ins, the namespace and the scratch folders
# are gone. A well-formed record from the same stand-in is kept. The
# receiver is held to the sender's limits: its results and record ports
# are -serial null (nobody reads them), and a receiver that floods its
# console fails the pair's runs with the reason while the sender still runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

guests="$TMP/guests"
mkdir -p "$guests" "$TMP/bin"
python3 - "$guests" << 'PY'
import io, json, os, sys, tarfile
guests = sys.argv[1]

def image(path, release):
    img = bytearray(0x400)
    img[0x202:0x206] = b"HdrS"
    img[0x20e:0x210] = (0x100).to_bytes(2, "little")
    v = release.encode() + b" (a stand-in)\0"
    img[0x300:0x300 + len(v)] = v
    open(path, "wb").write(img)

def archive(path, release, peer):
    rec = {"version": 1, "kernel": release, "scenario": "clear", "repeat": 1, "status": "ok",
           "throughput_bps": 1e9, "testbed": "peer", "peer_kernel": peer}
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as t:
        for name, data in (("./guest.json", {"rc": 0, "release": release, "proc_version": "Linux"}),
                           ("./run/runs.jsonl", rec)):
            b = json.dumps(data).encode() + b"\n"
            i = tarfile.TarInfo(name)
            i.size, i.mode = len(b), 0o644
            t.addfile(i, io.BytesIO(b))

init = "ipsecperf-guest: init t=1.000\n"
for name, rel, peer in (("rx", "6.1.0-standin-rx", None), ("liar", "6.1.0-standin-liar", "6.1.0-not-the-receiver"),
                        ("honest", "6.1.0-standin-honest", "6.1.0-standin-rx"), ("floodrx", "6.1.0-standin-floodrx", None),
                        ("slow", "6.1.0-standin-slow", "6.1.0-standin-floodrx"), ("blank", "6.1.0-standin-blank", "")):
    d = os.path.join(guests, name)
    os.makedirs(d)
    image(d + "/bzImage", rel)
    if name == "floodrx":
        open(d + "/flood", "w").close()
    if name == "slow":
        open(d + "/delay", "w").write("4")
    if peer is None:
        open(d + "/console", "w").write(init + "ipsecperf-guest: receiver ready t=1.100\n")
        open(d + "/serve", "w").close()
    else:
        open(d + "/console", "w").write(init + "ipsecperf-guest: matrix start t=1.100\n"
                                        "ipsecperf-guest: done t=2.000 rc=0 tar=0 sent_in=0.010\n")
        archive(d + "/tar", rel, peer)
PY
[ $? = 0 ] || fail "cannot build the stand-in guests"

standin_qemu "$guests" "$TMP/bin"

# A vm-pair run of stand-ins (SENDER RECEIVER guest pairs) into OUT, which
# must exit 1 (a guest refused) and say WHY on stderr (OUT.stderr).
pair_run_refused() { # out why sender receiver [sender receiver ...]
	local out=$1 why=$2 args=() rc
	shift 2
	while [ $# -ge 2 ]; do args+=(--kernel "$guests/$1/bzImage" --peer-kernel "$guests/$2/bzImage"); shift 2; done
	PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=tcg "$IPSECPERF" run -q --testbed vm-pair "${args[@]}" \
		-t 1 -O 0 -r 1 -o "$out" clear > "$out.stdout" 2> "$out.stderr"
	rc=$?
	[ $rc = 1 ] || { cat "$out.stderr" >&2; fail "$why: run exited $rc, not 1"; }
	grep -q "$why" "$out.stderr" || { cat "$out.stderr" >&2; fail "the refusal does not say: $why"; }
}

out="$TMP/out"
pair_run_refused "$out" "peer_kernel is not the receiver's release 6.1.0-standin-rx" liar rx honest rx blank rx
assert_records "$out/runs.jsonl" \
	'sorted((r["kernel"], r["status"]) for r in rs) == [("6.1.0-standin-blank", "failed"), ("6.1.0-standin-honest", "ok"), ("6.1.0-standin-liar", "failed")]' \
	"the liar's run (or the one that names no receiver) is not failed, or the honest one not kept"
assert_records "$out/runs.jsonl" 'all(r["testbed"] == "vm-pair" and r["vm"]["receiver"]["release"] == "6.1.0-standin-rx" for r in rs)' \
	"records do not say vm-pair and the receiver the host booted"
for p in $(pgrep -f "^sleep 600$"); do
	grep -qF "$TMP" "/proc/$p/environ" 2> /dev/null && fail "a stand-in receiver is left running"
done
assert_vm_clean "after the lying guest"
[ "$(grep -cx null "$guests/rx/argv")" = 2 ] && grep -qx 'file:.*/console.log' "$guests/rx/argv" ||
	{ cat "$guests/rx/argv" >&2; fail "the receiver's results and record ports are not -serial null"; }

# a receiver that floods its console while the sender runs (4 s)
out2="$TMP/out2"
pair_run_refused "$out2" "the receiver: the guest wrote more than 64 MiB on its console" slow floodrx
assert_records "$out2/runs.jsonl" '[r["status"] for r in rs] == ["failed"] and "receiver" in rs[0]["reason"]' \
	"the flooded pair's run is not failed with the reason"
assert_vm_clean "after the flooding receiver"
exit 0
