#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input gets one clear line on stderr, exit status 2, and changes
# nothing: no namespace, no link, no results directory, no journal.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"
cd "$TMP" # a default results directory would land here

expect_usage() { # what pattern -- argv...
	local what=$1 pattern=$2
	shift 3
	expect_exit2 "$what" "$pattern" "$@"
}

cat > "$TMP/unknown-key.ini" <<'INI'
[scenario]
description = a typo on line 4
tso = off
INI
cat > "$TMP/bad-value.ini" <<'INI'
[scenario]
description = x

[offload]
gso = maybe
INI
printf '[scenario\ndescription = x\n' > "$TMP/syntax.ini"

expect_usage "unknown scenario" "unknown scenario 'nope'; known: .*clear" -- "$IPSECPERF" run nope
expect_usage "unknown key" "unknown-key.ini:3: unknown key 'tso' in \[scenario\]" -- "$IPSECPERF" run "$TMP/unknown-key.ini"
expect_usage "bad value" "bad-value.ini:5: gso must be on or off" -- "$IPSECPERF" run "$TMP/bad-value.ini"
expect_usage "syntax" "syntax.ini:1:" -- "$IPSECPERF" run "$TMP/syntax.ini"
expect_usage "duration 0" "--duration takes a whole number from 1 to 3600, not '0'" -- "$IPSECPERF" run --duration 0 clear
expect_usage "repeat x" "--repeat takes a whole number" -- "$IPSECPERF" run --repeat x clear
expect_usage "omit 61" "--omit takes a whole number from 0 to 60" -- "$IPSECPERF" run --omit 61 clear
expect_usage "bad address" "is not an IPv4 or IPv6 address" -- "$IPSECPERF" run --addr-tx 300.1.1.1 clear
expect_usage "unknown option" "unknown option" -- "$IPSECPERF" run --frobnicate clear
expect_usage "twice" "named twice" -- "$IPSECPERF" run clear clear
expect_usage "testbed" "unknown testbed 'cloud'" -- "$IPSECPERF" run --testbed cloud clear
expect_usage "interleave" "--interleave is for the vm and vm-pair testbeds" -- "$IPSECPERF" run clear --interleave
expect_usage "repeat-from 0" "--repeat-from takes a whole number from 1" -- "$IPSECPERF" run --repeat-from 0 clear
expect_usage "command" "'frob' is not a command" -- "$IPSECPERF" frob
expect_usage "not root" "needs root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$IPSECPERF" run clear

# tools missing: a PATH with ip and ethtool but no iperf3, then no ethtool
mkdir -p "$TMP/bin1" "$TMP/bin2"
ln -s "$(command -v ip)" "$TMP/bin1/ip"; ln -s "$(command -v ethtool)" "$TMP/bin1/ethtool"
ln -s "$(command -v ip)" "$TMP/bin2/ip"; ln -s "$(command -v iperf3)" "$TMP/bin2/iperf3"
expect_usage "no iperf3" "iperf3 not found in PATH: install the iperf3 package" -- env PATH="$TMP/bin1" "$IPSECPERF" run clear
expect_usage "no ethtool" "ethtool not found in PATH: install the ethtool package" -- env PATH="$TMP/bin2" "$IPSECPERF" run clear

# an existing, non-empty results directory is refused before anything changes
mkdir -p "$TMP/full" && touch "$TMP/full/x"
expect_usage "results dir" "exists and is not empty" -- "$IPSECPERF" run -o "$TMP/full" clear

