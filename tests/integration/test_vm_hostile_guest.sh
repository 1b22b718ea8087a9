#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A guest is not trusted. Stand-in guests (a stand-in qemu that writes the
# serial files itself when the kernel image is one of ours: the console
# with the guest's markers, a tar crafted with python's tarfile, the record
# port) send what a hostile or broken kernel could: a device node, a
# symbolic link out, a ../ path, a release of ../../x, a setuid file, a
# record for another kernel, a control character in a record, a flood on
# the console; and one archive with all of it. Each such kernel's runs fail
# with a reason that says what was refused; nothing lands outside the
# results directory; every file under it is a regular file of mode 0644
# (folders 0755); the results read back; no escape reaches the terminal;
# and a real Debian kernel in the same run, after them, still runs ok.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
rel61=$("$IPSECPERF" kernel show "$k61" | awk '/^release:/ {print $2}')
guests="$TMP/guests" w="$TMP/w"
mkdir -p "$guests" "$w/a" "$TMP/bin"
out="$w/a/out"
# (at most 8 kernels a run; the device node is in "all", whose first refusal it is)
names="link dotdot release setuid ctrl flood all"
more="claim meta" # a second run: release and meta.json of another kernel

# the stand-in guests: a bzImage header naming its release, and what each sends
python3 - "$guests" "$w" "$rel61" $names $more << 'EOF'
import io, json, os, sys, tarfile
guests, w, rel61, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def image(path, release):
    img = bytearray(0x400)
    img[0x202:0x206] = b"HdrS"
    img[0x20e:0x210] = (0x100).to_bytes(2, "little")   # version string at 0x300
    v = release.encode() + b" (a stand-in)\0"
    img[0x300:0x300 + len(v)] = v
    open(path, "wb").write(img)

def record(kernel, status="ok", **more):
    r = {"version": 1, "kernel": kernel, "scenario": "clear", "repeat": 1, "status": status,
         "throughput_bps": 1e9, "testbed": "netns"}
    r.update(more)
    return json.dumps(r) + "\n"

def entry(t, name, data=b"", mode=0o644, type=tarfile.REGTYPE, link=""):
    i = tarfile.TarInfo(name)
    i.type, i.mode, i.linkname, i.uid, i.gid = type, mode, link, 0, 0
    if type == tarfile.CHRTYPE:
        i.devmajor, i.devminor = 1, 3
    if type == tarfile.REGTYPE:
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
    else:
        t.addfile(i)

def archive(path, release, hostile):
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as t:
        if "meta" in hostile:
            meta = {"version": 1, "kernels": [{"release": release, "version": "Linux\u001b]0;x\u0007"}]}
            entry(t, "./run/meta.json", json.dumps(meta).encode())
        entry(t, "./", type=tarfile.DIRTYPE, mode=0o755)
        entry(t, "./guest.json", json.dumps({"rc": 0, "release": release, "proc_version": "Linux"}).encode())
        entry(t, "./run/", type=tarfile.DIRTYPE)
        entry(t, "./run/raw/", type=tarfile.DIRTYPE)
        entry(t, "./run/raw/setuid-sh", b"#!/bin/sh\nid\n", mode=0o4755)
        for h in hostile:
            if h == "dev":
                entry(t, "./run/raw/null", type=tarfile.CHRTYPE, mode=0o666)
            elif h == "link":
                entry(t, "./run/raw/passwd", type=tarfile.SYMTYPE, link=w + "/target")
            elif h == "dotdot":
                entry(t, "./run/raw/../../../escape", b"out\n")
        entry(t, "./run/runs.jsonl", record(rel61 if "forge" in hostile else release).encode())

init = "ipsecperf-guest: init t=1.000\nipsecperf-guest: matrix start t=1.100\n"
done = "ipsecperf-guest: done t=2.000 rc=0 tar=0 sent_in=0.010\n"
for n in names:
    d = os.path.join(guests, "hostile-" + n)
    os.makedirs(d)
    rel = "6.1.0-hostile-" + n
    image(os.path.join(d, "bzImage"), rel)
    console = init + done
    if n == "release":
        archive(d + "/tar", "../../x", [])
    elif n == "setuid":
        archive(d + "/tar", rel, ["forge"])
    elif n == "ctrl":
        # no tar: the guest stops after its first record, which holds an escape
        console = init + "Kernel panic - not syncing: \x1b]0;pwned\x07\x1b[2J\x9b31m\n"
        open(d + "/live", "w").write(record(rel, "failed", reason="\x1b[2J"))
    elif n == "flood":
        console = init
        open(d + "/flood", "w").close()
    elif n == "claim":
        archive(d + "/tar", rel61, [])
    elif n == "meta":
        archive(d + "/tar", rel, ["meta"])
    elif n == "all":
        archive(d + "/tar", "../../x", ["dev", "link", "dotdot"])
    else:
        archive(d + "/tar", rel, [n])
    open(d + "/console", "w").write(console)
EOF
[ $? = 0 ] || fail "cannot build the stand-in guests"

standin_qemu "$guests" "$TMP/bin"

kernels=()
for n in $names; do
	kernels+=(--kernel "$guests/hostile-$n/bzImage")
