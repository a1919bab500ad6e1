#!/bin/bash
# Vidur's wall-clock time on servesim's benchmark workload, set up from scratch (bench/vidur/README.md).
# Needs: the Vidur mirror, the DataDog/sketches-py mirror (both read-only git dirs under
# /work/.mirror), Debian's python3 with the packages below.  No PyPI access needed.
#
#   ./run_vidur.sh setup      # extract Vidur + ddsketch, write stubs/helpers, make data
#   ./run_vidur.sh smoke      # 200 requests, tiny predictor grid, own cache (functional check)
#   ./run_vidur.sh cold       # 1,000 requests, EMPTY predictor cache, Vidur's default grid
#   ./run_vidur.sh cached     # 1,000 / 10,000 requests with the trained cache (x2 each),
#                             # 10,000 with metrics off
#   ./run_vidur.sh big        # 100,000 requests with the trained cache
#   ./run_vidur.sh bignm      # 100,000 requests, metrics collection off
#   ./run_vidur.sh estimate   # estimate of default-grid training cost, single-threaded
#   ./run_vidur.sh all        # everything above in order
set -euo pipefail
BENCH=${BENCH:-/tmp/vidur-bench}
VIDUR_MIRROR=${VIDUR_MIRROR:-/work/.mirror/microsoft+vidur/repo}
DDS_MIRROR=${DDS_MIRROR:-/work/.mirror/DataDog+sketches-py/repo}
PY=/usr/bin/python3          # Debian's python3.11 (the Debian packages install here)
export BENCH
export PYTHONPATH=$BENCH/pylib:$BENCH/vidur
mkdir -p "$BENCH"/{pylib,scripts,logs,out}