# hostile scenario files: a FIFO hangs a reader, /dev/zero fills its memory
mkfifo "$TMP/fifo.ini"
ln -s "$TOP/scenarios/clear.ini" "$TMP/link.ini"
cp "$TOP/scenarios/clear.ini" "$TMP/...ini"
head -c 70000 /dev/zero | tr '\0' ';' > "$TMP/big.ini"
printf '[scenario]\ndescription = \033[31mred\n' > "$TMP/escape.ini"
mkdir "$TMP/scenarios"
mkfifo "$TMP/scenarios/clear.ini"
ln -s /etc/passwd "$TMP/scenarios/no-gso.ini"
expect_usage "fifo" "fifo.ini: is not a regular file" -- "$IPSECPERF" run "$TMP/fifo.ini"
expect_usage "/dev/zero" "/dev/zero: is not a regular file" -- "$IPSECPERF" run /dev/zero
expect_usage "symlink" "link.ini: is a symbolic link" -- "$IPSECPERF" run "$TMP/link.ini"
expect_usage "dots" "not a usable scenario file name" -- "$IPSECPERF" run "$TMP/...ini"
expect_usage "big" "big.ini: is larger than 65536 bytes" -- "$IPSECPERF" run "$TMP/big.ini"
expect_usage "escape" "escape.ini:2: a control character" -- "$IPSECPERF" run "$TMP/escape.ini"
expect_usage "name .." "'..' is not a scenario name" -- "$IPSECPERF" run ..
expect_usage "name newline" "control character" -- "$IPSECPERF" run "$(printf 'clear\nx')"
expect_usage "fifo in folder" "clear.ini: is not a regular file" -- env IPSECPERF_SCENARIOS="$TMP/scenarios" "$IPSECPERF" run clear
expect_usage "symlink in folder" "no-gso.ini: is a symbolic link" -- env IPSECPERF_SCENARIOS="$TMP/scenarios" "$IPSECPERF" run no-gso
expect_usage "list fifo" "is not a regular file" -- env IPSECPERF_SCENARIOS="$TMP/scenarios" "$IPSECPERF" list
# ... none of them opened, not even to look (a device node may be a
# watchdog's, which an open arms): strace shows each open, O_PATH only
# (LeakSanitizer cannot work under ptrace: off there for a SANITIZE=1 build)
mknod "$TMP/scenarios/dev.ini" c 1 3 || fail "mknod"
for sc in clear dev /dev/zero; do
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=open,openat -o "$TMP/strace" env IPSECPERF_SCENARIOS="$TMP/scenarios" "$IPSECPERF" run "$sc" \
		> /dev/null 2>&1
	[ $? = 2 ] || fail "scenario $sc: not refused"
	grep -E '(/clear\.ini|/dev\.ini|/dev/zero)"' "$TMP/strace" | grep -v 'O_PATH' &&
		fail "scenario $sc: a FIFO or a device node was opened"
done

# a long option without its value names it, in every parser
expect_usage "run --duration" "run: --duration needs a value" -- "$IPSECPERF" run --duration
expect_usage "run -t" "run: -t needs a value" -- "$IPSECPERF" run clear -t
expect_usage "run --dry-run=1" "run: --dry-run takes no value" -- "$IPSECPERF" run --dry-run=1 clear
expect_usage "report --format" "report: --format needs a value" -- "$IPSECPERF" report --format
expect_usage "report -c" "report: -c needs a value" -- "$IPSECPERF" report -c
expect_usage "report --profile --top" "report --profile: --top needs a value" -- "$IPSECPERF" report --profile --top
expect_usage "compare --threshold" "compare: --threshold needs a value" -- "$IPSECPERF" compare --threshold
expect_usage "cleanup --dry-run=1" "cleanup: --dry-run takes no value" -- "$IPSECPERF" cleanup --dry-run=1
expect_usage "probe --json=1" "probe: --json takes no value" -- "$IPSECPERF" probe --json=1

# other bad values: one line each
expect_usage "prefix-len 33" "--prefix-len 33 is too long for IPv4" -- "$IPSECPERF" run --prefix-len 33 clear
expect_usage "ssh-option newline" "--ssh-option takes no control characters" -- "$IPSECPERF" run --testbed peer \
	--peer localhost --dev lo --peer-dev lo --ssh-option "$(printf 'ProxyCommand=x\nHost *')" clear
expect_usage "tag" "--tag takes letters" -- "$IPSECPERF" run --dry-run --tag a/b clear

