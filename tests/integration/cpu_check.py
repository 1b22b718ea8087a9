# SPDX-License-Identifier: GPL-2.0
"""Busy CPU time and cycles per byte against the kernel's own counters,
read by a second program over the same window (tests/integration).

    cpu_check.py sample OUT PID   read /proc/stat every 5 ms, and the CPUs
                                  the iperf3 processes PID starts may run
                                  on, until PID exits; write them to OUT
    cpu_check.py check OUT DIR    check every ok record of DIR/runs.jsonl
                                  against OUT; one line a record, exit 1
                                  on the first that does not hold

What a record must agree with, and why each bound is what it is:
- busy seconds (cpu_busy_s.sender, .receiver on the CPUs the record
  names, .total on all): the kernel's per-CPU busy counters only grow, so
  the program's difference between its reads at window_start and
  window_end lies between this sampler's differences over the samples
  just outside the window (the upper bound: exact) and just inside it,
  20 ms in from each edge (the lower bound: the program stamps the edges
  beside its reads, which take about 0.1 ms; 20 ms allows for it being
  descheduled between the two on a loaded host). The bracket's width is
  printed: about 2 x (5 ms + 20 ms) of busy time per CPU;
- the same CPUs: the iperf3 client may run on cpus.sender only and the
  server on cpus.receiver only (their Cpus_allowed_list, from the kernel);
- the window: window_end - window_start is cpu_window_s within 5 ms (one
  clock against another over a few seconds); it opens at least --omit
  (meta.json's params.omit_s) after the iperf3 client started (the
  kernel's start time of the process) and at most 0.5 s later (the
  program looks every 100 ms; the rest allows for it being descheduled),
  and it closes after the client was last seen alive and at most 0.5 s
  after it was first seen gone. How far cpu_window_s is from iperf3's own
  duration_s is printed, not checked: iperf3's measured seconds start
  after its connection set-up, which the program cannot see;
- cycles (cycles_method "estimated": busy time x TSC frequency): within
  the busy bracket of all CPUs times the TSC frequency perf counts
  (msr/tsc against cpu-clock), 1% either way (the program calibrates over
  50 ms; perf's count is exact to 1e-5); meta.json's tsc_hz within that
  1% of perf's;
- cycles_per_byte: cycles / bytes, and bytes iperf3's own
  end.sum_received.bytes in raw/ (read here, not by the program).
On the peer testbed cpu_busy_s.sender, cycles_sender and
cycles_per_byte_sender are the sending host's, this one's: its busy
seconds over all CPUs are checked, and the window against the iperf3
client's life; the receiver's figures are the peer agent's, over a window
of its own that no record stamps, and are not.
"""
import datetime
import json
import os
import signal
import subprocess
import sys
import time

USER_HZ = os.sysconf("SC_CLK_TCK")
EDGE_S = 0.020      # the lower bound's allowance at each edge (above)
WINDOW_S = 0.005    # window_end - window_start against cpu_window_s
CLOCKS_S = 0.005    # CLOCK_REALTIME against CLOCK_BOOTTIME over a run
LATE_S = 0.5        # the window's edges after the client's start + omit, after its exit
TSC_REL = 0.01      # the program's TSC frequency against perf's


def busy_ticks(text):
    """Busy ticks of each CPU in /proc/stat's text: all but idle and iowait
    of user..steal (guest time is inside user already)."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if not f or not f[0].startswith("cpu") or f[0] == "cpu":
            continue
        v = [int(x) for x in f[1:9]]
        out[int(f[0][3:])] = sum(v) - v[3] - v[4]
    return out


def stat_of(pid, comm=None):
    """The fields of /proc/PID/stat after the command's name, or None (also
    when the name is not comm)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read()
    except OSError:
        return None
    if comm and st[st.index("(") + 1:st.rindex(")")] != comm:
        return None
    return st[st.rindex(")") + 2:].split()


