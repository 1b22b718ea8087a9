#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernel config, kernel build and kernel show on the tests' kernel tree,
# and what they refuse:
# - bad usage: one line, exit 2, nothing written (no .config, no folder);
# - kernel config --merge keeps a developer's own options and adds only
#   what the VM testbed needs (TCP_AO switched back on, esp4_offload made a
#   module again, a LOCALVERSION of theirs kept);
# - kernel show names each missing option with the scenarios it costs;
# - run refuses, before qemu starts, a kernel whose configuration cannot
#   boot in the VM testbed (no serial console), with the option named,
#   its runs failed, nothing left behind;
# - Ctrl-C on kernel build stops make and its jobs and keeps the log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

kb=$(ktree_base) || fail "the tests' kernel could not be built"
P="$IPSECPERF"

usage() { # what expected-message args...
	local what=$1 msg=$2
	shift 2
	"$P" "$@" > "$TMP/u.out" 2> "$TMP/u.err"
	local rc=$?
	[ $rc = 2 ] || { cat "$TMP/u.err" >&2; fail "$what: exit $rc, not 2"; }
	[ "$(wc -l < "$TMP/u.err")" = 1 ] || { cat "$TMP/u.err" >&2; fail "$what: not one line"; }
	grep -q -- "$msg" "$TMP/u.err" || { cat "$TMP/u.err" >&2; fail "$what: no '$msg'"; }
}
mkdir -p "$TMP/notatree"
# no TREE: the current folder's (here one that is not a tree)
(cd "$TMP/notatree" && usage "config here, not a tree" "not an x86 kernel source tree" kernel config -O "$TMP/o0") ||
	exit 1
usage "two trees" "name one kernel source TREE, only one" kernel config "$KSRC" "$KSRC"
usage "config of a folder that is not a tree" "not an x86 kernel source tree" \
	kernel config -O "$TMP/o1" "$TMP/notatree"
[ -e "$TMP/o1" ] && fail "a refused kernel config made its -O folder"
usage "build without a .config" "no .config in $TMP/o2" kernel build -O "$TMP/o2" "$KSRC"
[ -e "$TMP/o2" ] && fail "a refused kernel build made its -O folder"
usage "a --localversion with a slash" "letters, digits" kernel build --localversion -a/b -O "$kb" "$KSRC"
usage "merge into nothing" "no $TMP/o3/.config to merge into" kernel config --merge -O "$TMP/o3" "$KSRC"
usage "-j on show" "are for config and build" kernel show -j 2 "$kb"
usage "--merge on build" "--merge is not an option of build" kernel build --merge -O "$kb" "$KSRC"

# Built, and nothing changed since: kernel build says so and runs no make
(cd "$KSRC" && "$P" kernel build -O "$kb") > "$TMP/fresh.out" 2>&1 || { cat "$TMP/fresh.out" >&2; fail "a no-op build in the tree's folder failed"; }
grep -q "^kernel build: $kb is up to date (no file newer than its last build" "$TMP/fresh.out" ||
	{ cat "$TMP/fresh.out" >&2; fail "a build with nothing to do did not say it was up to date"; }
grep -q "make" "$kb/ipsecperf-built" || fail "no stamp of the last build in $kb"
for f in .tmp_vmlinux1 .tmp_vmlinux2; do
	[ -e "$kb/$f" ] && fail "the build left link-vmlinux.sh's $f"
done

# Ctrl-C stops make and every job it started; the log stays. On a copy of
# the base (tools/kernel-tree-copy.sh: seconds), never the base itself:
# the tests beside this one boot it, and a build stopped there would leave
# it without its stamp, to be made again. Without the last build's stamp
# make runs (its no-op takes 20 s). The build's processes carry a tag in
# their environment, so that only they are looked for (other builds may
# run on this machine).
kc="$KTREE_CACHE/src/linux-6.12-kcli-$$"
trap 'rm -rf "$kc" "$TMP"' EXIT
bash "$TOP/tools/kernel-tree-copy.sh" "$KSRC" "$kc" || fail "cannot copy $KSRC to $kc"
tag="kernel-cli-$$"
rm -f "$kc/build/ipsecperf-built"
IPSECPERF_TEST_TAG=$tag "$P" kernel build -O "$kc/build" "$kc" > "$TMP/int.out" 2> "$TMP/int.err" &
pid=$!
for _ in $(seq 100); do pgrep -f "make .*$kc" > /dev/null && grep -qs "IPSECPERF_TEST_TAG=$tag" \
	$(pgrep -f "make .*$kc" | sed 's|.*|/proc/&/environ|') && break; sleep 0.1; done
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -ne 0 ] || fail "an interrupted kernel build exited 0"
grep -q 'kernel build: stopped' "$TMP/int.err" || { cat "$TMP/int.err" >&2; fail "no word of the stop"; }
sleep 1
left=$(grep -ls "IPSECPERF_TEST_TAG=$tag" /proc/[0-9]*/environ 2> /dev/null || true)
[ -z "$left" ] || fail "an interrupted kernel build left: $(for f in $left; do tr '\0' ' ' < "${f%/environ}/cmdline"; echo; done)"
[ -s "$kc/build/ipsecperf-build.log" ] || fail "the interrupted build's log is gone"
[ -e "$kc/build/ipsecperf-built" ] && fail "an interrupted build left a stamp: the next would not run make"
grep -q 'kernel build: make runs: .*ipsecperf-built (no build here ended)' "$TMP/int.err" ||
	{ cat "$TMP/int.err" >&2; fail "the build did not say why make runs"; }
