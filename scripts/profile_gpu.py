#!/usr/bin/env python3
"""Measure step and kernel times of a model on your own GPU, for `servesim calibrate`.

Writes a CSV with the columns of data/measurements/h200_llama3_8b_steps.csv:

    kind,model,prefill_tokens,past_tokens,decode_batch,decode_context,gemm_m,gemm_k,gemm_n,dtype,ms

Rows (docs/cost-model.md section 5 says how calibrate uses each kind):
  ceiling       device-to-device copy bandwidth and a large GEMM's rate (documentation)
  gemm          one M x K x N GEMM at the model's projection shapes, M = 1 .. 4096
  prefill       the whole model over one prompt of N tokens (no cached context)
  decode        the whole model computing one token for B sequences of CTX context each
  attn_prefill  one layer's causal attention over N tokens
  attn_decode   one layer's decode attention for B sequences of CTX context each

The model is built from its architecture alone (a servesim model YAML or a Hugging Face
config.json) with random weights: nothing is downloaded. Each measured callable is
captured in a CUDA graph and replayed; a row's time is the median of --reps replays after
--warmup. Rows that do not fit in GPU memory are skipped with a message.

    python3 scripts/profile_gpu.py --model llama-3-8b --out my_gpu.csv
    servesim calibrate --hardware h100-sxm --model llama-3-8b --measurements my_gpu.csv -o my_gpu.yaml

Runs without a GPU only with --help, --dry-run (print the plan) and --check-csv (read a
measurement CSV and write it back through this script's writer, to test the format).
PyTorch is imported only when measuring.
"""

import argparse
import csv
import json
import os
import sys

COLUMNS = ["kind", "model", "prefill_tokens", "past_tokens", "decode_batch", "decode_context",
           "gemm_m", "gemm_k", "gemm_n", "dtype", "ms"]
KINDS = {"ceiling", "gemm", "prefill", "decode", "mixed", "attn_prefill", "attn_decode"}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GEMM_ROWS = [1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096]
PREFILL_TOKENS = [128, 512, 1024, 2048, 4096, 8192, 16384, 32768]
DECODE = [(b, c) for c in (1024, 4096, 16384) for b in (1, 4, 16, 32, 64, 128, 256)]
ATTN_PREFILL = [512, 2048, 8192, 32768]
ATTN_DECODE = [(1, 4096), (16, 4096), (64, 4096), (256, 1024), (16, 16384), (1, 131072)]


# --- model architecture ---------------------------------------------------------------

def _flat_yaml(text):
    """The `key: value` lines of a servesim model YAML (comments dropped), without PyYAML."""
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].rstrip()
        if not line or line.startswith(" ") or ":" not in line:
            continue
        key, value = line.split(":", 1)
        value = value.strip().strip('"')
        if value.lower() in ("true", "false"):
            out[key.strip()] = value.lower() == "true"
        else:
            try:
                out[key.strip()] = int(value)
            except ValueError:
                out[key.strip()] = value
    return out