setup() {
  local SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get install -y python3-sklearn python3-pandas python3-seaborn python3-fasteners \
    python3-plotly python3-matplotlib python3-yaml

  # Vidur at the mirror's HEAD; the mirror lacks files >= 4 MiB (all attention.csv
  # profiles), so extract only the blobs it holds.
  local G="git --git-dir=$VIDUR_MIRROR"
  rm -rf "$BENCH/vidur"; mkdir -p "$BENCH/vidur"
  $G ls-tree -r HEAD | while read -r _m _t h p; do
    $G cat-file -e "$h" 2>/dev/null && printf '%s\0' "$p" || echo "not in mirror: $p" >&2
  done | xargs -0 $G archive HEAD -- | tar -x -C "$BENCH/vidur"
  $G rev-parse HEAD > "$BENCH/VIDUR_COMMIT"

  # ddsketch (pure Python) from DataDog/sketches-py; protobuf part dropped (unused by Vidur)
  G="git --git-dir=$DDS_MIRROR"
  rm -rf "$BENCH/pylib/ddsketch"
  $G archive HEAD ddsketch | tar -x -C "$BENCH/pylib"
  rm -rf "$BENCH/pylib/ddsketch/pb"
  echo "version = \"$($G describe --tags)+git$($G rev-parse --short HEAD)\"  # stands in for setuptools_scm output" \
    > "$BENCH/pylib/ddsketch/__version.py"

  cat > "$BENCH/pylib/wandb.py" <<'PYEOF'
"""Minimal stand-in for the `wandb` package (vidur-bench).

Vidur only calls wandb when a run is active (`if wandb.run:`) or when
--metrics_config_wandb_project/--metrics_config_wandb_group are set, which the
benchmark never does.  `run` stays None, so every wandb branch in Vidur is skipped,
exactly as with the real package under WANDB_MODE=disabled / no project.
No simulation code path depends on this module.
"""
run = None


def init(*args, **kwargs):
    raise RuntimeError("wandb stub: wandb logging is not available in this benchmark setup")


def log(*args, **kwargs):
    pass


class Table:
    def __init__(self, *args, **kwargs):
        pass


class _Plot:
    @staticmethod
    def line(*args, **kwargs):
        return None

    @staticmethod
    def bar(*args, **kwargs):
        return None


plot = _Plot()
PYEOF
  cat > "$BENCH/pylib/plotly_express.py" <<'PYEOF'
"""`plotly_express` was the standalone name of plotly.express; the Debian python3-plotly
package provides the same module as plotly.express.  Re-export it (vidur-bench)."""
from plotly.express import *  # noqa: F401,F403
PYEOF
  cat > "$BENCH/scripts/make_h100_llama3_8b_profile.py" <<'PYEOF'
"""Build stand-in profiling CSVs for Vidur: data/profiling/compute/h100/meta-llama/Meta-Llama-3-8B/
{mlp.csv, attention.csv}.

WHY: Vidur (commit 7d47513) ships no H100 profile for Meta-Llama-3-8B (its README marks
Llama-3-8B on H100 as unsupported), and the read-only mirror used here lacks every
attention.csv (files >= 4 MiB are not stored in it).  These files only feed Vidur's
execution-time predictor; the simulator code path is unchanged.  Values are plausible
H100 numbers, NOT measured ones: this setup is for measuring Vidur's wall-clock speed,
not its accuracy.

mlp.csv      = Vidur's measured A100 Llama-3-8B mlp.csv (same rows, same num_tokens grid,
               TP 1/2/4/8), every time column multiplied by the per-operation H100/A100 ratio
               measured by Vidur for Llama-2-7b-hf (same hidden size 4096), interpolated over
               num_tokens (ratio at 4096 used above 4096).
attention.csv = the input grid Vidur's own attention profiler generates
               (vidur/profiling/utils get_attention_input_combinations, copied below because
               that module imports torch/sarathi), max_seq_len 4096, batch sizes 1..256, TP 1,
               times from a simple roofline model of FlashInfer on H100 with 2 % noise.
"""
import sys
from itertools import product

import numpy as np
import pandas as pd

root = sys.argv[1] if len(sys.argv) > 1 else "."
out = f"{root}/data/profiling/compute/h100/meta-llama/Meta-Llama-3-8B"
import os

os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

# ---------------- mlp.csv ----------------
a3 = pd.read_csv(f"{root}/data/profiling/compute/a100/meta-llama/Meta-Llama-3-8B/mlp.csv")
a2 = pd.read_csv(f"{root}/data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/mlp.csv")
h2 = pd.read_csv(f"{root}/data/profiling/compute/h100/meta-llama/Llama-2-7b-hf/mlp.csv")
ops = sorted({c.split(".")[1] for c in a3.columns if c.startswith("time_stats.")})
h3 = a3.copy()
for tp in sorted(a3.num_tensor_parallel_workers.unique()):
    ga = a2[a2.num_tensor_parallel_workers == tp].groupby("num_tokens").median(numeric_only=True)
    gh = h2[h2.num_tensor_parallel_workers == tp].groupby("num_tokens").median(numeric_only=True)
    idx = ga.index.intersection(gh.index)
    sel = a3.num_tensor_parallel_workers == tp
    for op in ops:
        col = f"time_stats.{op}.median"
        ratio = (gh.loc[idx, col] / ga.loc[idx, col]).replace([np.inf, -np.inf], np.nan)
        ratio = ratio.fillna(1.0).clip(0.1, 2.0).rolling(5, center=True, min_periods=1).median()
        r = np.interp(a3.loc[sel, "num_tokens"], idx.values, ratio.values)
        for stat in ["min", "max", "mean", "median", "std"]:
            c = f"time_stats.{op}.{stat}"
            if c in h3.columns:
                h3.loc[sel, c] = a3.loc[sel, c] * r
h3.to_csv(f"{out}/mlp.csv", index=False)
print("mlp.csv rows", len(h3))

# ---------------- attention.csv ----------------
# grid functions copied from vidur/profiling/utils/__init__.py (commit 7d47513)
def get_attention_batch_sizes_to_profile(min_batch_size, max_batch_size):
    BATCH_SIZE_SPACE = list(range(1, 128 + 1, 1)) + list(range(128, 1024 + 1, 8))
    return [x for x in BATCH_SIZE_SPACE if min_batch_size <= x <= max_batch_size]


def get_attention_prefill_chunk_sizes_to_profile(max_seq_len):
    S = (list(range(64, 128 + 1, 16)) + list(range(128, 1024 + 1, 32))
         + list(range(1024, 4 * 1024 + 1, 64)) + list(range(4 * 1024, 16 * 1024 + 1, 128))
         + list(range(16 * 1024, 64 * 1024 + 1, 256)))
    return [x for x in S if x <= max_seq_len]


def get_seq_lengths_to_profile(max_seq_len):
    S = (list(range(0, 1024 + 1, 32)) + list(range(1024, 4 * 1024 + 1, 64))
         + list(range(4 * 1024, 64 * 1024 + 1, 256)))
    return [x for x in S if x < max_seq_len]


def combos(max_seq_len, min_bs, max_bs):
    c = []
    for p in get_attention_prefill_chunk_sizes_to_profile(max_seq_len):
        c += list(product([p], [i * p for i in range(max_seq_len // p)], [1], [True]))
    c += list(product(get_seq_lengths_to_profile(max_seq_len), [0], [1], [True]))
    c += list(product([0], get_seq_lengths_to_profile(max_seq_len),
                      get_attention_batch_sizes_to_profile(min_bs, max_bs), [False]))
    valid = []
    for p, kv, b, is_prefill in c:
        if is_prefill:
            if b != 1 or p == 0 or p + kv > max_seq_len:
                continue
        else:
            if p > 0 or kv == 0 or kv > max_seq_len:
                continue
        valid.append((p, kv, b, is_prefill))
    return valid


MAX_SEQ_LEN, MAX_BS = 4096, 256
N_Q, N_KV, HEAD, EMBD = 32, 8, 128, 4096
KV_BYTES_PER_TOKEN = 2 * N_KV * HEAD * 2  # K and V, fp16, per layer
PEAK_FLOPS, HBM_BW = 400e12, 2.4e12  # achievable H100 SXM numbers (FlashInfer)


def attn_prefill_ms(p, kv):
    flops = 4.0 * p * (kv + (p + 1) / 2.0) * N_Q * HEAD
    eff = PEAK_FLOPS * min(1.0, p / 512.0) ** 0.75  # small chunks leave SMs idle
    return 0.008 + flops / eff * 1e3 + (kv + p) * KV_BYTES_PER_TOKEN / HBM_BW * 1e3


def attn_decode_ms(b, kv):
    return 0.006 + 0.0004 * b + b * kv * KV_BYTES_PER_TOKEN / HBM_BW * 1e3


def kv_save_ms(n):
    return 0.005 + n * KV_BYTES_PER_TOKEN / HBM_BW * 1e3 * 2


rows = []
for p, kv, b, is_prefill in combos(MAX_SEQ_LEN, 1, MAX_BS):
    stats = {
        "attn_input_reshape": 0.0,
        "attn_kv_cache_save": kv_save_ms(max(p, b)),
        "attn_prefill": attn_prefill_ms(p, kv) if is_prefill else 0.0,
        "attn_decode": 0.0 if is_prefill else attn_decode_ms(b, kv),
        "attn_output_reshape": 0.0,
    }
    row = {}
    for k, v in stats.items():
        v = round(v * float(np.exp(rng.normal(0, 0.02))), 4) if v else 0.0
        row.update({f"time_stats.{k}.min": round(v * 0.98, 4), f"time_stats.{k}.max": round(v * 1.02, 4),
                    f"time_stats.{k}.mean": v, f"time_stats.{k}.median": v,
                    f"time_stats.{k}.std": round(v * 0.01, 5)})
    row.update({"n_embd": EMBD, "n_q_head": N_Q, "n_kv_head": N_KV, "block_size": 16,
                "num_tensor_parallel_workers": 1, "max_model_len": MAX_SEQ_LEN, "batch_size": b,
                "prefill_chunk_size": p, "kv_cache_size": kv, "is_prefill": is_prefill,
                "attention_backend": "AttentionBackend.FLASHINFER"})
    rows.append(row)
att = pd.DataFrame(rows)
att.to_csv(f"{out}/attention.csv", index=False)
print("attention.csv rows", len(att), "prefill", int(att.is_prefill.sum()))
PYEOF
  cat > "$BENCH/scripts/make_lengths.py" <<'PYEOF'
"""Request lengths for Vidur's trace length generator (columns num_prefill_tokens,
num_decode_tokens), sampled like servesim's bench/throughput.yaml:
input ~ lognormal(median 1020, sigma 0.5) clipped to [1, 8000],
output ~ lognormal(median 129, sigma 1.0) clipped to [1, 2000].
Vidur then trims prompt+output to max_tokens (4096) proportionally."""
import sys

import numpy as np
import pandas as pd

n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
rng = np.random.default_rng(1)
inp = np.clip(np.rint(np.exp(np.log(1020) + 0.5 * rng.standard_normal(n))), 1, 8000).astype(int)
out = np.clip(np.rint(np.exp(np.log(129) + 1.0 * rng.standard_normal(n))), 1, 2000).astype(int)
df = pd.DataFrame({"num_prefill_tokens": inp, "num_decode_tokens": out})
df.to_csv(sys.argv[1], index=False)
tot = inp + out
print(f"rows {n}: input mean {inp.mean():.0f} median {np.median(inp):.0f}; output mean {out.mean():.0f} "
      f"median {np.median(out):.0f}; share with input+output > 4096: {(tot > 4096).mean():.4%}")
PYEOF
  cat > "$BENCH/scripts/timed_main.py" <<'PYEOF'
"""Same as `python -m vidur.main` (vidur/main.py), plus phase timestamps on stderr:
import, config+Simulator construction (request generation, predictor training/loading),
simulator.run() (the event loop), and the atexit output writing (metrics CSVs)."""
import atexit
import sys
import time

t0 = time.perf_counter()
c0 = time.process_time()


def _p(label, t_prev):
    t = time.perf_counter()
    print(f"[phase] {label}: {t - t_prev:.2f} s wall (cumulative {t - t0:.2f} s, cpu {time.process_time() - c0:.2f} s)",
          file=sys.stderr, flush=True)
    return t


# registered first => runs last, after Simulator._write_output
atexit.register(lambda: _p("write_output (atexit)", T["run_end"]))
T = {}

from vidur.config import SimulationConfig  # noqa: E402
from vidur.simulator import Simulator  # noqa: E402
from vidur.utils.random import set_seeds  # noqa: E402

t = _p("imports", t0)
config = SimulationConfig.create_from_cli_args()
set_seeds(config.seed)
simulator = Simulator(config)
t = _p("init (config, requests, execution-time predictors)", t)
simulator.run()
T["run_end"] = _p("run (event loop)", t)

# counters Vidur keeps anyway (class-level id generators): no extra work in the loop
from vidur.entities import Batch, Request  # noqa: E402
from vidur.events.base_event import BaseEvent  # noqa: E402

print(f"[counts] requests {Request._id + 1}, batches (engine steps, all replicas) {Batch._id + 1}, "
      f"events {BaseEvent._id}, simulated time {simulator._time:.1f} s", file=sys.stderr, flush=True)
PYEOF
  cat > "$BENCH/scripts/estimate_default_grid_training.py" <<'PYEOF'
"""Estimate what Vidur's default first-run predictor training costs on this machine when
run single-threaded (num_training_job_threads 1), without running the whole grid search.

Vidur trains 12 RandomForest models (9 compute ops from mlp.csv, attn_kv_cache_save,
attn_prefill, attn_decode from attention.csv) with GridSearchCV over
n_estimators {250,500,750} x max_depth {8,16,32} x min_samples_split {2,5,10}, 10-fold CV,
then refits the best one: 27*10 + 1 = 271 fits per model.  Here every (max_depth,
min_samples_split) point is timed once with 250 trees on a 90 % sample (one CV fold's
training set); forest fit time is linear in the number of trees, so the grid cost per
point is 10 * t250 * (250+500+750)/250, plus one refit (counted at 500 trees).
Training data are built exactly as Vidur's SklearnExecutionTimePredictor does."""
import sys
import time
from itertools import product

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

root = sys.argv[1]
d = f"{root}/data/profiling/compute/h100/meta-llama/Meta-Llama-3-8B"
mlp = pd.read_csv(f"{d}/mlp.csv").drop_duplicates()
mlp = mlp[(mlp.num_tensor_parallel_workers == 1)]
att = pd.read_csv(f"{d}/attention.csv").drop_duplicates()
att = att[(att.num_tensor_parallel_workers == 1) & (att.block_size == 16)].copy()
att["num_tokens"] = att[["prefill_chunk_size", "batch_size"]].max(axis=1)
att["is_decode"] = att.prefill_chunk_size == 0
att["prefill_chunk_size_squared"] = att.prefill_chunk_size ** 2
models = [(op, mlp, ["num_tokens"], f"time_stats.{op}.median") for op in
          ["attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj", "mlp_act",
           "input_layernorm", "post_attention_layernorm", "attn_rope", "add"]]
models += [("attn_kv_cache_save", att, ["num_tokens"], "time_stats.attn_kv_cache_save.median"),
           ("attn_prefill", att[~att.is_decode], ["kv_cache_size", "prefill_chunk_size_squared"],
            "time_stats.attn_prefill.median"),
           ("attn_decode", att[att.is_decode], ["batch_size", "kv_cache_size"],
            "time_stats.attn_decode.median")]
rng = np.random.default_rng(0)
grand = 0.0
for name, df, feats, target in models:
    idx = rng.permutation(len(df))[: int(0.9 * len(df))]
    X, y = df[feats].iloc[idx], df[target].iloc[idx]
    est = 0.0
    for depth, split in product([8, 16, 32], [2, 5, 10]):
        t = time.perf_counter()
        RandomForestRegressor(n_estimators=250, max_depth=depth, min_samples_split=split,
                              n_jobs=1, random_state=0).fit(X, y)
        t250 = time.perf_counter() - t
        est += 10 * t250 * (250 + 500 + 750) / 250
    est += est / 270 * 1  # one refit, about an average fit
    grand += est
    print(f"{name:26s} rows {len(df):6d}: estimated grid search {est:8.1f} s", flush=True)
print(f"TOTAL estimated single-threaded default-grid training: {grand:.0f} s = {grand/3600:.2f} h")
PYEOF
  (cd "$BENCH/vidur" && $PY "$BENCH/scripts/make_h100_llama3_8b_profile.py" .)
  $PY "$BENCH/scripts/make_lengths.py" "$BENCH/lengths_100k.csv" 100000
  $PY -c "from ddsketch import DDSketch; import wandb, plotly_express, vidur.main; print('imports ok')"
}

# Vidur flags for the target workload; $1 = number of requests
vidur_args() {
  echo \
  --replica_config_device h100 \
  --replica_config_network_device h100_dgx \
  --replica_config_model_name meta-llama/Meta-Llama-3-8B \
  --replica_config_tensor_parallel_size 1 \
  --replica_config_num_pipeline_stages 1 \
  --cluster_config_num_replicas 16 \
  --global_scheduler_config_type round_robin \
  --request_generator_config_type synthetic \
  --synthetic_request_generator_config_num_requests "$1" \
  --interval_generator_config_type poisson \
  --poisson_request_interval_generator_config_qps 64 \
  --length_generator_config_type trace \
  --trace_request_length_generator_config_trace_file "$BENCH/lengths_100k.csv" \
  --trace_request_length_generator_config_max_tokens 4096 \
  --replica_scheduler_config_type sarathi \
  --sarathi_scheduler_config_chunk_size 8192 \
  --sarathi_scheduler_config_batch_size_cap 256 \
  --execution_time_predictor_config_type random_forrest \
  --random_forrest_execution_time_predictor_config_prediction_max_prefill_chunk_size 8192 \
  --random_forrest_execution_time_predictor_config_prediction_max_batch_size 256 \
  --random_forrest_execution_time_predictor_config_prediction_max_tokens_per_request 8192 \
  --random_forrest_execution_time_predictor_config_num_training_job_threads 1 \
  --no-metrics_config_store_plots \
  --no-metrics_config_enable_chrome_trace \
  --no-metrics_config_save_table_to_wandb
}

# run NAME NUM_REQUESTS CACHE_DIR [extra vidur flags...]
run() {
  local name=$1 n=$2 cache=$3; shift 3
  local log="$BENCH/logs/$name.log"
  echo "start $(date +%T) $(uptime)" > "$BENCH/logs/$name.uptime"
  (cd "$BENCH/vidur" && /usr/bin/time -v $PY "$BENCH/scripts/timed_main.py" $(vidur_args "$n") \
      --metrics_config_output_dir "$BENCH/out/$name" --metrics_config_cache_dir "$cache" "$@") \
      > "$log" 2>&1
  echo "end   $(date +%T) $(uptime)" >> "$BENCH/logs/$name.uptime"
  echo "== $name"; cat "$BENCH/logs/$name.uptime"
  grep -E '^\[phase\]|^\[counts\]|Elapsed \(wall|User time|System time|Maximum resident' "$log"
}

SMALL_GRID="--random_forrest_execution_time_predictor_config_num_estimators 50
  --random_forrest_execution_time_predictor_config_max_depth 16
  --random_forrest_execution_time_predictor_config_min_samples_split 2
  --random_forrest_execution_time_predictor_config_k_fold_cv_splits 2"

case "${1:-all}" in
  setup) setup ;;
  smoke) rm -rf "$BENCH/cache_smoke"; run smoke_200 200 "$BENCH/cache_smoke" $SMALL_GRID ;;
  cold) rm -rf "$BENCH/cache_default"; run cold_1000 1000 "$BENCH/cache_default" ;;
  cached)
    for r in 1 2; do run cached_1000_r$r 1000 "$BENCH/cache_default"; done
    for r in 1 2; do run cached_10000_r$r 10000 "$BENCH/cache_default"; done
    run cached_10000_nometrics 10000 "$BENCH/cache_default" --no-metrics_config_write_metrics ;;
  big) run cached_100000 100000 "$BENCH/cache_default" ;;
  bignm) run cached_100000_nometrics 100000 "$BENCH/cache_default" --no-metrics_config_write_metrics ;;
  estimate) $PY "$BENCH/scripts/estimate_default_grid_training.py" "$BENCH/vidur" | tee "$BENCH/logs/estimate_default_grid.log" ;;
  all) "$0" setup; "$0" smoke; "$0" cold; "$0" cached; "$0" big; "$0" bignm; "$0" estimate ;;
  *) echo "unknown stage $1" >&2; exit 2 ;;
esac
