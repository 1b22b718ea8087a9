#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the tests' kernels from source (kernel_lib.sh) before the tests
# run: the first build takes 30-40 minutes on 2 CPUs, and each patched
# variant a few more, longer than one test's time bound would allow on a
# fresh machine; later runs find them built and only check (half a
# minute each).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IPSECPERF=${IPSECPERF:-$TOP/build/ipsecperf}
. "$TOP/tests/integration/kernel_lib.sh"
P="$TOP/tests/integration/kernel-patches"
built() { # what start out
	echo "  KERNEL   $3 ($(cat "$3/include/config/kernel.release"), $(($(date +%s) - $2)) s)"
}
start=$(date +%s)
out=$(ktree_base) || { echo "kernel_tree.sh: building the tests' kernel failed" >&2; exit 1; }
built base "$start" "$out"
# the variants the tests boot (test_kernel_patched, test_vm_esp_builtin_offload)
for v in "esp-slow $P/esp4-busywait.patch" "reverted $P/none.patch" "esp-panic $P/esp4-panic.patch" \
	"espoffload-y /dev/null -e INET_ESP_OFFLOAD"; do
	start=$(date +%s)
	# shellcheck disable=SC2086
	out=$(ktree_variant $v) || { echo "kernel_tree.sh: building the variant ${v%% *} failed" >&2; exit 1; }
	built "${v%% *}" "$start" "$out"
done
