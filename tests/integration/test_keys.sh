#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keys out of crash dumps (collector/lib/secret.c). A run is not dumpable
# whenever it makes a key: a stand-in getrandom() (LD_PRELOAD) asks
# PR_GET_DUMPABLE at that moment, in a TCP-MD5 run on two namespaces,
# which also shows that the namespaces and the load work under it. The
# peer agent, whose every request may carry a key, keeps its request line
# in a 64 KiB area that core dumps leave out ("dd" in smaps) and is not
# dumpable while it runs: /proc/PID/mem, which a process of the same user
# and capabilities can open on a dumpable one, is closed to it.
. "$(dirname "$0")/lib.sh"

command -v cc > /dev/null || skip_ours "no C compiler for the stand-in getrandom()"
snapshot > "$TMP/before"

# --- the run -------------------------------------------------------------
cat > "$TMP/shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

/* every getrandom() call: its length and whether the process was dumpable */
ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	ssize_t (*real)(void *, size_t, unsigned int) = (ssize_t (*)(void *, size_t, unsigned int))dlsym(RTLD_NEXT, "getrandom");
	const char *log = getenv("KEYS_TEST_LOG");
	char line[64];
	int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0600) : -1;

	if (fd >= 0) {
		int n = snprintf(line, sizeof(line), "%zu %d\n", len, prctl(PR_GET_DUMPABLE));

		if (write(fd, line, n) != n)
			abort();
		close(fd);
	}
	return real(buf, len, flags);
}
EOF
cc -shared -fPIC -o "$TMP/shim.so" "$TMP/shim.c" -ldl || fail "cannot build the stand-in getrandom()"

LD_PRELOAD="$TMP/shim.so" KEYS_TEST_LOG="$TMP/getrandom.log" ASAN_OPTIONS="verify_asan_link_order=0:${ASAN_OPTIONS:-}" \
	timeout --kill-after=10 120 "$IPSECPERF" run --quiet --no-probes -r 1 -t 1 -O 0 -o "$TMP/res" tcp-md5 \
	> "$TMP/run.out" 2> "$TMP/run.err" || { cat "$TMP/run.err" >&2; fail "the tcp-md5 run failed"; }
assert_records "$TMP/res/runs.jsonl" '[r["status"] for r in rs] == ["ok"]' "tcp-md5 not one ok record"
# the stream's key is 32 bytes; SPIs and hash seeds are shorter
awk '$1 >= 16 { keys++ } END { exit !(keys > 0) }' "$TMP/getrandom.log" ||
	fail "no getrandom() of a key's size during the run: $(tr '\n' ' ' < "$TMP/getrandom.log")"
awk '$1 >= 16 && $2 != 0 { exit 1 }' "$TMP/getrandom.log" ||
	fail "a key was made while the run was dumpable: $(tr '\n' ' ' < "$TMP/getrandom.log")"

# --- the peer agent ------------------------------------------------------
nocap=(setpriv --inh-caps=-sys_ptrace --bounding-set=-sys_ptrace)
mem_opens() { "${nocap[@]}" dd if="/proc/$1/mem" of=/dev/null bs=1 count=0 2> /dev/null; }

"${nocap[@]}" sleep 60 &
control=$!
mkfifo "$TMP/agent.in"
"${nocap[@]}" "$IPSECPERF" peer-agent < "$TMP/agent.in" > "$TMP/agent.out" 2> "$TMP/agent.err" &
agent=$!
exec 3> "$TMP/agent.in"
trap 'exec 3>&-; kill $control 2> /dev/null; rm -rf "$TMP"' EXIT
echo '{"op":"ping"}' >&3
for _ in $(seq 50); do [ -s "$TMP/agent.out" ] && break; sleep 0.1; done
json_check --doc "$TMP/agent.out" 'd["ok"] == True' || fail "the agent did not answer a ping: $(cat "$TMP/agent.out" "$TMP/agent.err")"

python3 - "/proc/$agent/smaps" <<'EOF' || fail "the agent's request line is not in a dontdump area"
import sys
size, found = None, False
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "Size:":
        size = int(f[1])
    elif f[0] == "VmFlags:" and size == 64 and "dd" in f[1:]:
        found = True
sys.exit(0 if found else 1)
EOF
mem_opens "$control" || skip "this kernel does not open /proc/PID/mem of a dumpable process to its owner"
! mem_opens "$agent" || fail "the agent is dumpable: /proc/$agent/mem opens without CAP_SYS_PTRACE"

exec 3>&-
wait "$agent" || fail "the agent exited $? at the end of its input"
kill "$control" 2> /dev/null
wait "$control" 2> /dev/null

snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after the key tests"
exit 0