def children(pid, known):
    """The iperf3 processes whose parent is pid, not in known:
    {child: {args, allowed CPUs, start (CLOCK_REALTIME)}}."""
    out = {}
    # the kernel's start times count from boot: CLOCK_BOOTTIME, mapped to CLOCK_REALTIME
    boot_to_rt = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in known:
            continue
        f = stat_of(d, "iperf3")
        if f is None or f[1] != str(pid):
            continue
        try:
            with open(f"/proc/{d}/cmdline") as c:
                args = c.read().split("\0")
            with open(f"/proc/{d}/status") as c:
                allowed = [l.split()[1] for l in c if l.startswith("Cpus_allowed_list:")]
        except (OSError, IndexError):
            continue
        out[int(d)] = {"args": args, "allowed": allowed[0] if allowed else "",
                       "start": int(f[19]) / USER_HZ + boot_to_rt}
    return out


def sample(out, pid):
    samples, procs, stop = [], {}, []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    n = 0
    while not stop and os.path.exists(f"/proc/{pid}"):
        ta = time.time()
        with open("/proc/stat") as f:
            text = f.read()
        tb = time.time()
        samples.append((ta, tb, busy_ticks(text)))
        # each iperf3 process: when it was last seen alive, first seen gone (or a zombie)
        for c, p in procs.items():
            if "gone" not in p:
                f = stat_of(c)
                if f is None or f[0] in "ZX" or f[1] != str(pid):
                    p["gone"] = tb
                else:
                    p["alive"] = ta
        if n % 40 == 0:  # new ones every 0.2 s: they live for seconds
            procs.update(children(pid, procs))
        n += 1
        time.sleep(0.005)
    with open(out, "w") as f:
        json.dump({"user_hz": USER_HZ, "samples": samples, "procs": list(procs.values())}, f)


def window_check(r, smp, omit, start, end, sides=(("sender", "-c"), ("receiver", "-s"))):
    """The window against the iperf3 client's life; returns the client's and server's records."""
    if abs((end - start) - r["cpu_window_s"]) > WINDOW_S:
        raise Bad(f"window_start..window_end {end - start:.4f} s, cpu_window_s {r['cpu_window_s']:.4f} s")
    found = {}
    for side, flag in sides:
        ps = [p for p in smp["procs"] if flag in p["args"] and p["start"] <= start <= p.get("gone", 1e18)]
        if len(ps) != 1:
            raise Bad(f"{len(ps)} iperf3 {flag} processes alive at the window's start")
        found[side] = ps[0]
    if not found:
        return found
    c = found["sender"]
    if not c["start"] + omit - CLOCKS_S <= start <= c["start"] + omit + LATE_S:
        raise Bad(f"the window opened {start - c['start']:.3f} s after the iperf3 client started, "
                  f"not {omit} s to {omit + LATE_S} s")
    if "gone" not in c or not c["alive"] - CLOCKS_S <= end <= c["gone"] + LATE_S:
        raise Bad(f"the window closed at {end:.3f}, the client was last seen at {c.get('alive', 0):.3f} "
                  f"and gone at {c.get('gone', 0):.3f}")
    return found


def when(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def perf_tsc_hz():
    """The TSC's rate as perf counts it on CPU 0, or None (no msr PMU)."""
    r = subprocess.run(["perf", "stat", "-x,", "-e", "msr/tsc/,cpu-clock", "-C", "0", "--", "sleep", "0.2"],
                       capture_output=True, text=True)
    vals = {}
    for line in r.stderr.splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2] in ("msr/tsc/", "cpu-clock"):
            try:
                vals[f[2]] = float(f[0])
            except ValueError:
                return None
    if len(vals) != 2 or vals["cpu-clock"] <= 0:
        return None
    return vals["msr/tsc/"] / (vals["cpu-clock"] / 1000)


class Bad(Exception):
    pass


