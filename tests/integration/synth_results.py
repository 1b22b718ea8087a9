#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a synthetic results directory (docs/results-format.md's contract) for the report
and compare tests: no root, no network, deterministic for a seed.

usage: synth_results.py DIR [--seed N] [--kernels a,b] [--scenarios x,y]
       [--repeat N] [--cv F] [--scale scenario=F ...] [--cpb-scale scenario=F ...]
       [--fail scenario:repeat ...] [--noisy scenario]
       provenance, as compare checks it:
       [--host H] [--cpu-model M] [--cpu-count N] [--testbed T] [--accel A]
       [--duration S] [--omit S] [--load scenario=stream ...]
       [--define scenario:key=value ...] [--profile HZ] [--tool-version V]
       [--iperf3-version V] [--old] (meta.json as older versions wrote it:
       no scenario texts, no accelerator, no warm-up)
       [--setup] each end's set-up in meta.json (both hosts on peer, the
       host of the guests on vm), each end's cycles per byte on peer
       [--skip scenario:reason] every run of scenario skipped
       [--hour H] the hour the runs start at (default 19)
"""
import argparse, json, os, random

BASE = {"clear": (9.2e9, 1.2), "no-tso": (8.9e9, 1.4), "no-gso": (3.5e9, 3.1),
        "esp-null": (1.9e9, 6.0), "esp-gcm": (1.1e9, 11.0)}
# the request/response loads: transactions/s and cycles per transaction; --scale scales the
# rate (and the latency by its inverse); the packet-rate load: datagrams/s, cycles per datagram
RR = {"tcp-rr": (30000.0, 60000.0), "tcp-rr-esp-null": (22000.0, 80000.0),
      "udp-rr": (33000.0, 55000.0), "tcp-crr": (9000.0, 200000.0)}
RATE = {"udp-rate": (400000.0, 4000.0), "udp-rate-esp-null": (250000.0, 6500.0)}
CDF_Q = [0, 0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 0.99, 0.995,
         0.999, 0.9995, 0.9999, 0.99999, 1]

def rr_fields(s, tps, cpt, duration):
    """A request/response record's own keys, the latency from the rate (one transaction in flight)."""
    mean = 1e9 / tps
    lat = {"p50": mean * 0.95, "p90": mean * 1.2, "p99": mean * 2.0, "p99.9": mean * 4.0,
           "max": mean * 20, "min": mean * 0.6, "mean": mean}
    cdf = [[q, mean * (0.6 if q == 0 else 20 if q == 1 else 0.95 + 3 * q ** 40)] for q in CDF_Q]
    n = int(tps * duration)
    return {"unit": "transaction", "transactions": n, "transactions_per_s": tps,
            "request_bytes": 1, "response_bytes": 1, "latency_ns": lat, "latency_cdf": cdf,
            "latency_rel_error": 1 / 256, "lost_transactions": 0, "cycles_per_transaction": cpt,
            "bytes": 2 * n, "throughput_bps": 16 * tps}

def rate_fields(pps, cpd, duration):
    n = int(pps * duration)
    return {"unit": "datagram", "datagrams": n, "datagrams_sent": n, "datagrams_per_s": pps,
            "datagram_bytes": 64, "offered_pps": pps, "loss": 0.0, "cycles_per_datagram": cpd,
            "bytes": 64 * n, "throughput_bps": 512 * pps,
            "rate_search": {"loss_threshold": 0.001, "nsteps": 6, "found_pps": pps, "steps": []}}

def scenario_text(name, extra):
    """A scenario file as run writes it into meta.json, with a comment to ignore."""
    lines = ["; synthetic scenario %s" % name, "[scenario]",
             "description = synthetic %s" % name, "", "[offload]", "tso = on"]
    for key, value in extra:
        lines.append("%s = %s" % (key, value))
    return "\n".join(lines) + "\n"

