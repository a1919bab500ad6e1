#include "sim/hardware/kernel_cost_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <string_view>

#include "sim/core/assert.h"
#include "sim/hardware/mean_length_walk.h"
#include "sim/hardware/segment_step_prices.h"
#include "sim/model/shard.h"

namespace servesim {

namespace {

bool named(const OpCost& op, std::string_view name) { return op.name == name; }

std::string gemm_dtype_name(const Deployment& dep) {
  // The tables' fp8 rows are the fp8 linear fed a bf16 activation: dynamic quantisation
  // included, as vLLM runs fp8 checkpoints (data/kernels/README.md, gemm_perf).
  if (dep.weights == Dtype::fp8 || dep.activations == Dtype::fp8) return "fp8";
  if (dep.weights == Dtype::bf16) return "bfloat16";
  return std::string(dtype_name(dep.weights));  // int8/int4 weight-only: no rows in the shipped sets
}

}  // namespace

std::vector<int> cuda_graph_batch_sizes(int max_batch) {
  std::vector<int> sizes;
  for (int s : {1, 2, 4}) if (s <= max_batch) sizes.push_back(s);
  for (int s = 8; s < 256 && s <= max_batch; s += 8) sizes.push_back(s);
  for (int s = 256; s <= max_batch; s += 16) sizes.push_back(s);
  if (max_batch > 0 && (sizes.empty() || sizes.back() != max_batch)) sizes.push_back(max_batch);
  return sizes;
}

KernelTableQuery kernel_table_query(const ModelSpec& model, const Deployment& dep) {
  const ShardShape s = shard_shape(model, dep);
  KernelTableQuery q;
  q.gemm_dtype = gemm_dtype_name(dep);
  q.kv_dtype = dep.kv == Dtype::fp8 ? "fp8" : "bfloat16";
  q.head_dim = model.is_mla() ? 0 : model.head_dim;
  q.mla = model.is_mla();  // MLA has tables of its own, keyed by heads per GPU
  q.q_heads = s.q_heads;
  q.kv_heads = s.kv_heads;
  q.tp = dep.tp;
  if (model.is_moe()) {
    q.moe_dtype = dep.expert_dtype() == Dtype::fp8 ? "fp8" : dep.expert_dtype() == Dtype::bf16 ? "bfloat16"
                                                                                               : std::string(dtype_name(dep.expert_dtype()));
    q.moe_hidden = model.hidden_size;
    q.moe_inter = model.moe_intermediate_size;
    q.topk = model.experts_per_token;
    q.experts = model.num_experts;
    q.moe_tp = dep.tp / dep.ep;
    q.moe_ep = dep.ep;
  }
  return q;
}

KernelCostModel::KernelCostModel(ModelSpec model, HardwareSpec hw, Deployment dep,
                                 std::shared_ptr<const KernelTables> tables, int cuda_graph_max_batch)
    : model_(std::move(model)),
      hw_(std::move(hw)),
      dep_(dep),
      tables_(std::move(tables)),
      roofline_(model_, hw_, dep_),
      layers_(shard_shape(model_, dep_).layers),
      attention_kernels_(model_, dep_) {
  SS_ASSERT(tables_ != nullptr, "a kernel cost model needs its tables");
  if (cuda_graph_max_batch > 0) graph_sizes_ = cuda_graph_batch_sizes(cuda_graph_max_batch);
  const bool fp8 = tables_->query.gemm_dtype == "fp8";
  gemm_peak_flops_ = fp8 ? hw_.peak_flops(Dtype::fp8) : hw_.peak_flops(Dtype::bf16);
  gemm_bytes_per_element_ = fp8 ? 1.0 : 2.0;
  kv_bytes_per_element_ = tables_->query.kv_dtype == "fp8" ? 1.0 : 2.0;
  moe_bytes_per_element_ = tables_->query.moe_dtype == "fp8" ? 1.0 : 2.0;
  if (tables_->generation_attention) {
    for (const KernelGrid::Point& p : tables_->generation_attention->points()) decode_lengths_.push_back(p.at[2]);
    std::sort(decode_lengths_.begin(), decode_lengths_.end());
    decode_lengths_.erase(std::unique(decode_lengths_.begin(), decode_lengths_.end()), decode_lengths_.end());
  }
}

std::int64_t KernelCostModel::graph_rows(std::int64_t seqs) const {
  if (graph_sizes_.empty() || seqs > graph_sizes_.back()) return seqs;
  return *std::lower_bound(graph_sizes_.begin(), graph_sizes_.end(), static_cast<int>(seqs));
}

// GEMM speed of light: the math at the dtype's dense peak or the operands and output
// through HBM, whichever is longer (aiconfigurator's GEMM SOL).
double KernelCostModel::gemm_sol_s(double m, double n, double k) const {
  return std::max(2.0 * m * n * k / gemm_peak_flops_,
                  gemm_bytes_per_element_ * (m * n + m * k + n * k) / hw_.memory_bandwidth_bytes_per_s);
}

const KernelCostModel::GemmSite& KernelCostModel::gemm_site(double n, double k) const {
  const auto key = std::make_pair(n, k);
  for (const auto& entry : gemm_sites_)
    if (entry.first == key) return entry.second;
  GemmSite site;
  const auto exact = tables_->gemm.find({static_cast<int>(n), static_cast<int>(k)});
  if (exact != tables_->gemm.end() && exact->first.first == n && exact->first.second == k) {
    site.neighbours.push_back({&exact->second, n, k, 1.0});
  } else if (n >= 1 && k >= 1) {
    // Up to four measured sites within two octaves in both n and k, nearest first in log2
    // space, weighted by inverse distance (aiconfigurator's GEMM shape fallback).
    std::vector<std::pair<double, const std::pair<const std::pair<int, int>, KernelGrid>*>> near;
    for (const auto& entry : tables_->gemm) {
      const double dn = std::log2(entry.first.first) - std::log2(n);
      const double dk = std::log2(entry.first.second) - std::log2(k);
      if (std::abs(dn) > 2 || std::abs(dk) > 2) continue;
      near.emplace_back(std::hypot(dn, dk), &entry);
    }
    std::sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (near.size() > 4) near.resize(4);
    for (const auto& [distance, entry] : near) {
      site.neighbours.push_back({&entry->second, static_cast<double>(entry->first.first),
                                 static_cast<double>(entry->first.second), 1.0 / std::max(distance, 1e-9)});
    }
  }
  gemm_sites_.emplace_back(key, std::move(site));
  return gemm_sites_.back().second;
}

std::optional<double> KernelCostModel::gemm_seconds(double m, double n, double k) const {
  const GemmSite& site = gemm_site(n, k);
  if (site.neighbours.empty() || !(m > 0)) return std::nullopt;
  const double sol = gemm_sol_s(m, n, k);
  double weighted_util = 0;
  double weights = 0;
  for (const GemmSite::Neighbour& nb : site.neighbours) {
    const double nn = nb.n, kk = nb.k;
    const auto site_sol = SolOf([this, nn, kk](const KernelCoord& c) { return gemm_sol_s(c[0], nn, kk); });
    const double measured = std::max(nb.grid->eval({m, 0, 0}, site_sol), gemm_sol_s(m, nn, kk));
    if (site.neighbours.size() == 1 && nn == n && kk == k) return measured;
    weighted_util += nb.weight * gemm_sol_s(m, nn, kk) / measured;
    weights += nb.weight;
  }
  return sol / (weighted_util / weights);
}

std::optional<double> KernelCostModel::prefill_attention_seconds(const BatchShape& batch) const {
  if (!tables_->context_attention || batch.prefills.empty()) return std::nullopt;
  // The table times `b` equal prompts without a cached prefix. A chunk of n new tokens over
  // p cached ones does the work of the s = p + n row times (s^2 - p^2) / s^2
  // (aiconfigurator's prefix rule); the step's chunks run as one varlen launch, priced as
  // b = chunks equal prompts whose squared length is the chunks' mean s^2 - p^2.
  double squares = 0;
  for (const PrefillChunk& c : batch.prefills) {
    const double s = static_cast<double>(c.past_tokens + c.new_tokens);
    const double p = static_cast<double>(c.past_tokens);
    squares += s * s - p * p;
  }
  const double b = static_cast<double>(batch.prefills.size());
  const double s_eff = std::max(1.0, std::sqrt(squares / b));
  const double d = tables_->query.head_dim;
  const double kvh = tables_->query.kv_heads;
  const bool mha = tables_->query.kv_heads == tables_->query.q_heads;
  const double peak = hw_.peak_flops(Dtype::bf16);
  const double bw = hw_.memory_bandwidth_bytes_per_s;
  const double kvb = kv_bytes_per_element_;
  // MLA prefill attends over the decompressed keys (nope + rope wide) and values (v wide),
  // bf16, as ordinary multi-head attention with unequal head dims.
  const bool mla = model_.is_mla();
  const double qk = model_.qk_nope_head_dim + model_.qk_rope_head_dim, v = model_.v_head_dim;
  const auto sol = SolOf([=](const KernelCoord& c) {
    const double n = c[0], s = c[1], bb = c[2];
    if (mla) return std::max(bb * s * s * n * (qk + v) / peak, 4.0 * bb * n * s * (qk + v) / bw);
    const double nkv = mha ? n : kvh;
    return std::max(2.0 * bb * s * s * n * d / peak, (4.0 * bb * n * s * d + kvb * 2.0 * bb * nkv * s * d) / bw);
  });
  const KernelCoord q{static_cast<double>(tables_->query.q_heads), s_eff, b};
  return std::max(tables_->context_attention->eval(q, sol), sol(q));
}

// Decode attention SOL: Q in and out (bf16) plus the cached K and V of s - 1 tokens. MLA's
// absorbed decode reads one latent (kv_lora + rope) per cached token for all heads, and
// does 2 x latent FLOPs per key per head in QK and 2 x kv_lora in PV, which at 16 or more
// heads per GPU can outlast the read.
double KernelCostModel::decode_attention_grid_s(double seqs, double s) const {
  const double d = tables_->query.head_dim;
  const double kvh = tables_->query.kv_heads;
  const bool mha = tables_->query.kv_heads == tables_->query.q_heads;
  const double bw = hw_.memory_bandwidth_bytes_per_s;
  const double kvb = kv_bytes_per_element_;
  const bool mla = model_.is_mla();
  const double latent = static_cast<double>(model_.kv_lora_rank) + model_.qk_rope_head_dim;
  const double lora = model_.kv_lora_rank;
  const double peak = hw_.peak_flops(Dtype::bf16);
  const auto sol = SolOf([=](const KernelCoord& c) {
    const double n = c[0], bb = c[1], len = c[2];
    if (mla)
      return std::max(bb * n * len * (2.0 * latent + 2.0 * lora) / peak,
                      bb * (latent * std::max(len - 1.0, 0.0) * kvb + 2.0 * n * (latent + lora)) / bw);
    const double nkv = mha ? n : kvh;
    return bb * (2.0 * n * d * 2.0 + 2.0 * nkv * std::max(len - 1.0, 0.0) * d * kvb) / bw;
  });
  const KernelCoord q{static_cast<double>(tables_->query.q_heads), seqs, s};
  // Rows measured faster than the SOL are floored at it, as aiconfigurator does.
  return std::max(tables_->generation_attention->eval(q, sol), sol(q));
}

std::optional<double> KernelCostModel::decode_attention_seconds(std::int64_t seqs, std::int64_t context_sum) const {
  if (!tables_->generation_attention || seqs <= 0) return std::nullopt;
  // The table's sequence length s counts the new token: s = cached + 1. A step's
  // sequences are priced as `seqs` equal ones at their mean length.
  const double b = static_cast<double>(seqs);
  const double s = static_cast<double>(context_sum) / b + 1.0;
  const std::vector<double>& lengths = decode_lengths_;
  if (seqs > kMaxCachedRows || s < lengths.front() || s > lengths.back()) return decode_attention_grid_s(b, s);
  const std::vector<double>& curve = decode_curve(seqs);
  const auto hi = static_cast<std::size_t>(std::upper_bound(lengths.begin(), lengths.end(), s) - lengths.begin());
  return decode_curve_at(curve, hi, s);
}

const std::vector<double>& KernelCostModel::decode_curve(std::int64_t seqs) const {
  if (decode_curves_.size() <= static_cast<std::size_t>(seqs)) decode_curves_.resize(static_cast<std::size_t>(seqs) + 1);
  std::vector<double>& curve = decode_curves_[static_cast<std::size_t>(seqs)];
  if (curve.empty()) {
    const double b = static_cast<double>(seqs);
    for (const double length : decode_lengths_) curve.push_back(decode_attention_grid_s(b, length));
  }
  return curve;
}

double KernelCostModel::decode_curve_at(const std::vector<double>& curve, std::size_t hi, double s) const {
  const std::vector<double>& lengths = decode_lengths_;
  if (hi == lengths.size()) return curve.back();
  const std::size_t lo = hi - 1;
  const double t = (s - lengths[lo]) / (lengths[hi] - lengths[lo]);
  return curve[lo] + t * (curve[hi] - curve[lo]);
}

std::optional<double> KernelCostModel::all_reduce_seconds(double elements) const {
  if (!tables_->all_reduce || !(elements > 0)) return std::nullopt;
  const double tp = dep_.tp;
  const double link = hw_.interconnect_bandwidth_bytes_per_s;
  // Ring all-reduce SOL: 2 (tp - 1) / tp of the bf16 buffer over one link direction.
  const auto sol = SolOf([=](const KernelCoord& c) { return 2.0 * (tp - 1) / tp * 2.0 * c[0] / link; });
  return tables_->all_reduce->eval({elements, 0, 0}, sol);
}

double KernelCostModel::nccl_node_all_reduce_seconds(double buffer_bytes) const {
  // nccl_perf's message_size counts 2-byte elements; beyond the rows the ring's SOL over
  // the node's NVLink holds the boundary's utilisation.
  const double k = tables_->query.node_gpus;
  const double link = hw_.interconnect_bandwidth_bytes_per_s;
  const auto sol = SolOf([=](const KernelCoord& c) { return 2.0 * (k - 1) / k * 2.0 * c[0] / link; });
  return tables_->nccl_node_all_reduce->eval({buffer_bytes / 2.0, 0, 0}, sol);
}

std::optional<double> KernelCostModel::moe_seconds(double tokens) const {
  if (!tables_->moe || !(tokens > 0)) return std::nullopt;
  const KernelTableQuery& q = tables_->query;
  const double peak = q.moe_dtype == "fp8" ? hw_.peak_flops(Dtype::fp8) : hw_.peak_flops(Dtype::bf16);
  const double bw = hw_.memory_bandwidth_bytes_per_s;
  const double wb = moe_bytes_per_element_;
  // MoE SOL: gate, up and down GEMMs of every token-expert pair, or the local experts'
  // weights that the tokens touch through HBM.
  const auto sol = SolOf([=](const KernelCoord& c) {
    const double t = c[0];
    const double flops = 2.0 * t * q.topk * q.moe_hidden * 3.0 * q.moe_inter / (q.moe_tp * q.moe_ep);
    const double touched = expected_experts_touched(q.experts, q.topk, t) / q.moe_ep;
    const double bytes = touched * 3.0 * q.moe_hidden * q.moe_inter / q.moe_tp * wb;
    return std::max(flops / peak, bytes / bw);
  });
  return tables_->moe->eval({tokens, 0, 0}, sol);
}

KernelCostModel::Priced KernelCostModel::priced_at(const OpCost& op, const RooflineCostModel::OpBounds& bounds,
                                                   double time_s, const char* source) {
  Priced p;
  p.compute_s = bounds.compute_s;
  p.memory_s = bounds.memory_s;
  p.time_s = time_s;
  p.bucket = op.kind == OpKind::communication ? 2 : (bounds.compute_s > bounds.memory_s ? 0 : 1);
  p.flops = op.flops;
  p.bytes = op.bytes_read + op.bytes_written;
  p.source = source;
  return p;
}

KernelCostModel::Priced KernelCostModel::roofline_price(const OpCost& op, const char* source, bool fallback) const {
  const RooflineCostModel::OpBounds t = roofline_.op_bounds(op);
  // The roofline's per-launch overhead stands for eager launches; the tables' engines
  // replay CUDA graphs, where a kernel costs at least the shortest measured one.
  Priced p = priced_at(op, t, std::max(t.body_s, tables_->min_kernel_s * op.count), source);
  if (op.kind == OpKind::elementwise && tables_->streaming_bytes_per_s > 0) {
    // Norms, activations and adds stream at the bandwidth the engine's own streaming
    // kernels reach on this GPU (KernelTables::streaming_bytes_per_s), not at the
    // roofline's elementwise efficiency (fitted to unfused PyTorch kernels).
    p.memory_s = (op.bytes_read + op.bytes_written) / tables_->streaming_bytes_per_s;
    p.time_s = std::max(p.memory_s, tables_->min_kernel_s * op.count);
  }
  p.fallback = fallback;
  return p;
}

KernelCostModel::Priced KernelCostModel::price(const OpCost& op, const BatchShape& batch, double step_rows) const {
  constexpr const char* kOutside = "roofline (outside table)";
  std::optional<double> per_call;
  bool asked = true;
  const char* source = "table";
  const char* algorithm = "";
  switch (op.kind) {
    case OpKind::gemm:
      if (named(op, "expert_gate_up") || named(op, "expert_down")) {
        if (tables_->moe) {
          // One moe_perf row is the whole layer's experts: charged on gate_up, down is in it.
          per_call = named(op, "expert_gate_up") ? moe_seconds(step_rows) : std::optional<double>(0.0);
          source = named(op, "expert_gate_up") ? "table (moe_perf)" : "table (moe_perf, in expert_gate_up)";
        }
      } else {
        per_call = gemm_seconds(op.rows, op.gemm_n, op.gemm_k);
      }
      break;
    case OpKind::attention:
      if (named(op, "attn_decode")) {
        per_call = decode_attention_seconds(batch.decode_seqs, batch.decode_context_sum);
      } else {
        per_call = prefill_attention_seconds(batch);
      }
      break;
    case OpKind::communication:
      if (named(op, "pp_transfer")) {
        Priced p = roofline_price(op, "roofline", false);
        p.algorithm = "send/recv";
        return p;
      }
      if (roofline_.link_of(op) == std::string_view("network")) {
        // The custom all-reduce peers GPU memory over one machine's NVLink: a group across
        // machines runs NCCL, priced by NCCL's model, no cheaper than NCCL's measured
        // all-reduce of the same buffer inside one machine (nccl_perf at the domain's GPUs).
        const double buffer = roofline_.all_reduce_buffer_bytes(op);
        const bool measured = tables_->nccl_node_all_reduce.has_value();
        const double floor_s = measured ? nccl_node_all_reduce_seconds(buffer) : roofline_.domain_all_reduce_s(buffer);
        const RooflineCostModel::CrossMachine call = roofline_.cross_machine_all_reduce(buffer, floor_s);
        Priced p = roofline_price(op, measured ? "NCCL model (across machines; floor nccl_perf)"
                                               : "NCCL model (across machines; floor roofline)", false);
        p.time_s = call.time_s * op.count;
        p.algorithm = call.algorithm;
        return p;
      }
      per_call = all_reduce_seconds(step_rows * model_.hidden_size);
      algorithm = "custom all-reduce";
      break;
    case OpKind::elementwise:
      if (tables_->moe && (named(op, "expert_silu_mul") || named(op, "moe_combine"))) {
        per_call = 0.0;  // inside moe_perf's layer time
        source = "table (moe_perf, in expert_gate_up)";
      } else {
        asked = false;
      }
      break;
  }
  if (!per_call) {
    Priced p = roofline_price(op, asked ? kOutside : "roofline", asked);
    if (op.kind == OpKind::communication) p.algorithm = "ring";  // the roofline's
    return p;
  }
  Priced p = priced_at(op, roofline_.op_bounds(op), *per_call * op.count, source);
  p.algorithm = algorithm;
  return p;
}

BatchShape KernelCostModel::padded_for_graphs(const BatchShape& batch) const {
  // A decode-only step inside the CUDA-graph range runs at the padded batch; attention
  // reads only the real sequences' KV (padding rows have no context).
  BatchShape padded = batch;
  if (batch.prefills.empty() && batch.extra_sampled_tokens == 0) padded.decode_seqs = graph_rows(batch.decode_seqs);
  return padded;
}

void KernelCostModel::price_ops(const BatchShape& batch, std::vector<std::pair<OpCost, Priced>>* out,
                                StepCost* cost) const {
  const bool decode_only = batch.prefills.empty() && batch.extra_sampled_tokens == 0;
  const BatchShape padded = padded_for_graphs(batch);
  const double step_rows = static_cast<double>(padded.total_tokens());
  double sums[3] = {0, 0, 0};
  const auto add = [&](const OpPrice& p) {
    sums[p.bucket] += p.time_s;
    if (cost) {
      cost->flops += p.flops;
      cost->bytes += p.bytes;
      cost->table_fallback_ops += p.fallback ? 1 : 0;
    }
  };
  const auto add_known = [&](const std::vector<OpPrice>& prices, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) add(prices[i]);
  };
  const auto tokens = padded.total_tokens();
  const auto sampled = static_cast<std::int64_t>(sampled_rows(padded));
  const bool known =
      out == nullptr && tokens <= kMaxCachedRows && sampled <= kMaxCachedRows && (decode_only || !model_.is_mla());
  if (!known) {
    StepOps ops;
    step_ops_into(model_, dep_, padded, ops);
    for (const OpCost& op : ops) {
      const Priced p = price(op, batch, step_rows);
      add(summed(p));
      if (out) out->emplace_back(op, p);
    }
  } else {
    const auto is_tail = [](const OpCost& op) { return named(op, "final_norm") || named(op, "lm_head"); };
    std::vector<KnownOps>& cache = decode_only ? decode_ops_ : body_ops_;
    if (cache.size() <= static_cast<std::size_t>(tokens)) cache.resize(static_cast<std::size_t>(tokens) + 1);
    KnownOps& body = cache[static_cast<std::size_t>(tokens)];
    // Decode-only: the tail is in the body (its rows are the padded rows). Otherwise it is
    // kept apart, by its own rows.
    KnownOps* tail = nullptr;
    if (!decode_only) {
      if (tail_ops_.size() <= static_cast<std::size_t>(sampled)) tail_ops_.resize(static_cast<std::size_t>(sampled) + 1);
      tail = &tail_ops_[static_cast<std::size_t>(sampled)];
    }
    if (body.prices.empty() || (tail != nullptr && sampled > 0 && tail->prices.empty())) {
      StepOps ops;
      step_ops_into(model_, dep_, padded, ops);
      if (body.prices.empty())
        know_ops(body, ops, batch, step_rows, [&](const OpCost& op) { return decode_only || !is_tail(op); });
      if (tail != nullptr && tail->prices.empty()) know_ops(*tail, ops, batch, step_rows, is_tail);
    }
    add_known(body.prices, 0, body.attention_at);
    // The attention kernels as append_attention lists them: prefill, then decode.
    if (!padded.prefills.empty()) add(summed(price(attention_kernels_.prefill(padded), batch, step_rows)));
    if (padded.decode_seqs > 0) add(summed(price(attention_kernels_.decode(padded), batch, step_rows)));
    add_known(body.prices, body.attention_at, body.prices.size());
    if (tail != nullptr) add_known(tail->prices, 0, tail->prices.size());
  }
  if (cost) {
    cost->compute_ns = ticks_from_seconds(sums[0]);
    cost->memory_ns = ticks_from_seconds(sums[1]);
    cost->comm_ns = ticks_from_seconds(sums[2]);
    cost->overhead_ns = 0;
    cost->total_ns = std::max<Tick>(1, cost->compute_ns + cost->memory_ns + cost->comm_ns);
  }
}

