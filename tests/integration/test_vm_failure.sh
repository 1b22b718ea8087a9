#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A kernel that cannot be had, panics or hangs fails cleanly: failed
# records with the reason, the last console lines in the error, no qemu or
# scratch folder left, and the other kernels still run. The panic and the
# hang are made with IPSECPERF_VM_APPEND (an init that does not exist; no
# init and a root device that never comes, waited for) and a short
# IPSECPERF_VM_TIMEOUT.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?

# 1. a missing kernel first: the next one still runs (after KVM failed, see
# below). The next one is given as a kernel build tree (what
# docs/vm-testbed.md tells people to do with a patched kernel), laid out
# from the 6.1 package as kbuild leaves a tree:
# arch/x86/boot/bzImage, .config, include/config/kernel.release,
# modules.order naming objects, each module next to its sources.
pkg=$("$IPSECPERF" kernel show "$k61" | awk '/^image:/ {print $2}' | sed 's|/boot/vmlinuz-.*||')
rel=$("$IPSECPERF" kernel show "$k61" | awk '/^release:/ {print $2}')
tree="$TMP/linux"
mkdir -p "$tree/arch/x86/boot" "$tree/include/config"
cp "$pkg/boot/vmlinuz-$rel" "$tree/arch/x86/boot/bzImage"
cp "$pkg/boot/config-$rel" "$tree/.config"
echo "$rel" > "$tree/include/config/kernel.release"
(cd "$pkg/lib/modules/$rel/kernel" && find . -name '*.ko' | sed 's|^\./||' |
	tee >(sed 's|\.ko$|.o|' > "$tree/modules.order") | cpio -pdm --quiet "$tree")
cp "$pkg/lib/modules/$rel/modules.builtin" "$pkg/lib/modules/$rel/modules.builtin.modinfo" "$tree/"
#
# And KVM that cannot run the guest: this host may have no /dev/kvm at all,
# so a stand-in qemu answers "-accel kvm" the way a broken nested KVM does
# (an emulation failure, then a paused VM) and runs the real qemu for TCG;
# IPSECPERF_VM_ACCEL=kvm makes the run try KVM first anyway.
mkdir -p "$TMP/bin"
cat > "$TMP/bin/qemu-system-x86_64" << EOF
#!/bin/sh
case " \$* " in
*" -accel kvm "*)
	echo "KVM internal error. Suberror: 1" >&2
	echo "emulation failure" >&2
	exec sleep 600 ;;
esac
exec $(command -v qemu-system-x86_64) "\$@"
EOF
chmod +x "$TMP/bin/qemu-system-x86_64"
out="$TMP/missing"
PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=kvm "$IPSECPERF" run --testbed vm \
	--kernel "$TMP/no-such-bzImage" --kernel "$tree" --duration 2 \
	--omit 0 --repeat 1 --count-repeats 0 -o "$out" esp-null > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
grep -q "KVM cannot run guests here: .*; qemu said: KVM internal error. Suberror: 1; using TCG" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "no fallback from a failing KVM to TCG"; }
# the failed record (the missing kernel) never booted: only the second has a vm
assert_records "$out/runs.jsonl" 'rs[-1]["vm"]["accel"] == "tcg"' "the record does not say TCG was used"
[ $rc = 1 ] || { cat "$TMP/stderr" >&2; fail "a missing kernel exited $rc, not 1"; }
grep -q "no-such-bzImage: no such file" "$TMP/stderr" || fail "the missing kernel was not named"
json_check --all "$out/runs.jsonl" '[r["status"] for r in rs] == ["failed", "ok"]' ||
	{ cat "$TMP/stderr" >&2; fail "expected the missing kernel failed and the tree ok"; }
# esp-null in a tree's kernel: its modules were found, indexed and loaded
assert_records "$out/runs.jsonl" 'sum(s["packets"] for s in rs[1]["sa"] if s["dir"] == "out") > 0' \
	"no ESP packets counted with the tree's modules"
rm -rf "$tree"

# 2. a panic: found on the console, reported with its last lines
out="$TMP/panic"
start=$(date +%s)
IPSECPERF_VM_APPEND="rdinit=/no-such-init" "$IPSECPERF" run --testbed vm --kernel "$k61" \
	--duration 2 --repeat 1 -o "$out" clear > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
[ $rc = 1 ] || fail "a panicking kernel exited $rc, not 1"
grep -q "kernel panic: .*Kernel panic - not syncing" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "the panic was not reported"; }
grep -q "^  | .*Call Trace" "$TMP/stderr" || fail "no console lines in the error"
assert_records "$out/runs.jsonl" '[r["status"] for r in rs] == ["failed"] and rs[0]["reason"].startswith("vm: kernel panic")' \
	"no failed record for the panic"
[ -s "$out/raw/$(json_values "$out/runs.jsonl" 'r["kernel"]')/console.log" ] || fail "console not kept"
info "panic reported after $(($(date +%s) - start)) s"

# 3. a hang: stopped at the timeout. Without an rdinit the kernel mounts
# root=, and rootwait waits for /dev/vdz forever. (An init that waits,
# such as rdinit=/bin/sh, cannot be had: the guest's argument "guest"
# follows "--", sh takes it for a script, exits, and the kernel panics.)
out="$TMP/hang"
start=$(date +%s)
IPSECPERF_VM_APPEND="rdinit=/nonexistent root=/dev/vdz rootwait" IPSECPERF_VM_TIMEOUT=8 "$IPSECPERF" run --testbed vm \
	--kernel "$k61" --duration 2 --repeat 1 -o "$out" clear > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
secs=$(($(date +%s) - start))
[ $rc = 1 ] || fail "a hanging guest exited $rc, not 1"
grep -q "timed out after 8 s, before the guest's init ran" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "the timeout was not reported"; }
[ $secs -lt 40 ] || fail "the hang took $secs s to stop"
info "hang stopped after $secs s"

assert_vm_clean "after the VM runs"
exit 0