def one_setup(kernel, dev):
    """An end's set-up as run records it (docs/results-format.md)."""
    return {"kernel": kernel, "cmdline": "BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet" % kernel,
            "cpu": {"model": "Synthetic CPU", "cpus": 8, "sockets": 1, "cores": 4, "threads_per_core": 2,
                    "smt": "on", "numa_nodes": 1, "governor": "performance", "scaling_driver": "acpi-cpufreq",
                    "boost": False, "idle_driver": "intel_idle", "siblings": {"0": "0,4"}},
            "mitigations": {"spectre_v2": "Mitigation: Retpolines", "meltdown": "Not affected",
                            "mds": "Vulnerable: Clear CPU buffers attempted"},
            "config": {"CONFIG_INET_ESP": "m", "CONFIG_XFRM_OFFLOAD": "y", "CONFIG_TCP_AO": "n"},
            "tcp_congestion_control": "cubic", "irqbalance": False, "busy_pct": 1.5, "loadavg": 0.1,
            "crypto": {"rfc4106(gcm(aes))": [{"name": "seqiv(rfc4106(gcm(aes)))", "driver": "seqiv(rfc4106-gcm-aesni)",
                                              "module": "seqiv", "priority": 400}]},
            "nics": [{"dev": dev, "driver": "ixgbe", "version": "6.1.0", "firmware": "0x800003e7",
                      "speed_mbps": 10000, "mtu": 1500, "rings": {"rx": 512, "tx": 512, "rx_max": 4096, "tx_max": 4096},
                      "offloads": {"tx-tcp-segmentation": True, "rx-gro": True, "rx-lro": False},
                      "irqs": [{"irq": 42, "name": "%s-TxRx-0" % dev, "affinity": "2", "effective": "2"}]}] if dev else []}