template <class Keep>
void KernelCostModel::know_ops(KnownOps& into, const StepOps& ops, const BatchShape& batch, double step_rows,
                               Keep keep) const {
  // price() reads the batch for attention alone, and the step's rows for all-reduce and
  // MoE, which the key fixes; attention is left out, its place kept. The tail comes last
  // (op_graph.cpp), after the attention kernels.
  bool seen_attention = false, after_attention = false;
  for (const OpCost& op : ops) {
    if (op.kind == OpKind::attention) {
      SS_ASSERT(!after_attention, "a step's attention kernels follow one another");
      seen_attention = true;
      into.attention_at = into.prices.size();
      continue;
    }
    if (seen_attention) after_attention = true;
    if (!keep(op)) continue;
    into.prices.push_back(summed(price(op, batch, step_rows)));
  }
  if (!seen_attention) into.attention_at = into.prices.size();
}

void KernelCostModel::Sums::add(const Priced& p) {
  bucket_s[p.bucket] += p.time_s;
  flops += p.flops;
  bytes += p.bytes;
  fallbacks += p.fallback ? 1 : 0;
}

// The cache entry `key` of `cache`, built on first use from the operators of the shape
// `probe()` makes that `keep` selects (made only then: a shape with a prefill chunk
// allocates, and these are read at every step with a prompt chunk).
template <class Probe, class Keep>
const KernelCostModel::Sums& KernelCostModel::cached_sums(std::vector<Sums>& cache, std::int64_t key, Probe probe,
                                                          Keep keep) const {
  if (cache.size() <= static_cast<std::size_t>(key)) cache.resize(static_cast<std::size_t>(key) + 1);
  Sums& sums = cache[static_cast<std::size_t>(key)];
  if (sums.built) return sums;
  const BatchShape shape = probe();
  if (!shape.empty()) {
    // price_ops' listing (op-graph order, at the padded rows), pricing only the operators
    // kept: the others (the attention kernels, above all) were priced only to be dropped.
    const BatchShape padded = padded_for_graphs(shape);
    const double step_rows = static_cast<double>(padded.total_tokens());
    StepOps ops;
    step_ops_into(model_, dep_, padded, ops);
    for (const OpCost& op : ops)
      if (keep(op)) sums.add(price(op, shape, step_rows));
  }
  sums.built = true;
  return sums;
}

