#!/usr/bin/env python3
"""Turn servesim outputs into PNG plots (docs/metrics.md, "Plots").

    scripts/plot.py RUN_DIR [--out DIR]          # a `servesim run` output folder
    scripts/plot.py --sweep SWEEP [--out DIR]    # a sweep folder or its sweep.csv
    scripts/plot.py RUN_DIR --sweep SWEEP        # both

From a run folder:
  ttft_cdf.png      TTFT CDF per class (requests.csv, completed requests with a first token)
  itl_cdf.png      per-request mean ITL (TPOT) CDF per class (requests.csv; requests.csv has
                    one row per request, so each request's inter-token gaps appear as their mean)
  timeline.png      batch size, KV-cache occupancy and waiting queue over simulated time, one
                    line per replica (timeseries.csv; written when the scenario sets
                    outputs.timeseries: true, otherwise this plot is skipped with a note)
  attribution.png   mean TTFT and mean ITL per class as stacked bars of their parts (queue,
                    own prefill, others' work, stall, preemption, KV transfer, overhead, front end;
                    decode, prefill interference, ...), from summary.json
From a sweep:
  sweep_tradeoff.png  p99 TTFT and p99 ITL against output throughput, one point per sweep
                      point, the Pareto front ringed, saturated points hollow (their
                      latencies grow with the run's length; sweep.csv)

Needs matplotlib (Debian: python3-matplotlib). Prints each file it writes; exits 2 on bad
input (a missing folder or file, a CSV without the expected columns).
"""
import argparse
import csv
import json
import os
import sys


def fail(message):
    print(f"plot.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")


def need_columns(path, rows, columns):
    if not rows:
        return
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)}")


def number(cell):
    """A float, or None for an empty cell (a latency the request does not have)."""
    if cell is None or cell == "":
        return None
    try:
        return float(cell)
    except ValueError:
        return None


def log_if_wide(ax, axis, values):
    """Log scale where the positive values span more than 100x (50 ms .. 377 s stays legible)."""
    positive = [v for v in values if v is not None and v > 0]
    if len(positive) >= 2 and max(positive) / min(positive) > 100:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")


def legend_outside(ax, entries, columns=4):
    """The legend below the axes, never over the data; left out of the layout, so the axes
    keep their size and savefig(bbox_inches="tight") takes the legend in."""
    legend = ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14),
                       ncol=min(max(entries, 1), columns), frameon=False)
    legend.set_in_layout(False)


