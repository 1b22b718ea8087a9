#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A KVM that cannot run the guest, whatever it says or does not say, costs
# one try and the run still succeeds under TCG: a stand-in qemu first in
# PATH answers "-accel kvm" with a message no code has seen (random text
# and an exit), or with silence (a hang), either at once (qemu's probe,
# vm_kvm.c) or only when it boots the kernel (the probe passes); under
# "-accel tcg" it runs the real qemu. Each run: exit 0, every record
# accel tcg, the reason named, and the second boot (--interleave) does not
# try KVM again (the stand-in logs its invocations). IPSECPERF_VM_ACCEL=kvm
# makes the runs try KVM without a /dev/kvm, so this holds on any machine.
# Then `ipsecperf doctor`'s KVM row with the same stand-ins, and with the
# real qemu whatever this machine's KVM is.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
real=$(command -v qemu-system-x86_64)
mkdir -p "$TMP/bin"
msg="qemu-system-x86_64: zq$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n') never seen before"

# the stand-in: MODE decides what "-accel kvm" gets
standin() { # mode
	cat > "$TMP/bin/qemu-system-x86_64" << EOF
#!/bin/sh
echo "\$*" >> "$TMP/qemu.log"
case " \$* " in
*" -accel kvm "*) ;;
*) [ $1 = tcgfail ] && { echo "$msg" >&2; exit 3; }
   exec "$real" "\$@" ;;
esac
case $1 in
fail|tcgfail) echo "$msg" >&2; exit 3 ;;
hang) exec sleep 600 ;;
# a boot has -kernel (both have -bios: the probe's firmware, the boot's qboot)
bootfail) case " \$* " in *" -kernel "*) echo "$msg" >&2; exit 1 ;; esac ;;
boothang) case " \$* " in *" -kernel "*) exec sleep 600 ;; esac ;;
esac
# the probe passes: it runs under TCG
n=\$#
for a in "\$@"; do
	case "\$a" in kvm) a=tcg ;; host) a=max ;; esac
	set -- "\$@" "\$a"
done
shift \$n
exec "$real" "\$@"
EOF
	chmod +x "$TMP/bin/qemu-system-x86_64"
	: > "$TMP/qemu.log"
}

kvm_tries() { grep -c -- '-accel kvm' "$TMP/qemu.log"; }
kvm_boots() { grep -- '-accel kvm' "$TMP/qemu.log" | grep -c -- '-kernel'; }
tcg_boots() { grep -- '-accel tcg' "$TMP/qemu.log" | grep -c -- '-kernel'; }

# one run: MODE, the number of boots, what the output must name, and
# which count of KVM tries must be 1 (kvm_tries or kvm_boots)
run() { # mode boots reason count
	local out="$TMP/out-$1" rc start
	standin "$1"
	start=$(date +%s)
	PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=kvm "$IPSECPERF" run --testbed vm --kernel "$k61" \
		--duration 1 --omit 0 --repeat "$2" $([ "$2" -gt 1 ] && echo --interleave) -o "$out" clear \
		> "$TMP/stdout" 2> "$TMP/stderr"
	rc=$?
	[ $rc = 0 ] || { cat "$TMP/stderr" >&2; fail "$1: the run exited $rc, not 0"; }
	grep -qF -- "$3" "$TMP/stderr" || { cat "$TMP/stderr" >&2; fail "$1: the output does not name the reason ($3)"; }
	assert_jsonl "$out/runs.jsonl" 'r["status"] == "ok" and r["vm"]["accel"] == "tcg"' "$1: not every record is ok under TCG"
	assert_records --arg n "$2" "$out/runs.jsonl" 'len(rs) == int(n)' "$1: not $2 records"
	assert_json --arg n "$2" --arg why "$3" "$out/meta.json" \
		'len(d["vm"]) == int(n) and all(v["accel"] == "tcg" and why in v["accel_why"] for v in d["vm"])' \
		"$1: meta.json does not keep the reason"
	[ "$(tcg_boots)" = "$2" ] || fail "$1: $(tcg_boots) boots under TCG, not $2"
	[ "$($4)" = 1 ] || fail "$1: KVM tried $($4) times ($4), not once"
	info "$1: $2 boot(s) under TCG in $(($(date +%s) - start)) s, KVM tried $(kvm_tries) time(s)"
}

# 1. KVM fails at once, with a message never seen: qemu's probe finds it, once
run fail 2 "$msg" kvm_tries
grep -q "KVM cannot run guests here: qemu -accel kvm -cpu host exited with status 3: $msg" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "fail: the reason is not qemu's own line"; }

# 2. KVM hangs without a word: the probe's time limit finds it
run hang 1 "did not finish a guest of 10 million instructions within 3 s" kvm_tries

# 3. the probe passes, the kernel's boot fails with a message never seen: once
run bootfail 2 "KVM did not bring" kvm_boots
grep -qF "qemu exited with status 1 before the guest reached its init: $msg; booting it again under TCG" "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "bootfail: qemu's line is not quoted"; }

# 4. the probe passes, the kernel's boot hangs without a word: 10 s, once
run boothang 2 "the guest did not reach its init within 10 s" kvm_boots

# doctor: the KVM row with the stand-ins, then with the real qemu
doctor_kvm() { # mode
	standin "$1"
	PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=kvm timeout 60 "$IPSECPERF" doctor 2> "$TMP/stderr" |
		grep '^  KVM '
}
row=$(doctor_kvm fail)
[[ "$row" == "  KVM "*" no "*"exited with status 3: $msg; the vm testbed uses TCG"* ]] ||
	fail "doctor with a failing KVM: $row"
start=$(date +%s)
row=$(doctor_kvm hang)
[[ "$row" == "  KVM "*" no "*"did not finish"*"within 3 s"* ]] || fail "doctor with a hanging KVM: $row"
[ $(($(date +%s) - start)) -lt 20 ] || fail "doctor took $(($(date +%s) - start)) s with a hanging KVM"
row=$(doctor_kvm tcgfail)
[[ "$row" == "  KVM "*" unknown "*"did not run the test guest under TCG either ($msg)"* ]] ||
	fail "doctor with a qemu that runs nothing: $row"
row=$(doctor_kvm bootfail) # the probe passes (under TCG, by the stand-in)
[[ "$row" == "  KVM "*" yes "*"qemu ran a guest under -accel kvm -cpu host"* ]] ||
	fail "doctor with a working KVM: $row"
row=$(timeout 60 "$IPSECPERF" doctor | grep '^  KVM ')
info "this machine:${row#  KVM}"
[[ "$row" =~ ^\ \ KVM\ +(yes|no|unknown)\ + ]] || fail "doctor's KVM row: $row"
[ -e /dev/kvm ] || [[ "$row" == *" no "*"/dev/kvm: "* ]] || fail "no /dev/kvm, yet: $row"

assert_vm_clean "after the runs and doctor"
exit 0