# output folders: not a non-empty one, not through a symlink, and -o's parent must exist
mkdir "$TMP/empty" "$TMP/charts-full" && touch "$TMP/charts-full/x"
ln -s "$TMP/empty" "$TMP/out-link"
example=$(ls -d "$TOP"/results/examples/*/ | head -1)
expect_usage "-o symlink" "out-link: is a symbolic link" -- "$IPSECPERF" run -o "$TMP/out-link" clear
expect_usage "-o symlink/" "out-link/: is a symbolic link" -- "$IPSECPERF" run -o "$TMP/out-link/" clear
expect_usage "-o parent" "its parent folder $TMP/missing does not exist" -- "$IPSECPERF" run -o "$TMP/missing/out" clear
expect_usage "dry-run -o full" "exists and is not empty" -- "$IPSECPERF" run --dry-run -o "$TMP/full" clear
expect_usage "dry-run -o parent" "does not exist" -- "$IPSECPERF" run --dry-run -o "$TMP/missing/out" clear
expect_usage "report -c full" "charts-full: exists and is not empty" -- "$IPSECPERF" report -c "$TMP/charts-full" "$example"
expect_usage "report -c symlink" "out-link: is a symbolic link" -- "$IPSECPERF" report -c "$TMP/out-link" "$example"
[ -z "$(ls -A "$TMP/empty")" ] || fail "a refused output folder got files through its symlink"
[ ! -e "$TMP/missing" ] || fail "-o made a missing parent folder"

# kernel packages: a name that resolves to '.' or '..' never reaches the cache
mkdir -p "$TMP/cache/linux-image-keep_1_amd64" && touch "$TMP/cache/linux-image-keep_1_amd64/canary"
: > "$TMP/...deb"
: > "$TMP/..deb"
export IPSECPERF_CACHE="$TMP/cache"
expect_usage "fetch .." "a package name takes letters" -- "$IPSECPERF" kernel fetch debian:..
expect_usage "fetch ." "a package name takes letters" -- "$IPSECPERF" kernel fetch .
expect_usage "fetch slash" "a package name takes letters" -- "$IPSECPERF" kernel fetch debian:../x
expect_usage "show ...deb" "a .deb's name" -- "$IPSECPERF" kernel show "$TMP/...deb"
expect_usage "show ..deb" "a .deb's name" -- "$IPSECPERF" kernel show "$TMP/..deb"
expect_usage "run --kernel ...deb" "a .deb's name" -- "$IPSECPERF" run --testbed vm --kernel "$TMP/...deb" clear
# --clock: a value it does not take, and a virtual clock with an SMP guest (which does not boot under -icount)
expect_usage "run --clock wall" "--clock takes auto, real or virtual, not .wall." -- "$IPSECPERF" run --testbed vm --kernel "$TMP/nonexistent/bzImage" --clock wall clear
expect_usage "run --clock virtual --vcpus 2" "one vCPU.*--vcpus 2" -- "$IPSECPERF" run --testbed vm --kernel "$TMP/nonexistent/bzImage" --clock virtual --vcpus 2 clear
unset IPSECPERF_CACHE
[ -e "$TMP/cache/linux-image-keep_1_amd64/canary" ] || fail "a bad package name removed the kernel cache"

[ -z "$(ls -d "$TMP"/results 2>/dev/null)" ] || fail "bad input created a results directory"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after bad input"

# --dry-run changes nothing either, and prints commands a person could type
"$IPSECPERF" run --dry-run -r 1 no-gso > "$TMP/dry" 2>&1 || fail "dry-run failed"
grep -q '^ip netns add ipsecperf-' "$TMP/dry" || fail "dry-run: no netns command"
grep -q 'ethtool -K ipp-tx tso off gso off gro on' "$TMP/dry" || fail "dry-run: no ethtool command"
grep -q '^ip netns del ipsecperf-' "$TMP/dry" || fail "dry-run: no undo"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after --dry-run"
exit 0