const KernelCostModel::Sums& KernelCostModel::decode_rest(std::int64_t rows) const {
  const auto probe = [rows] {
    BatchShape shape;
    shape.decode_seqs = rows;
    return shape;
  };
  return cached_sums(decode_rest_, rows, probe, [](const OpCost& op) { return !named(op, "attn_decode"); });
}

const KernelCostModel::Sums& KernelCostModel::mixed_rest(std::int64_t tokens) const {
  const auto probe = [tokens] {  // one chunk of every token: the same rows through every operator
    BatchShape shape;
    shape.prefills.push_back({tokens, 0, true});
    return shape;
  };
  return cached_sums(mixed_rest_, tokens, probe, [](const OpCost& op) {
    return !(named(op, "attn_prefill") || named(op, "attn_decode") || named(op, "final_norm") || named(op, "lm_head"));
  });
}

const KernelCostModel::Sums& KernelCostModel::sampled_tail(std::int64_t sampled) const {
  const auto probe = [sampled] {  // `sampled` rows that all reach the final norm and lm_head
    BatchShape shape;
    if (sampled > 0) {
      shape.prefills.push_back({sampled, 0, true});
      shape.extra_sampled_tokens = sampled - 1;
    }
    return shape;
  };
  return cached_sums(sampled_tail_, sampled, probe,
                     [](const OpCost& op) { return named(op, "final_norm") || named(op, "lm_head"); });
}

