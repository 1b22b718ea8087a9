#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A results directory whose one profiled run holds folded stacks of a
hostile shape, for timing `ipsecperf report --profile` (and -f svg)
against the input's size (docs/measurements.md, "report --profile on
hostile folded stacks"). No root needed.

usage: hostile_profile.py DIR SHAPE N
  deep:     one stack of N distinct frames
  wide:     N stacks, N distinct leaves under one parent (siblings)
  commands: N stacks, each its own command
  mixed:    N stacks of 1-64 frames drawn from 4N names (a large honest profile)
"""
import json, os, random, sys

def stacks(shape, n):
    if shape == "deep":
        yield "iperf3;" + ";".join("f%d_[k]" % i for i in range(n)), 1
    elif shape == "wide":
        for i in range(n):
            yield "iperf3;entry_[k];leaf%d_[k]" % i, 1
    elif shape == "commands":
        for i in range(n):
            yield "cmd%d;work_[k]" % i, 1
    elif shape == "mixed":
        rnd = random.Random(1)
        for i in range(n):
            depth = rnd.randint(1, 64)
            yield "iperf3;" + ";".join("fn%d_[k]" % rnd.randrange(4 * n) for _ in range(depth)), rnd.randint(1, 9)
    else:
        sys.exit("unknown shape " + shape)

def main():
    d, shape, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(os.path.join(d, "raw"))
    meta = {"version": 1, "tool_version": "bench", "command": ["ipsecperf", "run", "--profile", "clear"],
            "host": "bench", "cpu_model": "bench", "cpu_count": 2, "testbed": "netns",
            "kernels": [{"release": "6.1.0-bench"}], "iperf3_version": "iperf 3.12",
            "params": {"duration_s": 10, "omit_s": 1, "repeat": 1, "probe_set": "default"}}
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"))
    rel = "raw/clear-r1-profile.folded"
    with open(os.path.join(d, rel), "w") as f:
        for s, c in stacks(shape, n):
            f.write("%s %d\n" % (s, c))
    rec = {"version": 1, "kernel": "6.1.0-bench", "scenario": "clear", "repeat": 1, "status": "ok",
           "start": "2026-12-06T00:00:00Z", "duration_s": 10, "throughput_bps": 9e9, "bytes": 1.125e10,
           "cycles_method": "estimated", "cycles_per_byte": 1.5,
           "profile": {"status": "ok", "folded": rel, "hz": 99}}
    open(os.path.join(d, "runs.jsonl"), "w").write(json.dumps(rec) + "\n")

main()