def save(fig, path):
    """The PNG, cropped to the figure's content, legends outside the axes included."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    fig.savefig(path, dpi=110, bbox_inches="tight", bbox_extra_artists=legends)


def cdf_plot(plt, by_class, xlabel, title, path):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in sorted(by_class):
        values = sorted(by_class[name])
        if not values:
            continue
        n = len(values)
        ax.step(values, [(i + 1) / n for i in range(n)], where="post", label=f"{name} (n={n})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of requests")
    ax.set_title(title)
    ax.set_ylim(0, 1.01)
    log_if_wide(ax, "x", [v for values in by_class.values() for v in values])
    ax.grid(True, alpha=0.3)
    legend_outside(ax, len(by_class))
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)
    print(f"wrote {path}")


def plot_run(plt, run_dir, out_dir):
    requests_path = os.path.join(run_dir, "requests.csv")
    if not os.path.exists(requests_path):
        fail(f"{requests_path}: not found (is {run_dir} a `servesim run` output folder with requests_csv on?)")
    rows = read_csv(requests_path)
    need_columns(requests_path, rows, ["class", "outcome", "ttft_ms", "tpot_ms"])
    ttft, tpot = {}, {}
    for r in rows:
        if r["outcome"] != "completed":
            continue
        t = number(r["ttft_ms"])
        if t is not None:
            ttft.setdefault(r["class"], []).append(t)
        p = number(r["tpot_ms"])
        if p is not None:
            tpot.setdefault(r["class"], []).append(p)
    cdf_plot(plt, ttft, "TTFT (ms)", "Time to first token, per class", os.path.join(out_dir, "ttft_cdf.png"))
    cdf_plot(plt, tpot, "TPOT: mean inter-token latency of a request (ms)", "Inter-token latency (per-request mean), per class",
             os.path.join(out_dir, "itl_cdf.png"))

    plot_attribution(plt, run_dir, out_dir)

    ts_path = os.path.join(run_dir, "timeseries.csv")
    if not os.path.exists(ts_path):
        print(f"note: {ts_path} not found (set outputs.timeseries: true); timeline.png skipped")
        return
    ts = read_csv(ts_path)
    need_columns(ts_path, ts, ["time_s", "pool", "replica", "batch_mean", "kv_occupancy_mean", "waiting_mean"])
    series = {}
    for r in ts:
        key = f"{r['pool']}/{r['replica']}"
        s = series.setdefault(key, {"t": [], "batch": [], "kv": [], "waiting": []})
        s["t"].append(float(r["time_s"]))
        s["batch"].append(float(r["batch_mean"]))
        s["kv"].append(100.0 * float(r["kv_occupancy_mean"]))
        s["waiting"].append(float(r["waiting_mean"]))
    # Each row covers [time_s, time_s + interval): repeat the last value at the end of its
    # interval so the step plot shows it.
    times = sorted({t for s in series.values() for t in s["t"]})
    interval = min((b - a for a, b in zip(times, times[1:])), default=1.0)
    for s in series.values():
        for field in ("batch", "kv", "waiting"):
            s[field].append(s[field][-1])
        s["t"].append(s["t"][-1] + interval)
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    panels = [("batch", "batch size (mean)"), ("kv", "KV cache used (%)"), ("waiting", "waiting queue (mean)")]
    for ax, (field, label) in zip(axes, panels):
        for key in sorted(series):
            ax.step(series[key]["t"], series[key][field], where="post", label=f"replica {key}")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].set_title("Per replica over simulated time (timeseries.csv)")
    axes[-1].set_xlabel("simulated time (s)")
    if len(series) <= 12:
        legend_outside(axes[-1], len(series))
    fig.tight_layout()
    path = os.path.join(out_dir, "timeline.png")
    save(fig, path)
    plt.close(fig)
    print(f"wrote {path}")


def plot_attribution(plt, run_dir, out_dir):
    """Stacked bars: what each class's mean TTFT and mean ITL are made of (docs/metrics.md)."""
    summary_path = os.path.join(run_dir, "summary.json")
    if not os.path.exists(summary_path):
        print(f"note: {summary_path} not found; attribution.png skipped")
        return
    try:
        with open(summary_path) as f:
            summary = json.load(f)
    except ValueError as e:
        fail(f"{summary_path}: not JSON ({e})")
    blocks = dict(summary.get("classes", {}))
    blocks["overall"] = summary
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    drawn = False
    for ax, key, title in [(axes[0], "ttft_attribution", "mean TTFT (ms) by part"),
                           (axes[1], "itl_attribution", "mean ITL (ms) by part")]:
        names = [n for n, b in blocks.items() if isinstance(b.get(key), dict)]
        if not names:
            ax.set_visible(False)
            continue
        parts = list(blocks[names[0]][key].keys())
        bottoms = [0.0] * len(names)
        for part in parts:
            values = [float(blocks[n][key].get(part) or 0) for n in names]
            ax.bar(names, values, bottom=bottoms, label=part.replace("_ms", "").replace("_", " "))
            bottoms = [b + v for b, v in zip(bottoms, values)]
        ax.set_title(title)
        ax.set_ylabel("ms")
        legend_outside(ax, len(parts))
        ax.grid(True, axis="y", alpha=0.3)
        drawn = True
    if not drawn:
        plt.close(fig)
        print(f"note: {summary_path} has no attribution; attribution.png skipped")
        return
    fig.tight_layout()
    path = os.path.join(out_dir, "attribution.png")
    save(fig, path)
    plt.close(fig)
    print(f"wrote {path}")