StepCost KernelCostModel::assemble(const Sums& a, const Sums& b, double attention_memory_s,
                                   double attention_compute_s) const {
  StepCost cost;
  cost.compute_ns = ticks_from_seconds(a.bucket_s[0] + b.bucket_s[0] + attention_compute_s);
  cost.memory_ns = ticks_from_seconds(a.bucket_s[1] + b.bucket_s[1] + attention_memory_s);
  cost.comm_ns = ticks_from_seconds(a.bucket_s[2] + b.bucket_s[2]);
  cost.total_ns = std::max<Tick>(1, cost.compute_ns + cost.memory_ns + cost.comm_ns);
  cost.table_fallback_ops = a.fallbacks + b.fallbacks;
  cost.flops = a.flops + b.flops;
  cost.bytes = a.bytes + b.bytes;
  return cost;
}

KernelCostModel::PrefillAttention KernelCostModel::prefill_attention(const BatchShape& batch) const {
  const auto price = [&] {
    const double t = *prefill_attention_seconds(batch) * layers_;
    const RooflineCostModel::OpBounds b = roofline_.op_bounds(attention_kernels_.prefill(batch));
    return PrefillAttention{true, t, b.compute_s > b.memory_s};
  };
  // Both depend on the step's chunks alone: one prompt chunk without a cached prefix -- most
  // steps with a prompt, where nothing is shared -- is priced once per length.
  const PrefillChunk& first = batch.prefills.front();
  if (batch.prefills.size() != 1 || first.past_tokens != 0 || first.new_tokens > kMaxCachedRows) return price();
  const auto n = static_cast<std::size_t>(first.new_tokens);
  if (single_prompt_attention_.size() <= n) single_prompt_attention_.resize(n + 1);
  PrefillAttention& known = single_prompt_attention_[n];
  if (!known.known) known = price();
  return known;
}