def bracket(samples, start, end):
    """{cpu: (lo, hi)} busy seconds between start and end, and the samples'
    gaps at the edges."""
    before = [s for s in samples if s[1] <= start]
    after = [s for s in samples if s[0] >= end]
    inner_a = [s for s in samples if s[0] >= start + EDGE_S]
    inner_b = [s for s in samples if s[1] <= end - EDGE_S]
    if not before or not after or not inner_a or not inner_b:
        raise Bad("the samples do not cover the window")
    i, j, n, m = before[-1], after[0], inner_a[0], inner_b[-1]
    out = {c: ((m[2][c] - n[2][c]) / USER_HZ, (j[2][c] - i[2][c]) / USER_HZ) for c in i[2]}
    return out, (start - i[1], j[0] - end)


def within(what, v, lo, hi):
    # (the record's figures have 6 decimals; sums of ticks / USER_HZ are not exact in binary)
    if not lo - 1e-6 <= v <= hi + 1e-6:
        raise Bad(f"{what} {v:.4f} not within [{lo:.4f}, {hi:.4f}], the kernel's counters over the window")


def iperf3_bytes(r, dirpath):
    """Bytes received as iperf3 said them in raw/ (read here, not by the program)."""
    with open(os.path.join(dirpath, "raw", f"{r['scenario']}-r{r['repeat']}-iperf3-client.json")) as f:
        got = json.load(f)["end"]["sum_received"]["bytes"]
    if r["bytes"] != got:
        raise Bad(f"bytes {r['bytes']}, iperf3's end.sum_received.bytes {got}")
    return got


def cycles_check(cycles, per_byte, nbytes, method, lo, hi, tsc):
    """cycles per byte is cycles / bytes; estimated cycles within the busy bracket x the TSC."""
    if abs(per_byte - cycles / nbytes) > 1e-6 * per_byte:
        raise Bad(f"cycles per byte {per_byte}, cycles / bytes {cycles / nbytes}")
    if method != "estimated":
        return f"; cycles ({method}) not checked"
    if tsc is None:
        return "; cycles not checked (perf counts no msr/tsc here)"
    within("cycles / 1e9", cycles / 1e9, lo * tsc * (1 - TSC_REL) / 1e9, hi * tsc * (1 + TSC_REL) / 1e9)
    return f"; cycles {cycles:.4g} in [{lo * tsc * (1 - TSC_REL):.4g}, {hi * tsc * (1 + TSC_REL):.4g}]"


def check_peer(r, dirpath, smp, tsc, omit):
    """The peer testbed: cpu_busy_s.sender is the whole sending host's (this one's); the
    receiver's is the peer agent's own window, not stamped, so not checked."""
    start, end = when(r["window_start"]), when(r["window_end"])
    if r["load"] == "iperf3":
        window_check(r, smp, omit, start, end, sides=(("sender", "-c"),))
        nbytes = iperf3_bytes(r, dirpath)
    else:  # the built-in stream: no iperf3 to place the window by
        window_check(r, smp, omit, start, end, sides=())
        nbytes = r["bytes"]
    br, gaps = bracket(smp["samples"], start, end)
    lo, hi = sum(b[0] for b in br.values()), sum(b[1] for b in br.values())
    within("cpu_busy_s.sender (the sending host)", r["cpu_busy_s"]["sender"], lo, hi)
    line = (f"{r['scenario']} r{r['repeat']} (peer): busy s of the sending host {r['cpu_busy_s']['sender']:.3f} "
            f"in [{lo:.3f}, {hi:.3f}] (samples {gaps[0] * 1000:.1f}/{gaps[1] * 1000:.1f} ms outside the edges)")
    return line + cycles_check(r["cycles_sender"], r["cycles_per_byte_sender"], nbytes, r["cycles_method_sender"],
                               lo, hi, tsc)


