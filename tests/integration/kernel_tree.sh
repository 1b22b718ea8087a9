#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the tests' kernel from source (kernel_lib.sh) before the tests
# run: the first build takes 30-40 minutes on 2 CPUs, longer than one
# test's time bound; later runs find it built and only check.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IPSECPERF=${IPSECPERF:-$TOP/build/ipsecperf}
. "$TOP/tests/integration/kernel_lib.sh"
start=$(date +%s)
out=$(ktree_base) || { echo "kernel_tree.sh: building the tests' kernel failed" >&2; exit 1; }
echo "  KERNEL   $out ($(cat "$out/include/config/kernel.release"), $(($(date +%s) - start)) s)"