rm -rf "$kc"

# --merge: a developer's .config that lacks some of what the testbed needs
m="$TMP/merge"
mkdir -p "$m"
sed -e 's/^CONFIG_TCP_AO=y/# CONFIG_TCP_AO is not set/' -e 's/^CONFIG_INET_ESP_OFFLOAD=m/CONFIG_INET_ESP_OFFLOAD=y/' \
	-e 's/^CONFIG_LOCALVERSION=.*/CONFIG_LOCALVERSION="-mine"/' "$kb/.config" > "$m/.config"
"$P" kernel show "$m" > "$TMP/show" 2>&1 # not a built tree: resolve fails, nothing to show
"$P" kernel config --merge -q -O "$m" "$KSRC" > "$TMP/merge.out" 2>&1 || { cat "$TMP/merge.out" >&2; fail "merge failed"; }
grep -q '^CONFIG_TCP_AO=y' "$m/.config" || fail "merge did not switch TCP_AO back on"
grep -q '^CONFIG_INET_ESP_OFFLOAD=m' "$m/.config" || fail "merge did not make esp4_offload a module"
grep -q '^CONFIG_LOCALVERSION="-mine"' "$m/.config" || fail "merge lost the developer's LOCALVERSION"

# a tree whose configuration cannot boot: the base's image and modules,
# its .config without the serial console, a release of its own
nb="$TMP/noserial"
mkdir -p "$nb/arch/x86/boot" "$nb/include/config"
ln -s "$kb/arch/x86/boot/bzImage" "$nb/arch/x86/boot/bzImage"
echo "6.12.117-noserial" > "$nb/include/config/kernel.release"
sed -e 's/^CONFIG_SERIAL_8250_CONSOLE=y/# CONFIG_SERIAL_8250_CONSOLE is not set/' \
	-e 's/^CONFIG_TCP_AO=y/# CONFIG_TCP_AO is not set/' "$kb/.config" > "$nb/.config"
: > "$nb/modules.order"
"$P" kernel show "$nb" > "$TMP/show" 2>&1 || { rc=$?; cat "$TMP/show" >&2; fail "kernel show of the unbootable tree exited $rc"; }
grep -q 'CONFIG_SERIAL_8250_CONSOLE not set .*every run' "$TMP/show" ||
	{ cat "$TMP/show" >&2; fail "kernel show did not name the serial console"; }
grep -q 'CONFIG_TCP_AO not set .*costs tcp-ao$' "$TMP/show" ||
	{ cat "$TMP/show" >&2; fail "kernel show did not say TCP_AO costs tcp-ao"; }
"$P" kernel show -f json "$nb" | python3 -c '
import json, sys
m = json.load(sys.stdin)[0]["missing"]
if not (any(l.startswith("CONFIG_SERIAL_8250_CONSOLE not set") for l in m)): raise AssertionError(m)' || fail "kernel show -f json: missing"

snapshot > "$TMP/before"
start=$(date +%s)
"$P" run --testbed vm --kernel "$nb" -t 1 -r 1 -o "$TMP/res" clear > "$TMP/run.out" 2> "$TMP/run.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/run.err" >&2; fail "run on an unbootable configuration exited $rc, not 1"; }
[ $(($(date +%s) - start)) -lt 60 ] || fail "the refusal took a boot's time: was qemu started?"
grep -q 'cannot boot in the VM testbed' "$TMP/run.err" || { cat "$TMP/run.err" >&2; fail "no clear error"; }
grep -q 'CONFIG_SERIAL_8250_CONSOLE' "$TMP/run.err" || { cat "$TMP/run.err" >&2; fail "the option was not named"; }
assert_records "$TMP/res/runs.jsonl" \
	'[r["status"] for r in rs] == ["failed"] and "SERIAL_8250_CONSOLE" in rs[0]["reason"]' \
	"the refused kernel's run is not a failed record naming the option"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "run on an unbootable configuration"
assert_vm_clean "run on an unbootable configuration"
exit 0
