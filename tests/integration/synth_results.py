#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a synthetic results directory (DESIGN.md's contract) for the report
and compare tests: no root, no network, deterministic for a seed.

usage: synth_results.py DIR [--seed N] [--kernels a,b] [--scenarios x,y]
       [--repeat N] [--cv F] [--scale scenario=F ...] [--cpb-scale scenario=F ...]
       [--fail scenario:repeat ...] [--noisy scenario]
"""
import argparse, json, os, random

BASE = {"clear": (9.2e9, 1.2), "no-tso": (8.9e9, 1.4), "no-gso": (3.5e9, 3.1),
        "esp-null": (1.9e9, 6.0), "esp-gcm": (1.1e9, 11.0)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels", default="6.1.0-28-cloud-amd64")
    ap.add_argument("--scenarios", default="clear,no-gso,esp-null")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cv", type=float, default=0.01)
    ap.add_argument("--scale", action="append", default=[])
    ap.add_argument("--cpb-scale", action="append", default=[])
    ap.add_argument("--fail", action="append", default=[])
    ap.add_argument("--noisy", action="append", default=[])
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    scale = {k: float(v) for k, v in (s.split("=") for s in a.scale)}
    cscale = {k: float(v) for k, v in (s.split("=") for s in a.cpb_scale)}
    fails = {tuple(f.split(":")) for f in a.fail}
    kernels = a.kernels.split(",")
    scen = a.scenarios.split(",")
    os.makedirs(os.path.join(a.dir, "raw"), exist_ok=True)
    meta = {"version": 1, "tool_version": "synthetic",
            "command": ["ipsecperf", "run", "--repeat", str(a.repeat)] + scen,
            "host": "synth", "cpu_model": "Synthetic CPU", "cpu_count": 2,
            "testbed": "vm" if len(kernels) > 1 else "netns",
            "kernels": [{"release": k} for k in kernels], "iperf3_version": "iperf 3.12",
            "params": {"duration_s": 10, "omit_s": 1, "repeat": a.repeat}}
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    seq = 0
    with open(os.path.join(a.dir, "runs.jsonl"), "w") as f:
        for k in kernels:
            for s in scen:
                for r in range(1, a.repeat + 1):
                    # kernel after kernel, as the VM testbed runs them
                    rec = {"version": 1, "kernel": k, "scenario": s, "repeat": r,
                           "start": "2026-11-29T19:%02d:%02dZ" % (seq // 4, seq % 4 * 15),
                           "duration_s": 10.0}
                    seq += 1
                    if (s, str(r)) in fails:
                        rec.update(status="failed", reason="iperf3 exited with status 1")
                    else:
                        cv = 0.10 if s in a.noisy else a.cv
                        t, c = BASE[s]
                        tp = t * scale.get(s, 1) * rnd.gauss(1, cv)
                        cpb = c * cscale.get(s, 1) * rnd.gauss(1, cv)
                        esp = s.startswith("esp")
                        rec.update(status="ok", throughput_bps=tp, bytes=tp * 10 / 8,
                                   cycles_method="estimated", cycles_per_byte=cpb,
                                   counters={
                                       "esp_output": {"count": 1000 if esp else None,
                                                      "per_packet": 1.0 if esp else None,
                                                      "symbol": "kprobe" if esp else "unavailable: no ESP in this scenario"},
                                       "xmit_skbs": {"count": 500, "per_packet": rnd.gauss(0.5, 0.005), "symbol": "tracepoint"}})
                    f.write(json.dumps(rec) + "\n")

main()