def plot_sweep(plt, sweep, out_dir):
    path = os.path.join(sweep, "sweep.csv") if os.path.isdir(sweep) else sweep
    if not os.path.exists(path):
        fail(f"{path}: not found (give a `servesim sweep` output folder or its sweep.csv)")
    rows = read_csv(path)
    need_columns(path, rows, ["point", "pareto", "output_throughput", "p99_ttft_ms", "p99_itl_ms"])
    # The axes are the columns between `point` and `pareto` (docs/sweeps.md).
    columns = list(rows[0].keys())
    axes_keys = columns[columns.index("point") + 1:columns.index("pareto")]
    series = {}
    for r in rows:
        x, ttft, itl = number(r["output_throughput"]), number(r["p99_ttft_ms"]), number(r["p99_itl_ms"])
        if x is None or ttft is None or itl is None:
            continue  # a point that failed to run
        # One series per value of the axes after the first; the points along the first.
        key = ", ".join(f"{k}={r[k]}" for k in axes_keys[1:]) or "sweep points"
        label = f"{axes_keys[0]}={r[axes_keys[0]]}" if axes_keys else r["point"]
        # Tables written before the column existed have no `saturated`: drawn as stable.
        series.setdefault(key, []).append((x, ttft, itl, r["pareto"] == "1", label, r.get("saturated") == "1"))
    if not series:
        fail(f"{path}: no point has throughput and latency figures")
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
    everything = [p for pts in series.values() for p in pts]
    for ax, col, label in [(axes[0], 1, "p99 TTFT (ms)"), (axes[1], 2, "p99 ITL (ms)")]:
        for i, (key, pts) in enumerate(series.items()):
            pts = sorted(pts)
            color = f"C{i % 10}"
            ax.plot([p[0] for p in pts], [p[col] for p in pts], "-", alpha=0.6, color=color, label=key)
            stable = [p for p in pts if not p[5]]
            saturated = [p for p in pts if p[5]]
            if stable:
                ax.scatter([p[0] for p in stable], [p[col] for p in stable], color=color)
            if saturated:
                ax.scatter([p[0] for p in saturated], [p[col] for p in saturated], facecolors="none",
                           edgecolors=color)
        front = [p for p in everything if p[3]]
        if front:
            ax.scatter([p[0] for p in front], [p[col] for p in front], s=140, facecolors="none",
                       edgecolors="red", label="Pareto front")
        if any(p[5] for p in everything):
            ax.scatter([], [], facecolors="none", edgecolors="gray", label="hollow: saturated (queue still growing)")
        log_if_wide(ax, "x", [p[0] for p in everything])
        log_if_wide(ax, "y", [p[col] for p in everything])
        ax.set_xlabel("output throughput (tokens/s)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    # One legend for both panels, below them.
    handles, labels = axes[0].get_legend_handles_labels()
    legend = fig.legend(handles, labels, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, 0.02),
                        ncol=2, frameon=False)
    legend.set_in_layout(False)
    print(f"{len(series)} series ({'; '.join(series)}); x {axes[0].get_xscale()}, "
          f"p99 TTFT {axes[0].get_yscale()}, p99 ITL {axes[1].get_yscale()}")
    title = "Latency / throughput trade-off"
    if axes_keys:
        title += f": points along {axes_keys[0]}"
    fig.suptitle(title)
    fig.tight_layout()
    out = os.path.join(out_dir, "sweep_tradeoff.png")
    save(fig, out)
    plt.close(fig)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description="Plot servesim run and sweep outputs as PNGs.")
    ap.add_argument("run_dir", nargs="?", help="a `servesim run` output folder")
    ap.add_argument("--sweep", help="a `servesim sweep` output folder or its sweep.csv")
    ap.add_argument("--out", help="where the PNGs go (default: the run folder, else the sweep folder)")
    args = ap.parse_args()
    if not args.run_dir and not args.sweep:
        ap.print_usage(sys.stderr)
        fail("give a run folder, --sweep, or both")
    if args.run_dir and not os.path.isdir(args.run_dir):
        fail(f"{args.run_dir}: not a folder")
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        sys.exit(3)
    out_dir = args.out or args.run_dir or (args.sweep if os.path.isdir(args.sweep) else os.path.dirname(args.sweep) or ".")
    os.makedirs(out_dir, exist_ok=True)
    if args.run_dir:
        plot_run(plt, args.run_dir, out_dir)
    if args.sweep:
        plot_sweep(plt, args.sweep, out_dir)


if __name__ == "__main__":
    main()
