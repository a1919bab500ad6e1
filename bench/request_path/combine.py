#!/usr/bin/python3
"""Combine several measure.py runs into one results file.

    /usr/bin/python3 bench/request_path/combine.py [--max-other-share 0.05] run*.json \
        > bench/request_path/results-$(hostname)-$(date -u +%F).json

Every numeric figure becomes {"median": m, "min": lo, "max": hi, "runs": [...]}
(the median of the runs' medians, and their spread), next to the machine
(lscpu model name, cores), the package versions and the date. Runs during which
other processes used more than --max-other-share of the CPUs are left out of
the figures and listed under "excluded_runs", since a shared machine's noise
is not the component's cost.
"""

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys


def lscpu_field(name: str) -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return ""


def combine(values):
    if all(isinstance(v, dict) for v in values):
        return {k: combine([v[k] for v in values]) for k in values[0]}
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}
    return values[0]


def main() -> None:
    args = sys.argv[1:]
    max_other_share = None
    if args[:1] == ["--max-other-share"]:
        max_other_share = float(args[1])
        args = args[2:]
    runs, excluded = [], []
    for path in args:
        run = json.load(open(path))
        share = run.get("other_processes_cpu_share")
        if max_other_share is not None and (share is None or share > max_other_share):
            excluded.append({"file": os.path.basename(path), "other_processes_cpu_share": share})
        else:
            runs.append(run)
    if not runs:
        sys.exit("usage: combine.py [--max-other-share SHARE] RUN.json [RUN.json ...] (no run kept)")
    versions = runs[0].pop("versions")
    for r in runs[1:]:
        r.pop("versions")
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "machine": {
            "hostname": platform.node(),
            "cpu_model": lscpu_field("Model name"),
            "cpus": os.cpu_count(),
            "kernel": platform.release(),
        },
        "versions": versions,
        "runs": len(runs),
        "max_other_processes_cpu_share": max_other_share,
        "excluded_runs": excluded,
        "figures_us": combine(runs),
    }
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
