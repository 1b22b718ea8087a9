#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A TCG boot that panics before the guest's init is booted once more, and
# only once: a stand-in qemu first in PATH writes a kernel panic to the
# console (the first -serial file) and exits, as qemu -no-reboot does,
# for the first N boots, then runs the real qemu.
# - one panic: the run succeeds, says it booted again, and its records
#   carry the first boot's panic line (vm.boot_retry);
# - panics every time: two boots, no more; the runs fail with the panic.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
real=$(command -v qemu-system-x86_64)
mkdir -p "$TMP/bin"
export PATH="$TMP/bin:$PATH" IPSECPERF_VM_ACCEL=tcg
standin() { # panics: how many boots panic
	sed -e "s|@REAL@|$real|" -e "s|@BOOTS@|$TMP/boots|" -e "s|@N@|$1|" > "$TMP/bin/qemu-system-x86_64" << 'EOF'
#!/bin/sh
case " $* " in *" -kernel "*) ;; *) exec "@REAL@" "$@" ;; esac
echo boot >> "@BOOTS@"
[ "$(wc -l < "@BOOTS@")" -gt @N@ ] && exec "@REAL@" "$@"
for a in "$@"; do
	case $a in file:*)
		printf '[    1.054122] Kernel panic - not syncing: Fatal exception in interrupt\n' > "${a#file:}"
		exit 0 ;;
	esac
done
exit 1
EOF
	chmod +x "$TMP/bin/qemu-system-x86_64"
	: > "$TMP/boots"
}

standin 1
"$IPSECPERF" run --testbed vm --kernel "$k61" -t 1 -r 1 --no-probes -o "$TMP/once" clear \
	> "$TMP/once.out" 2> "$TMP/once.err" || { rc=$?; cat "$TMP/once.err" >&2; fail "one panic before init: run exited $rc"; }
[ "$(wc -l < "$TMP/boots")" = 2 ] || fail "one panic: $(wc -l < "$TMP/boots") boots, not 2"
grep -q 'panicked under TCG before its init (.*Fatal exception in interrupt); booting it once more' "$TMP/once.err" ||
	{ cat "$TMP/once.err" >&2; fail "the retry was not said"; }
assert_records "$TMP/once/runs.jsonl" \
	'[r["status"] for r in rs] == ["ok"] and "Fatal exception" in rs[0]["vm"]["boot_retry"]' \
	"one panic: the run is not ok with vm.boot_retry"
assert_vm_clean "one panic before init"

standin 99
"$IPSECPERF" run --testbed vm --kernel "$k61" -t 1 -r 1 --no-probes -o "$TMP/always" clear \
	> "$TMP/always.out" 2> "$TMP/always.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/always.err" >&2; fail "panics every time: run exited $rc, not 1"; }
[ "$(wc -l < "$TMP/boots")" = 2 ] || fail "panics every time: $(wc -l < "$TMP/boots") boots, not 2"
assert_records "$TMP/always/runs.jsonl" \
	'[r["status"] for r in rs] == ["failed"] and "kernel panic" in rs[0]["reason"]' \
	"panics every time: the run is not failed with the panic"
assert_vm_clean "a kernel that panics every time"
exit 0
