#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How the VM testbed boots a kernel (docs/vm-testbed.md, "Speed"): through
# qboot when qemu ships it, the kernel's uncompressed vmlinux through its
# PVH entry, and cryptomgr.notests; IPSECPERF_VM_BOOT=classic boots the
# bzImage under SeaBIOS as before, and still runs. A bzImage whose payload
# does not inflate, or whose header points past its end, is booted as it
# is. Dry runs show the qemu command without booting.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

qboot=
[ -f /usr/share/qemu/qboot.rom ] && qboot=/usr/share/qemu/qboot.rom

dry() { # out-file run-args...
	local o=$1
	shift
	"$IPSECPERF" -v run --dry-run --testbed vm "$@" --duration 1 --repeat 1 --no-probes clear \
		> "$o" 2> "$o.err" || { rc=$?; cat "$o.err" "$o" >&2; fail "dry run exited $rc: $*"; }
	grep -q '^qemu-system-x86_64 ' "$o" || { cat "$o" >&2; fail "no qemu command: $*"; }
}

for re in "$DEB61" "$DEB612"; do
	k=$(vm_kernel "$re") || exit $?
	dry "$TMP/quick" --kernel "$k"
	grep -q -- "-kernel [^ ]*/ipsecperf-vm-[^ /]*/vmlinux " "$TMP/quick" ||
		{ cat "$TMP/quick" "$TMP/quick.err" >&2; fail "$k: not booted through its vmlinux's PVH entry"; }
	grep -q "cryptomgr.notests" "$TMP/quick" || fail "$k: no cryptomgr.notests"
	if [ -n "$qboot" ]; then
		grep -q -- "-bios $qboot " "$TMP/quick" || fail "$k: qboot is there and was not used"
	fi
	IPSECPERF_VM_BOOT=classic dry "$TMP/classic" --kernel "$k"
	grep -q -- "-kernel '\?/[^ ]*/boot/vmlinuz-" "$TMP/classic" || fail "$k: classic did not boot the bzImage"
	! grep -q -- "-bios\|cryptomgr" "$TMP/classic" || fail "$k: classic boot is not the old one"
done
assert_vm_clean "after the dry runs"

# broken images: the bzImage as it is (its header still names its release)
"$IPSECPERF" kernel show -f json "$(vm_kernel "$DEB61")" > "$TMP/kernel.json" || fail "kernel show exited $?"
dir=$(json_value "$TMP/kernel.json" 'd[0]["image"] + " " + d[0]["modules"]') || fail "kernel show: no image and modules"
read -r image moddir <<< "$dir"
[ -f "$image" ] && [ -d "$moddir" ] || fail "kernel show gave no image and modules: $dir"
cp "$image" "$TMP/corrupt.bzImage"
# 64 KiB of garbage in the middle of the payload
size=$(stat -c %s "$image")
head -c 65536 /dev/urandom | dd of="$TMP/corrupt.bzImage" bs=1 seek=$((size / 2)) conv=notrunc status=none
cp "$image" "$TMP/pastend.bzImage"
# payload_length (offset 0x24c) far beyond the file's end
printf '\xff\xff\xff\x7f' | dd of="$TMP/pastend.bzImage" bs=1 seek=$((0x24c)) conv=notrunc status=none
for b in corrupt pastend; do
	dry "$TMP/$b" --kernel "$TMP/$b.bzImage:$moddir"
	grep -q -- "-kernel $TMP/$b.bzImage " "$TMP/$b" ||
		{ cat "$TMP/$b" "$TMP/$b.err" >&2; fail "$b: the bzImage itself was not booted"; }
	grep -q "booting the bzImage" "$TMP/$b.err" || fail "$b: no reason why the bzImage is booted"
done
assert_vm_clean "after the broken images"

# the classic boot still runs a matrix
out="$TMP/res"
IPSECPERF_VM_BOOT=classic "$IPSECPERF" run --testbed vm --kernel "$(vm_kernel "$DEB61")" \
	--duration 1 --repeat 1 --no-probes -o "$out" clear > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" >&2; fail "classic run exited $rc"; }
cat "$TMP/stderr" >&2
assert_records "$out/runs.jsonl" 'len(rs) == 1 and rs[0]["status"] == "ok"' "the classic boot's run is not one ok record"
assert_vm_clean "after the classic boot"
exit 0