def check_record(r, dirpath, smp, tsc, omit):
    if r["testbed"] == "peer":
        return check_peer(r, dirpath, smp, tsc, omit)
    start, end = when(r["window_start"]), when(r["window_end"])
    procs = window_check(r, smp, omit, start, end)
    br, gaps = bracket(smp["samples"], start, end)
    busy, cpus = r["cpu_busy_s"], r["cpus"]
    # the same CPUs: where the kernel lets the iperf3 processes of the window run
    for side in ("sender", "receiver"):
        if procs[side]["allowed"] != str(cpus[side]):
            raise Bad(f"the iperf3 {side} may run on CPUs {procs[side]['allowed']}, "
                      f"the record says cpus.{side} {cpus[side]}")
    for side in ("sender", "receiver"):
        if cpus[side] not in br:
            raise Bad(f"cpus.{side} {cpus[side]}: no such CPU in /proc/stat")
        within(f"cpu_busy_s.{side} (CPU {cpus[side]})", busy[side], *br[cpus[side]])
    lo, hi = sum(b[0] for b in br.values()), sum(b[1] for b in br.values())
    within("cpu_busy_s.total", busy["total"], lo, hi)
    got = iperf3_bytes(r, dirpath)
    line = (f"{r['scenario']} r{r['repeat']}: busy s sender {busy['sender']:.3f} in [{br[cpus['sender']][0]:.3f}, "
            f"{br[cpus['sender']][1]:.3f}], receiver {busy['receiver']:.3f} in [{br[cpus['receiver']][0]:.3f}, "
            f"{br[cpus['receiver']][1]:.3f}], total {busy['total']:.3f} in [{lo:.3f}, {hi:.3f}] "
            f"(samples {gaps[0] * 1000:.1f}/{gaps[1] * 1000:.1f} ms outside the edges; window "
            f"{r['cpu_window_s'] - r['duration_s']:+.3f} s on iperf3's)")
    return line + cycles_check(r["cycles"], r["cycles_per_byte"], got, r["cycles_method"], lo, hi, tsc)


def check(out, dirpath):
    with open(out) as f:
        smp = json.load(f)
    if smp["user_hz"] != USER_HZ:
        raise Bad("sampled with another USER_HZ")
    smp["samples"] = [(a, b, {int(c): v for c, v in t.items()}) for a, b, t in smp["samples"]]
    tsc = perf_tsc_hz()
    with open(os.path.join(dirpath, "meta.json")) as f:
        meta = json.load(f)
    if tsc is not None:
        if abs(meta["tsc_hz"] - tsc) > TSC_REL * tsc:
            raise Bad(f"meta.json tsc_hz {meta['tsc_hz']:.6g}, perf counts the TSC at {tsc:.6g} Hz")
        print(f"  TSC: meta.json {meta['tsc_hz']:.6g} Hz, perf {tsc:.6g} Hz", file=sys.stderr)
    n = 0
    with open(os.path.join(dirpath, "runs.jsonl")) as f:
        for r in map(json.loads, f):
            if r.get("status") != "ok":
                continue
            try:
                print("  " + check_record(r, dirpath, smp, tsc, meta["params"]["omit_s"]), file=sys.stderr)
            except Bad as e:
                raise Bad(f"{r.get('scenario')} r{r.get('repeat')}: {e}") from None
            n += 1
    if not n:
        raise Bad("no record ok")


def main(argv):
    if len(argv) == 3 and argv[0] == "sample":
        sample(argv[1], int(argv[2]))
        return 0
    if len(argv) == 3 and argv[0] == "check":
        try:
            check(argv[1], argv[2])
        except (Bad, OSError, KeyError, TypeError, ValueError) as e:
            print(f"FAIL: CPU accounting: {type(e).__name__ + ': ' if not isinstance(e, Bad) else ''}{e}",
                  file=sys.stderr)
            return 1
        return 0
    print("usage: cpu_check.py sample OUT PID | check OUT DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