def add_setup(meta, testbed, tool):
    """Each end's set-up: both hosts on peer, the guests' host on vm, a hostile string that must not show."""
    meta["tool_git"] = "v0.9.0-3-gabc1234"
    meta["tool_version"] = "%s (v0.9.0-3-gabc1234)" % tool
    for k in meta["kernels"]:
        k["config_sha256"] = "0123456789abcdef" * 4
        k["setup"] = one_setup(k["release"], "eth1" if testbed == "peer" else None)
        if testbed == "peer":
            k["setup_receiver"] = one_setup(k["release"], "eth2")
            k["setup_receiver"]["cmdline"] = "evil\x1b[2J"
    if testbed == "vm":
        meta["host_kernel"] = {"release": "6.12.0-host", "setup": one_setup("6.12.0-host", None)}
    if testbed == "peer":
        meta["peer"] = {"ssh_dest": "root@rx-mgmt"}
    meta["conditions"] = {"warnings": ["the CPU frequency governor is powersave: synthetic"], "tuned": []}

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
    ap.add_argument("--host", default="synth")
    ap.add_argument("--cpu-model", default="Synthetic CPU")
    ap.add_argument("--cpu-count", type=int, default=2)
    ap.add_argument("--testbed")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--omit", type=float, default=1)
    ap.add_argument("--load", action="append", default=[])
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--tool-version", default="synthetic")
    ap.add_argument("--iperf3-version", default="iperf 3.12")
    ap.add_argument("--probe-set", default="default")
    ap.add_argument("--old", action="store_true")
    ap.add_argument("--setup", action="store_true")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--hour", type=int, default=19)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    scale = {k: float(v) for k, v in (s.split("=") for s in a.scale)}
    cscale = {k: float(v) for k, v in (s.split("=") for s in a.cpb_scale)}
    fails = {tuple(f.split(":")) for f in a.fail}
    loads = dict(s.split("=") for s in a.load)
    defines = {}
    for d in a.define:
        scen, kv = d.split(":", 1)
        defines.setdefault(scen, []).append(tuple(kv.split("=", 1)))
    kernels = a.kernels.split(",")
    scen = a.scenarios.split(",")
    testbed = a.testbed or ("vm" if len(kernels) > 1 else "netns")
    vm = testbed in ("vm", "vm-pair")
    os.makedirs(os.path.join(a.dir, "raw"), exist_ok=True)
    meta = {"version": 1, "tool_version": a.tool_version,
            "command": ["ipsecperf", "run", "--repeat", str(a.repeat)] + scen,
            "host": a.host, "cpu_model": a.cpu_model, "cpu_count": a.cpu_count,
            "testbed": testbed,
            "kernels": [{"release": k} for k in kernels], "iperf3_version": a.iperf3_version,
            "params": {"duration_s": a.duration, "omit_s": a.omit, "repeat": a.repeat,
                       "probe_set": a.probe_set}}
    if not a.old:
        meta["scenarios"] = [{"name": s, "file": "/synth/%s.ini" % s,
                              "text": scenario_text(s, defines.get(s, []))} for s in scen]
        if vm:
            for k in meta["kernels"]:
                k["vm"] = {"accel": a.accel, "spec": "synthetic"}
            meta["vm"] = [{"release": k, "accel": a.accel} for k in kernels]
    else:
        del meta["params"]["omit_s"]
        del meta["params"]["probe_set"]
        if vm:  # the guests' list, as every vm testbed has written it, before it held the accelerator
            meta["vm"] = [{"release": k} for k in kernels]
    if a.setup:
        add_setup(meta, testbed, a.tool_version)
    skips = dict(x.split(":", 1) for x in a.skip)
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    seq = 0
    with open(os.path.join(a.dir, "runs.jsonl"), "w") as f:
        for k in kernels:
            for s in scen:
                for r in range(1, a.repeat + 1):
                    # kernel after kernel, as the VM testbed runs them
                    rec = {"version": 1, "kernel": k, "scenario": s, "repeat": r,
                           "start": "2026-11-29T%02d:%02d:%02dZ" % (a.hour, seq // 4, seq % 4 * 15),
                           "duration_s": a.duration}
                    seq += 1
                    if vm and not a.old:
                        rec["vm"] = {"accel": a.accel}
                    if s in skips:
                        rec.update(status="skipped", reason=skips[s])
                    elif (s, str(r)) in fails:
                        rec.update(status="failed", reason="iperf3 exited with status 1")
                    else:
                        cv = 0.10 if s in a.noisy else a.cv
                        if s in RR or s in RATE:
                            t, c = RR.get(s) or RATE[s]
                            t *= scale.get(s, 1) * rnd.gauss(1, cv)
                            c *= cscale.get(s, 1) * rnd.gauss(1, cv)
                            rec.update(status="ok", load=loads.get(s, "udp-rate" if s in RATE else s[:s.find("-", 4)] if s.count("-") > 1 else s),
                                       cycles_method="estimated", cycles_per_byte=c / 2,
                                       counters={"xmit_skbs": {"count": 500, "per_packet": 1.0,
                                                               "per_transaction" if s in RR else "per_datagram": 2.0 if s in RR else 1.0,
                                                               "symbol": "tracepoint"}})
                            rec.update(rr_fields(s, t, c, a.duration) if s in RR else rate_fields(t, c, a.duration))
                            f.write(json.dumps(rec) + "\n")
                            continue
                        t, c = BASE[s]
                        tp = t * scale.get(s, 1) * rnd.gauss(1, cv)
                        cpb = c * cscale.get(s, 1) * rnd.gauss(1, cv)
                        esp = s.startswith("esp")
                        rec.update(status="ok", load=loads.get(s, "iperf3"), throughput_bps=tp,
                                   bytes=tp * 10 / 8,
                                   cycles_method="estimated", cycles_per_byte=cpb,
                                   counters={
                                       "esp_output": {"count": 1000 if esp else None,
                                                      "per_packet": 1.0 if esp else None,
                                                      "symbol": "kprobe" if esp else "unavailable: no ESP in this scenario"},
                                       "xmit_skbs": {"count": 500, "per_packet": rnd.gauss(0.5, 0.005), "symbol": "tracepoint"}})
                        if a.setup and testbed == "peer":
                            rec.update(cycles_per_byte_sender=cpb * 0.4, cycles_per_byte_receiver=cpb * 0.6)
                        if a.profile:
                            rec["profile"] = {"status": "ok", "hz": a.profile, "samples": 100}
                    f.write(json.dumps(rec) + "\n")

main()
