#!/usr/bin/python3
"""Run the what-if library (scenarios/whatif-*.yaml) and print its result tables.

    scripts/whatif.py [--servesim build/servesim] [--out results/whatif] [--plots docs/img]

Each claim of docs/what-if.md is a scenario and one-lever variants of it (the same --set
overrides its test in tests/whatif/ uses). For every claim this runs each variant with
`servesim run`, prints a Markdown table of the figures the claim is about, and, when
matplotlib is importable (Debian's python3-matplotlib), writes a bar chart per claim to
the plots folder. docs/what-if.md quotes these tables; rerun this after changing the cost
model or the engine and paste the new ones.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SPLIT_POOLS = ("cluster.pools=[{name: interactive, replicas: 1, model: llama-3-8b, hardware: h100-sxm, "
               "classes: [chat], engine: {preset: vllm, prefix_cache: false, max_num_seqs: 64, "
               "max_batched_tokens: 1024}}, {name: batch, replicas: 1, model: llama-3-8b, hardware: h100-sxm, "
               "classes: [batch], engine: {preset: vllm, prefix_cache: false, max_num_seqs: 256}}]")
TIMESTAMP_LAST = ("workload.0.prompt=[{shared: system, tokens: 4000}, {unique: true, tokens: 20}, "
                  "{unique: true, tokens: {lognormal: {median: 200, sigma: 0.5}}}]")

KV_OFFLOAD = "cluster.pools.0.engine.kv_offload"

# What-if 20's other fleets (scenarios/whatif-20-fleet-day.yaml's header).
FLEET_DAY_PRIORITY = ["cluster.budget_policy=priority", "cluster.pools.0.priority=100",
                      "cluster.pools.1.priority=10", "cluster.pools.2.priority=50"]
FLEET_DAY_STATIC = ["cluster.pools.%d.autoscale.%s=%d" % (pool, bound, n)
                    for pool, n in ((0, 3), (1, 2), (2, 1)) for bound in ("min_replicas", "max_replicas")]

# (id, title, scenario, [(label, [--set ...])], [(column title, summary path)])
CLAIMS = [
    ("01", "Document assistant", "whatif-01-document-assistant.yaml",
     [("30k in, 400 out", [])],
     [("TTFT p50 ms", "median_ttft_ms"), ("decode p50 ms", "decode_ms"), ("E2E p50 ms", "median_e2el_ms"),
      ("ITL p50 ms", "median_itl_ms"), ("TTFT: own prefill ms", "ttft_attribution.prefill_compute_ms"),
      ("TTFT: queue ms", "ttft_attribution.queue_ms"), ("ITL: own decode ms", "itl_attribution.decode_compute_ms")]),
    ("02", "Optimising the wrong phase", "whatif-02-wrong-phase.yaml",
     [("H100 bf16", []), ("H100 int4 weights", ["cluster.pools.0.weights=int4"]),
      ("H100 fp8 (W8A8)", ["cluster.pools.0.weights=fp8"]),
      ("2x FLOP/s H100", ["cluster.pools.0.hardware=hypothetical-h100-2x-compute"]),
      ("A100 bf16", ["cluster.pools.0.hardware=a100-80g-sxm"]),
      ("A100 fp8 weight-only", ["cluster.pools.0.hardware=a100-80g-sxm", "cluster.pools.0.weights=fp8"])],
     [("TTFT p50 ms", "median_ttft_ms"), ("ITL p50 ms", "median_itl_ms"), ("E2E p50 ms", "median_e2el_ms")]),
    ("03", "Prefix broken by a timestamp", "whatif-03-timestamp-prefix.yaml",
     [("timestamp first", []), ("timestamp after system prompt", [TIMESTAMP_LAST]),
      ("prefix cache off", ["cluster.pools.0.engine.prefix_cache=false"])],
     [("hit rate", "prefix_cache_hit_rate"), ("TTFT p50 ms", "median_ttft_ms"), ("TTFT p99 ms", "p99_ttft_ms"),
      ("ITL p99 ms", "p99_itl_ms"), ("$ per request", "cost_per_request")]),
    ("04", "Batch size tension", "whatif-04-batch-size.yaml",
     [("max_num_seqs %d" % n, ["cluster.pools.0.engine.max_num_seqs=%d" % n]) for n in (4, 8, 16, 32, 64, 128, 256)],
     [("output tok/s", "output_throughput"), ("ITL p50 ms", "median_itl_ms"), ("ITL mean ms", "mean_itl_ms")]),
    ("05", "Agent loop context growth", "whatif-05-agent-loop.yaml",
     [("prefix cache on", []), ("prefix cache off", ["cluster.pools.0.engine.prefix_cache=false"]),
      ("history cut at 6000, cache on", ["workload.0.session.max_history_tokens=6000"]),
      ("history cut at 6000, cache off", ["workload.0.session.max_history_tokens=6000",
                                          "cluster.pools.0.engine.prefix_cache=false"])],
     [("hit rate", "prefix_cache_hit_rate"), ("TTFT p50 ms", "median_ttft_ms"), ("TTFT p99 ms", "p99_ttft_ms"),
      ("turn-20 prefill tokens", "turn20_computed"), ("session prefill tokens", "session_computed"),
      ("$ per session", "cost_per_session")]),
    ("06", "The output-limit myth", "whatif-06-output-limit.yaml",
     [("100 tokens out", []), ("1000 tokens out", ["workload.0.output.fixed=1000"])],
     [("TTFT p50 ms", "median_ttft_ms"), ("E2E p50 ms", "median_e2el_ms")]),
    ("07", "Interactive and batch traffic", "whatif-07-interactive-batch.yaml",
     [("one shared pool", []), ("split pools", [SPLIT_POOLS])],
     [("chat ITL p99 ms", "classes.chat.p99_itl_ms"), ("chat TTFT p99 ms", "classes.chat.p99_ttft_ms"),
      ("batch ITL p50 ms", "classes.batch.median_itl_ms"), ("batch E2E p50 ms", "classes.batch.median_e2el_ms")]),
    ("08", "Chunked prefill", "sarathi_long_prompts.yaml",
     [("sarathi: chunks of 512", []),
      ("whole prompts (continuous)", ["cluster.pools.0.engine.policy=continuous",
                                      "cluster.pools.0.engine.max_batched_tokens=8192"])],
     [("interactive ITL p99 ms", "classes.interactive.p99_itl_ms"),
      ("interactive ITL p50 ms", "classes.interactive.median_itl_ms"),
      ("long-prompt TTFT p50 ms", "classes.long-prompt.median_ttft_ms")]),
    ("09", "Speculative decoding", "speculative_concurrency.yaml",
     [("1 user, no speculation", ["cluster.pools.0.engine.speculative=off"]), ("1 user, k=5", []),
      ("64 users, no speculation", ["workload.0.arrival.concurrency=64", "cluster.pools.0.engine.speculative=off"]),
      ("64 users, k=5", ["workload.0.arrival.concurrency=64"])],
     [("TPOT mean ms", "mean_tpot_ms"), ("output tok/s", "output_throughput")]),
    ("10", "Embeddings", "whatif-10-embeddings.yaml",
     [("%d tokens in" % n, ["workload.0.input.fixed=%d" % n]) for n in (512, 1024, 2048, 4096)],
     [("E2E p50 ms", "median_e2el_ms"), ("TTFT mean ms", "mean_ttft_ms")]),
    ("11", "Short classification calls", "whatif-11-short-calls.yaml",
     [("200 in, 5 out at 40/s", [])],
     [("E2E mean ms", "mean_e2el_ms"), ("TTFT mean ms", "mean_ttft_ms"), ("TTFT: queue ms", "ttft_attribution.queue_ms"),
      ("TTFT: own prefill ms", "ttft_attribution.prefill_compute_ms"),
      ("TTFT: others' work ms", "ttft_attribution.batch_share_ms"), ("ITL mean ms", "mean_itl_ms")]),
    ("12", "Pricing", "whatif-12-pricing.yaml",
     [("chat, shared 2k system prompt", [])],
     [("hit rate", "prefix_cache_hit_rate"), ("$/1M cached input", "cost_per_1m_cached_input_tokens"),
      ("$/1M input", "cost_per_1m_input_tokens"), ("$/1M output", "cost_per_1m_output_tokens"),
      ("$ per request", "cost_per_request")]),
    ("13", "Retrieval instead of stuffing", "whatif-13-retrieval.yaml",
     [("Qwen2.5-7B, 20 documents", []), ("Qwen2.5-7B, 3 passages", ["workload.0.prompt.0.tokens=3000"]),
      ("Llama-3.2-1B, 20 documents", ["cluster.pools.0.model=llama-3.2-1b"])],
     [("TTFT p50 ms", "median_ttft_ms"), ("ITL p50 ms", "median_itl_ms")]),
    ("15", "CPU and disk KV offload", "whatif-15-kv-offload.yaml",
     [("HBM only", ["stop.requests=2000"]),
      ("+64 GiB CPU", ["stop.requests=2000", KV_OFFLOAD + ".cpu_gib=64"]),
      ("+64 GiB CPU +1 TB disk", ["stop.requests=2000", KV_OFFLOAD + ".cpu_gib=64", KV_OFFLOAD + ".disk_gib=1000",
                                  KV_OFFLOAD + ".disk_gb_s=7"])],
     [("hit rate", "prefix_cache_hit_rate"), ("CPU hit rate", "kv_tiers.cpu_hit_rate"),
      ("disk hit rate", "kv_tiers.disk_hit_rate"), ("TTFT mean ms", "mean_ttft_ms"),
      ("load per request ms", "kv_tiers.mean_kv_load_ms")]),
    ("16", "Fixed or autoscaled fleet over a day", "whatif-16-autoscale-day.yaml",
     [("both pools, one run", [])],
     [("fixed GPU-hours", "pools.fixed.gpu_hours"), ("autoscaled GPU-hours", "pools.autoscaled.gpu_hours"),
      ("fixed SLO attainment", "classes.fixed_fleet.slo_attainment"),
      ("autoscaled SLO attainment", "classes.autoscaled_fleet.slo_attainment")]),
    ("17", "Energy per token and a power cap", "whatif-17-energy.yaml",
     [("400 W cap", []), ("300 W cap", ["cluster.pools.1.engine.power_cap_w=300"])],
     [("full kWh", "pools.full.energy.energy_kwh"), ("capped kWh", "pools.capped.energy.energy_kwh"),
      ("capped peak W", "pools.capped.energy.peak_power_w"),
      ("full prefill J/token", "classes.full_power.energy.prefill_energy_per_input_token_j"),
      ("capped prefill J/token", "classes.capped_400w.energy.prefill_energy_per_input_token_j"),
      ("full TTFT p50 ms", "pools.full.median_ttft_ms"), ("capped TTFT p50 ms", "pools.capped.median_ttft_ms")]),
    ("18", "Two models: a static split or a shared GPU budget", "whatif-18-multi-model.yaml",
     [("static 3 + 1", []),
      ("static 2 + 2", ["cluster.pools.0.replicas=2", "cluster.pools.1.replicas=2"])],
     [("static GPU-hours", "static_gpu_hours"), ("shared GPU-hours", "shared_gpu_hours"),
      ("static chat SLO", "classes.chat_static.slo_attainment"),
      ("static small SLO", "classes.small_static.slo_attainment"),
      ("shared chat SLO", "classes.chat_shared.slo_attainment"),
      ("shared small SLO", "classes.small_shared.slo_attainment"),
      ("shared starts deferred", "pools.small_shared.gpu_budget_starts_deferred"),
      ("static kWh", "static_kwh"), ("shared kWh", "shared_kwh"),
      ("static chat J/output token", "pools.chat_static.energy.energy_per_output_token_j"),
      ("static small J/output token", "pools.small_static.energy.energy_per_output_token_j"),
      ("shared chat J/output token", "pools.chat_shared.energy.energy_per_output_token_j"),
      ("shared small J/output token", "pools.small_shared.energy.energy_per_output_token_j")]),
    ("19", "Multi-LoRA: adapters per replica", "whatif-19-lora.yaml",
     [("4 requests/s", []),
      ("2 requests/s", ["workload.0.arrival.rate=2", "workload.1.arrival.rate=2", "workload.2.arrival.rate=2"])],
     [("max_loras 1 TTFT p99 ms", "pools.max_loras_1.p99_ttft_ms"),
      ("max_loras 4 TTFT p99 ms", "pools.max_loras_4.p99_ttft_ms"),
      ("max_loras 16 TTFT p99 ms", "pools.max_loras_16.p99_ttft_ms"),
      ("max_loras 1 SLO", "classes.loras_1.slo_attainment"), ("max_loras 4 SLO", "classes.loras_4.slo_attainment"),
      ("max_loras 16 SLO", "classes.loras_16.slo_attainment")]
     + [("max_loras %d adapter hit rate" % n, "pools.max_loras_%d.lora.request_hit_rate" % n) for n in (1, 4, 16)]
     + [("max_loras %d LoRA load %% of TTFT" % n, "lora_ttft_pct_max_loras_%d" % n) for n in (1, 4, 16)]),
    ("20", "Chat, embeddings and a small model over a day on one GPU budget", "whatif-20-fleet-day.yaml",
     [("shared, first_come", []), ("shared, priority", FLEET_DAY_PRIORITY), ("static 3 + 2 + 1", FLEET_DAY_STATIC)],
     [("GPU-hours", "fleet_gpu_hours"), ("kWh", "fleet_kwh"),
      ("chat SLO", "classes.chat.slo_attainment"), ("embed SLO", "classes.embed.slo_attainment"),
      ("small SLO", "classes.small.slo_attainment"), ("chat TTFT p99 ms", "pools.chat.p99_ttft_ms"),
      ("embed E2E p99 ms", "pools.embed.p99_e2el_ms"),
      ("chat starts deferred", "pools.chat.gpu_budget_starts_deferred"),
      ("embed reclaims", "pools.embed.gpu_budget_reclaims")]),
]


def lookup(summary, path):
    node = summary
    for part in path.split("."):
        if part == "classes":
            node = node.get("classes", {})
            continue
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def derived(summary, run_dir):
    """Figures computed from a run's outputs rather than read from summary.json."""
    extra = {}
    pools = summary.get("pools", {})
    if all(p in pools for p in ("chat_static", "small_static", "chat_shared", "small_shared")):  # what-if 18
        extra["static_gpu_hours"] = pools["chat_static"]["gpu_hours"] + pools["small_static"]["gpu_hours"]
        extra["shared_gpu_hours"] = pools["chat_shared"]["gpu_hours"] + pools["small_shared"]["gpu_hours"]
        if "energy" in pools["chat_static"]:
            kwh = {name: pools[name]["energy"]["energy_kwh"] for name in pools}
            extra["static_kwh"] = kwh["chat_static"] + kwh["small_static"]
            extra["shared_kwh"] = kwh["chat_shared"] + kwh["small_shared"]
    for name, pool in pools.items():  # multi-LoRA pools (what-if 19)
        # The TTFT attribution's parts add up to the mean TTFT (docs/metrics.md), so the
        # adapter loads' part over the mean is their share of it.
        load_ms = pool.get("ttft_attribution", {}).get("lora_load_ms")
        if "lora" in pool and load_ms is not None and pool.get("mean_ttft_ms"):
            extra["lora_ttft_pct_" + name] = 100.0 * load_ms / pool["mean_ttft_ms"]
    if all(p in pools for p in ("chat", "embed", "small")) and "energy" in pools["chat"]:  # what-if 20
        extra["fleet_gpu_hours"] = sum(pools[p]["gpu_hours"] for p in ("chat", "embed", "small"))
        extra["fleet_kwh"] = sum(pools[p]["energy"]["energy_kwh"] for p in ("chat", "embed", "small"))
    if "median_e2el_ms" in summary and "median_ttft_ms" in summary:
        extra["decode_ms"] = summary["median_e2el_ms"] - summary["median_ttft_ms"]
    requests_csv = os.path.join(run_dir, "requests.csv")
    if os.path.exists(requests_csv):
        per_turn = {}
        with open(requests_csv) as f:
            for row in csv.DictReader(f):
                if row.get("outcome") != "completed" or not row.get("turn"):
                    continue
                turn = int(row["turn"])
                computed = int(row["prompt_tokens"]) - int(row["cached_prompt_tokens"])
                n, total = per_turn.get(turn, (0, 0))
                per_turn[turn] = (n + 1, total + computed)
        if 20 in per_turn:
            mean = {t: total / n for t, (n, total) in per_turn.items()}
            extra["turn20_computed"] = mean[20]
            extra["session_computed"] = sum(mean.get(t, 0) for t in range(1, 21))
    return extra