StepCost KernelCostModel::step_cost(const BatchShape& batch) const {
  SS_ASSERT(!batch.empty(), "a step computes at least one token");
  const bool decode_only = batch.prefills.empty() && batch.extra_sampled_tokens == 0;
  static const Sums kNone{};
  if (decode_only) {
    // Most steps of a run: every operator but attention depends on the padded rows alone.
    const std::int64_t rows = graph_rows(batch.decode_seqs);
    const auto attention = decode_attention_seconds(batch.decode_seqs, batch.decode_context_sum);
    if (attention && rows <= kMaxCachedRows) return assemble(decode_rest(rows), kNone, *attention * layers_, 0);
  } else if (!model_.is_mla() && tables_->context_attention && tables_->generation_attention) {
    const std::int64_t tokens = batch.total_tokens();
    const auto sampled = static_cast<std::int64_t>(sampled_rows(batch));
    if (tokens <= kMaxCachedRows && sampled <= kMaxCachedRows) {
      // Attention's time goes to its bound's bucket: prefill attention is compute-bound
      // past a few hundred tokens, decode attention memory-bound (as the breakdown says).
      double compute_s = 0, memory_s = 0;
      if (!batch.prefills.empty()) {
        const PrefillAttention a = prefill_attention(batch);
        (a.compute_bound ? compute_s : memory_s) += a.seconds;
      }
      if (batch.decode_seqs > 0) memory_s += *decode_attention_seconds(batch.decode_seqs, batch.decode_context_sum) * layers_;
      return assemble(mixed_rest(tokens), sampled_tail(sampled), memory_s, compute_s);
    }
  }
  StepCost cost;
  price_ops(batch, nullptr, &cost);
  return cost;
}