def load_architecture(name_or_path):
    """Model dimensions from models/NAME.yaml, a YAML path, or a Hugging Face config.json."""
    path = name_or_path
    if not os.path.exists(path):
        path = os.path.join(REPO, "models", name_or_path + ".yaml")
    if not os.path.exists(path):
        raise SystemExit(f"profile_gpu: no model '{name_or_path}' (give a name under models/ or a path)")
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        c = json.loads(text)
        c = c.get("text_config", c) if "hidden_size" not in c else c
        heads = c["num_attention_heads"]
        arch = dict(name=os.path.basename(c.get("_name_or_path", "")) or os.path.basename(os.path.dirname(os.path.abspath(path))),
                    num_layers=c["num_hidden_layers"], hidden_size=c["hidden_size"],
                    num_attention_heads=heads, num_kv_heads=c.get("num_key_value_heads") or heads,
                    head_dim=c.get("head_dim") or c["hidden_size"] // heads,
                    intermediate_size=c["intermediate_size"], vocab_size=c["vocab_size"],
                    gated_mlp=True, max_context_tokens=c.get("max_position_embeddings", 0))
    else:
        y = _flat_yaml(text)
        heads = y["num_attention_heads"]
        arch = dict(name=y.get("name", os.path.splitext(os.path.basename(path))[0]),
                    num_layers=y["num_layers"], hidden_size=y["hidden_size"],
                    num_attention_heads=heads, num_kv_heads=y.get("num_kv_heads", heads),
                    head_dim=y.get("head_dim", y["hidden_size"] // heads),
                    intermediate_size=y["intermediate_size"], vocab_size=y["vocab_size"],
                    gated_mlp=y.get("gated_mlp", True), max_context_tokens=y.get("max_context_tokens", 0))
    return arch


def attention_label(a):
    # No comma: the column is free text and the file is plain CSV.
    return f"attention {a['num_attention_heads']}q/{a['num_kv_heads']}kv heads; head_dim {a['head_dim']}"


# --- the plan -------------------------------------------------------------------------

def plan(a, quick=False):
    """Every row to measure, as dicts of the CSV's columns (ms still missing)."""
    h, d = a["hidden_size"], a["head_dim"]
    qh, kvh, f = a["num_attention_heads"], a["num_kv_heads"], a["intermediate_size"]
    up = 2 * f if a["gated_mlp"] else f
    rows = [dict(kind="ceiling", model="d2d_copy"),
            dict(kind="ceiling", model="gemm_8192x8192x8192"),
            dict(kind="ceiling", model=f"gemm_4096x{h}x{up}")]
    shapes = [(h, (qh + 2 * kvh) * d), (h, up), (f, h), (qh * d, h)]
    ms = GEMM_ROWS[::3] if quick else GEMM_ROWS
    for k, n in shapes:
        rows += [dict(kind="gemm", gemm_m=m, gemm_k=k, gemm_n=n) for m in ms]
    limit = a["max_context_tokens"] or max(PREFILL_TOKENS)
    for n in PREFILL_TOKENS[::2] if quick else PREFILL_TOKENS:
        if n <= max(limit, 8192):
            rows.append(dict(kind="prefill", model=a["name"], prefill_tokens=n, past_tokens=0))
    for b, c in DECODE[::3] if quick else DECODE:
        rows.append(dict(kind="decode", model=a["name"], decode_batch=b, decode_context=c))
    for n in ATTN_PREFILL:
        rows.append(dict(kind="attn_prefill", model=attention_label(a), prefill_tokens=n, past_tokens=0))
    for b, c in ATTN_DECODE:
        rows.append(dict(kind="attn_decode", model=attention_label(a), decode_batch=b, decode_context=c))
    return rows


# --- the CSV --------------------------------------------------------------------------

def write_csv(rows, path):
    """Rows (dicts) to the measurement CSV; absent cells stay blank."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            cells = []
            for c in COLUMNS:
                v = r.get(c, "")
                cells.append(f"{v:.4f}".rstrip("0").rstrip(".") if c == "ms" and isinstance(v, float) else v)
            w.writerow(cells)


def read_csv(path):
    """A measurement CSV to dicts. The `model` cell of older files may hold unquoted
    commas (the shared H200 file's attention rows do): extra cells are joined back."""
    rows = []
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    if not lines or lines[0] != COLUMNS:
        raise SystemExit(f"profile_gpu: {path}: the header must be {','.join(COLUMNS)}")
    for i, cells in enumerate(lines[1:], start=2):
        if not cells:
            continue
        while len(cells) > len(COLUMNS):
            cells[1] = cells[1] + "," + cells.pop(2)
        if len(cells) != len(COLUMNS):
            raise SystemExit(f"profile_gpu: {path}:{i}: expected {len(COLUMNS)} cells")
        r = dict(zip(COLUMNS, cells))
        if r["kind"] not in KINDS:
            raise SystemExit(f"profile_gpu: {path}:{i}: unknown kind '{r['kind']}'")
        for c in COLUMNS[2:9]:
            r[c] = int(r[c]) if r[c] else ""
        r["ms"] = float(r["ms"])
        rows.append(r)
    return rows


# --- measuring (PyTorch) --------------------------------------------------------------

def measure(a, rows, reps, warmup, log):
    import torch  # only here: --help, --dry-run and --check-csv work without it
    import torch.nn.functional as F

    dev = torch.device("cuda")
    dt = torch.bfloat16
    h, d = a["hidden_size"], a["head_dim"]
    qh, kvh, f, L, V = (a["num_attention_heads"], a["num_kv_heads"], a["intermediate_size"],
                        a["num_layers"], a["vocab_size"])
    group = qh // kvh

    def timed(fn):
        """Median ms of fn() replayed from a CUDA graph."""
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        for _ in range(warmup):
            g.replay()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        return times[len(times) // 2]

    def rand(*shape):
        return torch.randn(*shape, device=dev, dtype=dt) * 0.02

    class Layer:
        def __init__(self):
            self.n1, self.n2 = torch.ones(h, device=dev, dtype=dt), torch.ones(h, device=dev, dtype=dt)
            self.qkv = rand(h, (qh + 2 * kvh) * d)
            self.o = rand(qh * d, h)
            self.up = rand(h, 2 * f if a["gated_mlp"] else f)
            self.down = rand(f, h)

    def norm(x, w):
        return F.rms_norm(x, (h,), w, 1e-5) if hasattr(F, "rms_norm") else \
            w * (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)).to(dt)

    def mlp(layer, x):
        y = x @ layer.up
        if a["gated_mlp"]:
            g_, u = y.chunk(2, dim=-1)
            y = F.silu(g_) * u
        else:
            y = F.gelu(y, approximate="tanh")
        return y @ layer.down

    def attend(q, k, v, causal):
        # q: [B, qh, S, d]; k, v: [B, kvh, T, d]
        try:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        except TypeError:  # PyTorch < 2.5: expand the KV heads
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    out = []
    layers = None
    for r in rows:
        kind = r["kind"]
        try:
            if kind == "ceiling" and r["model"] == "d2d_copy":
                src = torch.empty(1 << 30, device=dev, dtype=torch.uint8)
                dst = torch.empty_like(src)
                ms = timed(lambda: dst.copy_(src))
                r = dict(r, dtype=f"{2 * src.numel() / (ms * 1e-3) / 1e12:.3f} TB/s")
            elif kind == "ceiling":
                m, k, n = (int(x) for x in r["model"].split("_")[1].split("x"))
                x, w = rand(m, k), rand(k, n)
                ms = timed(lambda: x @ w)
                r = dict(r, dtype=f"bf16 {2 * m * k * n / (ms * 1e-3) / 1e12:.1f} TFLOP/s")
            elif kind == "gemm":
                x, w = rand(r["gemm_m"], r["gemm_k"]), rand(r["gemm_k"], r["gemm_n"])
                ms = timed(lambda: x @ w)
            elif kind == "attn_prefill":
                n = r["prefill_tokens"]
                q, k, v = rand(1, qh, n, d), rand(1, kvh, n, d), rand(1, kvh, n, d)
                ms = timed(lambda: attend(q, k, v, True))
            elif kind == "attn_decode":
                b, c = r["decode_batch"], r["decode_context"]
                q, k, v = rand(b, qh, 1, d), rand(b, kvh, c + 1, d), rand(b, kvh, c + 1, d)
                ms = timed(lambda: attend(q, k, v, False))
            else:
                if layers is None:
                    layers = [Layer() for _ in range(L)]
                    emb, final, head = rand(V, h), torch.ones(h, device=dev, dtype=dt), rand(h, V)
                if kind == "prefill":
                    n = r["prefill_tokens"]
                    ids = torch.randint(0, V, (n,), device=dev)

                    def step():
                        x = emb[ids]
                        for ly in layers:
                            y = norm(x, ly.n1) @ ly.qkv
                            q, k, v = y.split([qh * d, kvh * d, kvh * d], dim=-1)
                            att = attend(q.view(1, n, qh, d).transpose(1, 2), k.view(1, n, kvh, d).transpose(1, 2),
                                         v.view(1, n, kvh, d).transpose(1, 2), True)
                            x = x + att.transpose(1, 2).reshape(n, qh * d) @ ly.o
                            x = x + mlp(ly, norm(x, ly.n2))
                        return norm(x[-1:], final) @ head  # lm_head on the last token only
                else:
                    b, c = r["decode_batch"], r["decode_context"]
                    caches = [(rand(b, kvh, c + 1, d), rand(b, kvh, c + 1, d)) for _ in range(L)]
                    ids = torch.randint(0, V, (b,), device=dev)

                    def step():
                        x = emb[ids]
                        for ly, (kc, vc) in zip(layers, caches):
                            y = norm(x, ly.n1) @ ly.qkv
                            q, k, v = y.split([qh * d, kvh * d, kvh * d], dim=-1)
                            kc[:, :, c] = k.reshape(b, kvh, d)  # write the new token's KV
                            vc[:, :, c] = v.reshape(b, kvh, d)
                            att = attend(q.view(b, qh, 1, d), kc, vc, False)
                            x = x + att.reshape(b, qh * d) @ ly.o
                            x = x + mlp(ly, norm(x, ly.n2))
                        return norm(x, final) @ head
                ms = timed(step)
                if kind == "decode":
                    del caches
            r = dict(r, ms=ms)
            r.setdefault("dtype", "bf16")
            out.append(r)
            log(f"{kind:13s} {r.get('model', '')[:24]:24s} {ms:10.4f} ms")
        except torch.cuda.OutOfMemoryError:
            log(f"{kind:13s} skipped: does not fit in GPU memory ({r})")
            torch.cuda.empty_cache()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="docs/cost-model.md section 5 describes the rows and calibrate.")
    p.add_argument("--model", help="servesim model name (models/NAME.yaml), model YAML or HF config.json")
    p.add_argument("--out", default="measurements.csv", help="CSV to write (default measurements.csv)")
    p.add_argument("--reps", type=int, default=30, help="timed replays per row (median kept)")
    p.add_argument("--warmup", type=int, default=5, help="untimed replays first")
    p.add_argument("--quick", action="store_true", help="a third of the rows, for a first look")
    p.add_argument("--dry-run", action="store_true", help="print the rows that would be measured, then stop")
    p.add_argument("--check-csv", metavar="IN.csv",
                   help="read a measurement CSV and write it to --out through this script's writer")
    args = p.parse_args(argv)

    if args.check_csv:
        rows = read_csv(args.check_csv)
        write_csv(rows, args.out)
        print(f"read {len(rows)} rows from {args.check_csv}, wrote {args.out}")
        return 0
    if not args.model:
        p.error("--model is required")
    arch = load_architecture(args.model)
    rows = plan(arch, args.quick)
    if args.dry_run:
        for r in rows:
            print(",".join(str(r.get(c, "")) for c in COLUMNS[:-1]))
        print(f"{len(rows)} rows for {arch['name']}", file=sys.stderr)
        return 0
    measured = measure(arch, rows, args.reps, args.warmup, lambda s: print(s, file=sys.stderr))
    write_csv(measured, args.out)
    print(f"wrote {len(measured)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