def run_variant(servesim, scenario, sets, run_dir):
    cmd = [servesim, "run", os.path.join(ROOT, "scenarios", scenario), "--out", run_dir]
    for s in sets:
        cmd += ["--set", s]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("servesim failed (%d) on %s %s:\n%s" % (done.returncode, scenario, sets, done.stderr))
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    summary.update(derived(summary, run_dir))
    return summary


def fmt(value):
    if value is None:
        return "-"
    if abs(value) < 0.01 and value != 0:
        return "%.2g" % value
    if abs(value) < 10 and value != int(value):
        return "%.3g" % value
    return "%.0f" % value if abs(value) >= 100 else "%.1f" % value


def plot(claim_id, title, labels, columns, rows, plots_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    # At most 7 panels a row (the widest claims' tables have 14 columns).
    per_row = min(len(columns), 7)
    n_rows = (len(columns) + per_row - 1) // per_row
    fig, axes = plt.subplots(n_rows, per_row, figsize=(3.2 * per_row, 3.2 * n_rows), squeeze=False)
    for ax in axes.flat[len(columns):]:
        ax.set_visible(False)
    for ax, (col_title, _), values in zip(axes.flat, columns, zip(*rows)):
        ax.bar(range(len(labels)), [v or 0 for v in values], color="#4878a8")
        ax.set_title(col_title, fontsize=9)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
    fig.suptitle("What-if %s: %s" % (claim_id, title), fontsize=10)
    fig.tight_layout()
    os.makedirs(plots_dir, exist_ok=True)
    fig.savefig(os.path.join(plots_dir, "whatif-%s.png" % claim_id), dpi=90)
    plt.close(fig)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servesim", default=os.path.join(ROOT, "build", "servesim"))
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "whatif"))
    parser.add_argument("--plots", default=os.path.join(ROOT, "docs", "img"))
    parser.add_argument("--only", help="comma-separated claim ids, e.g. 02,05")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    for claim_id, title, scenario, variants, columns in CLAIMS:
        if only and claim_id not in only:
            continue
        rows = []
        for i, (label, sets) in enumerate(variants):
            summary = run_variant(args.servesim, scenario, sets, os.path.join(args.out, claim_id, str(i)))
            rows.append([lookup(summary, path) for _, path in columns])
        print("### %s. %s (`scenarios/%s`)\n" % (claim_id, title, scenario))
        print("| variant | " + " | ".join(c for c, _ in columns) + " |")
        print("|---|" + "---|" * len(columns))
        for (label, _), row in zip(variants, rows):
            print("| %s | %s |" % (label, " | ".join(fmt(v) for v in row)))
        print()
        plot(claim_id, title, [label for label, _ in variants], columns, rows, args.plots)


if __name__ == "__main__":
    main()