void KernelCostModel::decode_run_costs(std::int64_t seqs, std::int64_t context_sum, std::span<StepCost> out) const {
  StepCost shared;
  std::vector<Tick> memory_ns(out.size());
  if (!decode_run_memory_costs(seqs, context_sum, shared, memory_ns))
    return CostModel::decode_run_costs(seqs, context_sum, out);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = run_step_cost(shared, memory_ns[k]);
}

bool KernelCostModel::decode_run_memory_costs(std::int64_t seqs, std::int64_t context_sum, StepCost& shared,
                                              std::span<Tick> memory_ns) const {
  // step_cost's decode-only path, with what the steps share worked out once: the padded
  // rows' sums (compute and communication are the same in every step) and the place on
  // the attention curve, which moves up by one token of mean length a step. The same
  // expressions in the same order as step_cost and assemble, so each cost is theirs bit
  // for bit (tests/hardware/kernel_decode_run_test.cpp compares them).
  const std::int64_t rows = graph_rows(seqs);
  if (!tables_->generation_attention || rows > kMaxCachedRows || seqs > kMaxCachedRows || memory_ns.empty())
    return false;
  static const Sums kNone{};
  const Sums& a = decode_rest(rows);
  shared = StepCost{};
  shared.compute_ns = ticks_from_seconds(a.bucket_s[0] + kNone.bucket_s[0] + 0.0);
  shared.comm_ns = ticks_from_seconds(a.bucket_s[2] + kNone.bucket_s[2]);
  shared.table_fallback_ops = a.fallbacks + kNone.fallbacks;
  shared.flops = a.flops + kNone.flops;
  shared.bytes = a.bytes + kNone.bytes;
  const double memory_rest_s = a.bucket_s[1] + kNone.bucket_s[1];
  const std::vector<double>& curve = decode_curve(seqs);
  const double* lengths = decode_lengths_.data();
  const std::size_t measured = decode_lengths_.size();
  const double shortest = lengths[0], longest = lengths[measured - 1];
  const double b = static_cast<double>(seqs);
  const double layers = static_cast<double>(layers_);  // the product's int operand, converted once
  std::size_t hi = 0;  // first measured length above s; s never decreases along the run
  // decode_curve_at's segment [from, top], its terms kept while s stays in it (the same
  // doubles, so the same result). A width that is a power of two (the tables' lengths
  // usually are) divides as its reciprocal multiplies: both scale exactly. top stays 0
  // until a segment is entered (s >= 1). s rises with k, so once a step lies in the
  // segment, a later one lies in it while it is below the top.
  CurveSegment seg;
  std::size_t segment = 0;
  // One step's attention time at mean length s, entering s's segment where it has one.
  const auto attention_at = [&](double s) -> double {
    if (!(s < seg.top)) {
      if (s < shortest || s > longest) return decode_attention_grid_s(b, s);
      while (hi < measured && lengths[hi] <= s) ++hi;
      if (hi == measured) return curve[measured - 1];
      if (hi != segment) {
        segment = hi;
        seg.from = lengths[hi - 1];
        seg.width = lengths[hi] - lengths[hi - 1];
        seg.base = curve[hi - 1];
        seg.rise = curve[hi] - curve[hi - 1];
        seg.top = lengths[hi];
        // A normal double with no mantissa bits is a power of two (a subnormal one takes
        // the division, which gives the same quotient).
        const auto bits = std::bit_cast<std::uint64_t>(seg.width);
        seg.width_power_of_two = std::isnormal(seg.width) && (bits & ((std::uint64_t{1} << 52) - 1)) == 0;
        seg.reciprocal = 1.0 / seg.width;
      }
    }
    return seg.at(s);
  };
  // double(sum) / b + 1.0 (decode_attention_seconds), mostly without its division: most
  // steps lie in a stretch where it is double(whole + j) + fraction, and most of those in
  // the segment of the step before, which price_segment_steps prices with the segment's
  // terms in registers, two steps at a time.
  const auto n = static_cast<std::int64_t>(memory_ns.size());
  MeanLengthWalk mean_length(context_sum, seqs, n);
  std::int64_t k = 0;
  while (k < n) {
    const std::int64_t stretch = mean_length.steps_without_division(n - k);
    if (stretch == 0) {
      memory_ns[static_cast<std::size_t>(k++)] = ticks_from_seconds(memory_rest_s + attention_at(mean_length.next()) * layers);
      continue;
    }
    std::int64_t whole = mean_length.whole();
    const double fraction = mean_length.fraction();
    mean_length.skip(stretch);
    const std::int64_t end = k + stretch;
    Tick* out = memory_ns.data();
    while (k < end) {
      const double first = static_cast<double>(whole) + fraction;
      out[k++] = ticks_from_seconds(memory_rest_s + attention_at(first) * layers);
      ++whole;
      const std::int64_t first_after = seg.width_power_of_two
          ? price_segment_steps<true>(seg, memory_rest_s, layers, whole, fraction, k, end, out)
          : price_segment_steps<false>(seg, memory_rest_s, layers, whole, fraction, k, end, out);
      whole += first_after - k;
      k = first_after;
    }
  }
  return true;
}

