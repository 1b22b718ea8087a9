#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every key of meta.json and runs.jsonl in the results directories given
must be on docs/results-format.md, as a key path in backquotes there.

usage: doc_keys.py docs/results-format.md DIR...

A path is written as the page writes it: `cpu_busy_s.sender`, `sa[].spi`,
`counters.<name>.per_sa.<spi>`, `profile.commands.<command>`. Prints the
keys missing from the page, with a directory that has each, and exits 1
when there is one.
"""
import json
import os
import re
import sys

# objects whose keys are names, not fixed keys
MAPS = {
    "counters": "<name>", "counters_receiver": "<name>", "per_sa": "<spi>", "per_sa_load": "<spi>",
    "commands": "<command>", "programs": "<program>", "siblings": "<cpu>", "mitigations": "<name>",
    "config": "<option>", "offloads": "<feature>", "crypto": "<algorithm>",
    # by the whole path where the last key alone is also a fixed object elsewhere
    "kernel_drops.sender": "<counter>", "kernel_drops.receiver": "<counter>",
    "kernel_drops_load.sender": "<counter>", "kernel_drops_load.receiver": "<counter>",
    "xfrm_stat.sender": "<counter>", "xfrm_stat.receiver": "<counter>",
}
# objects with the keys of another, documented once under its name
ALIASES = {"kernels[].setup_receiver.": "kernels[].setup.", "host_kernel.setup.": "kernels[].setup.",
           "sa_load[].": "sa[].", "counters_receiver.": "counters.", "probe_missed_receiver.": "probe_missed.",
           "probe_cost_receiver.": "probe_cost."}


def paths(value, prefix, out):
    if isinstance(value, dict):
        last = prefix.rsplit(".", 1)[-1]
        for key, sub in value.items():
            name = MAPS[prefix] if prefix in MAPS else MAPS[last] if last in MAPS else key
            paths(sub, prefix + "." + name if prefix else name, out)
    elif isinstance(value, list):
        for sub in value:
            paths(sub, prefix + "[]", out)
    elif prefix:
        out.add(prefix)


def main():
    page = open(sys.argv[1]).read()
    documented = set(re.findall(r"`([^`]+)`", page))
    missing = {}
    for d in sys.argv[2:]:
        found = set()
        with open(os.path.join(d, "meta.json")) as f:
            paths(json.load(f), "", found)
        found = {"meta.json: " + p for p in found}
        rec = set()
        with open(os.path.join(d, "runs.jsonl")) as f:
            for line in f:
                paths(json.loads(line), "", rec)
        found |= {"runs.jsonl: " + p for p in rec}
        for p in found:
            key = p.split(": ", 1)[1]
            for a, b in ALIASES.items():
                if key.startswith(a):
                    key = b + key[len(a):]
            # an array of scalars is its key: command[] is `command[]`
            if key not in documented and key.rstrip("[]") + "[]" not in documented:
                missing.setdefault(p, d)
    for p in sorted(missing):
        print("%s: not on %s (it is in %s)" % (p, sys.argv[1], missing[p]))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