done
start=$(date +%s)
PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=tcg "$IPSECPERF" run --testbed vm "${kernels[@]}" \
	--kernel "$k61" --duration 1 --omit 0 --repeat 1 -o "$out" clear > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
info "$(echo $names | wc -w) stand-in guests and $rel61 in $(($(date +%s) - start)) s"
[ $rc = 1 ] || { cat "$TMP/stderr" >&2; fail "the run exited $rc, not 1"; }

# each kernel's one run: failed with what was refused, and the real one ok
reason() { # release
	json_values --arg k "$1" "$out/runs.jsonl" '" ".join((r["status"], r.get("reason", ""))) if r["kernel"] == k else ""' |
		grep .
}
expect() { # name what
	local got
	got=$(reason "6.1.0-hostile-$1")
	[[ "$got" == "failed vm: "*"$2"* ]] || { cat "$TMP/stderr" >&2; fail "$1: '$got' does not say '$2'"; }
}
expect link "(./run/raw/passwd): a symbolic link; only regular files and folders are taken"
expect dotdot "(./run/raw/../../../escape): '..' is not a plain name"
expect release "guest.json: \"release\" '../../x' is not a plain name"
expect setuid "the guest's record was refused: run/runs.jsonl:1: kernel '$rel61' is not the guest's own release 6.1.0-hostile-setuid"
expect ctrl "the guest's record was refused: live.jsonl:1:"
expect flood "the guest wrote more than 64 MiB on its console; stopped it"
expect all "the guest's results were refused: results.tar: entry 6 (./run/raw/null): a character device; only regular files and folders are taken"
[ "$(reason "$rel61")" = "ok " ] || { cat "$TMP/stderr" >&2; fail "$rel61 did not run ok after the stand-ins"; }
[ "$(wc -l < "$out/runs.jsonl")" = 8 ] || fail "not one record per kernel"

# a second run: a guest that says it is another kernel, a meta.json with an escape
kernels=()
for n in $more; do
	kernels+=(--kernel "$guests/hostile-$n/bzImage")
done
PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=tcg "$IPSECPERF" run --testbed vm "${kernels[@]}" \
	--duration 1 --omit 0 --repeat 1 -o "$w/a/out2" clear > "$TMP/stdout2" 2> "$TMP/stderr2"
rc=$?
[ $rc = 1 ] || { cat "$TMP/stderr2" >&2; fail "the second run exited $rc, not 1"; }
out1=$out out=$w/a/out2
expect claim "guest.json: release $rel61 is not this kernel's own 6.1.0-hostile-claim"
expect meta "run/meta.json: its kernel: a string holds a control character (0x1b at byte 5)"
assert_records "$out/runs.jsonl" 'sorted(r["kernel"] for r in rs) == ["6.1.0-hostile-claim", "6.1.0-hostile-meta"]' \
	"a record names the kernel a guest claimed to be"
assert_json "$out/meta.json" 'd["kernels"] == []' "meta.json keeps a refused guest's kernel"
rm -rf "$out"
out=$out1

# nothing outside the results directory; inside it, plain files and folders
[ "$(ls -A "$w")" = a ] && [ "$(ls -A "$w/a")" = out ] ||
	fail "something landed next to the results: $(find "$w" -maxdepth 2)"
[ -z "$(find "$TMP" -name 'escape*' -o -name x -o -name target)" ] || fail "a guest's file escaped"
bad=$(find "$out" \( -type f ! -perm 0644 \) -o \( -type d ! -perm 0755 \) -o \( ! -type f ! -type d \))
[ -z "$bad" ] || fail "not a 0644 file or 0755 folder: $(ls -ld $bad)"
[ -z "$(find "$out" -perm /7000)" ] || fail "a setuid, setgid or sticky bit was kept"
[ -z "$(find "$out" ! -user root)" ] || fail "a guest's owner was kept"
[ "$(ls "$out/raw" | sort | tr '\n' ' ')" = "$(printf '%s\n' $names | sed 's/^/6.1.0-hostile-/' |
	{ cat; echo "$rel61"; } | sort | tr '\n' ' ')" ] || fail "raw/ holds $(ls "$out/raw")"
# a refused archive, or a refused record, leaves nothing of the guest's: only the host's console
# (a kept setuid file made 0644: tests/unit/test_guest_tar.c)
for n in all setuid; do
	[ "$(ls "$out/raw/6.1.0-hostile-$n")" = console.log ] || fail "raw/ of refused $n: $(ls "$out/raw/6.1.0-hostile-$n")"
done
flood=$(stat -c %s "$out/raw/6.1.0-hostile-flood/console.log")
[ "$flood" -le $((64 << 20)) ] || fail "the flooded console was kept whole ($flood bytes)"

# the results read back, and the guests' bytes never reached the terminal
"$IPSECPERF" report "$out" > "$TMP/report" 2>&1 || { cat "$TMP/report" >&2; fail "report refuses the results"; }
! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x80-\xff]' "$TMP/stderr" "$TMP/stdout" ||
	fail "a control character from a guest reached the terminal"
grep -q "Kernel panic - not syncing: ?\]0;pwned??\[2J??31m" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "the guest's console line is not shown with its controls replaced"; }

assert_vm_clean "after the stand-in guests"
exit 0