std::vector<OpTiming> KernelCostModel::breakdown(const BatchShape& batch) const {
  std::vector<std::pair<OpCost, Priced>> priced;
  price_ops(batch, &priced, nullptr);
  std::vector<OpTiming> out;
  for (const auto& [op, p] : priced) {
    OpTiming t = timing_of_work(op);
    t.compute_s = p.compute_s;
    t.memory_s = p.memory_s;
    t.comm_s = p.bucket == 2 ? p.time_s : 0.0;
    t.time_s = p.time_s;
    t.bound = p.bucket == 2 ? "communication" : (p.bucket == 0 ? "compute" : "memory");
    t.source = p.source;
    t.link = roofline_.link_of(op);
    t.algorithm = p.algorithm;
    out.push_back(std::move(t));
  }
  return out;
}

std::string KernelCostModel::describe() const {
  std::ostringstream out;
  out << "kernels (" << tables_->set_name << " tables";
  if (tables_->streaming_bytes_per_s > 0) {
    out << "; elementwise at " << std::lround(tables_->streaming_bytes_per_s / 1e9) << " GB/s";
  }
  if (!graph_sizes_.empty()) out << "; CUDA graphs up to " << graph_sizes_.back() << " sequences";
  if (!tables_->mla_note.empty()) out << "; " << tables_->mla_note;
  if (!tables_->fp8_note.empty()) out << "; " << tables_->fp8_note;
  if (hw_.crosses_domain(dep_.tp)) {
    out << "; all-reduce across machines by NCCL's model, floor "
        << (tables_->nccl_node_all_reduce ? tables_->query.nccl_set + " at " + std::to_string(tables_->query.node_gpus) + " GPUs"
                                          : std::string("the roofline's inside one machine"));
  }
  out << ")";
  return out.str();
}

}  // namespace servesim
