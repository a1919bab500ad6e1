#include "sim/hardware/roofline.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>

#include "sim/core/assert.h"
#include "sim/model/shard.h"

namespace servesim {

Dtype gemm_math(const Deployment& dep) {
  if (dep.weights == Dtype::fp8) return Dtype::fp8;
  if (dep.weights == Dtype::int8 && dep.activations == Dtype::int8) return Dtype::int8;
  return dep.activations == Dtype::fp8 ? Dtype::fp8 : Dtype::bf16;
}

RooflineCostModel::RooflineCostModel(ModelSpec model, HardwareSpec hw, Deployment dep)
    : model_(std::move(model)), hw_(std::move(hw)), dep_(dep), attention_(model_, dep_) {
  SS_ASSERT(hw_.peak_flops_bf16 > 0 && hw_.memory_bandwidth_bytes_per_s > 0,
            "hardware peaks must be checked by the loader");
  SS_ASSERT(hw_.gemm_efficiency > 0 && hw_.attention_efficiency > 0 &&
                hw_.memory_efficiency > 0 && hw_.comm_efficiency > 0,
            "efficiencies must be checked by the loader");
  const bool fp8_math = gemm_math(dep_) == Dtype::fp8 && hw_.peak_flops_fp8 > 0;
  gemm_flops_per_s_ = hw_.peak_flops(gemm_math(dep_)) *
                      (fp8_math && hw_.gemm_efficiency_fp8 > 0 ? hw_.gemm_efficiency_fp8 : hw_.gemm_efficiency);
  attention_flops_per_s_ = hw_.peak_flops(Dtype::bf16) * hw_.attention_efficiency;
  memory_bytes_per_s_ = hw_.memory_bandwidth_bytes_per_s * hw_.memory_efficiency;
  elementwise_bytes_per_s_ =
      hw_.memory_bandwidth_bytes_per_s * hw_.elementwise_bandwidth_efficiency();
  link_bytes_per_s_ = hw_.interconnect_bandwidth_bytes_per_s * hw_.comm_efficiency;
  network_bytes_per_s_ = hw_.network_bandwidth_bytes_per_s * hw_.comm_efficiency;
  all_reduce_crosses_ = hw_.crosses_domain(dep_.tp);
  pp_transfer_crosses_ = dep_.pp > 1 && hw_.crosses_domain(dep_.gpus());
  if (all_reduce_crosses_) {
    // NCCL runs it over the links as they are: its model (nccl_all_reduce.cpp) applies
    // its own per-protocol derating, so the raw datasheet figures go in, not
    // comm_efficiency's (which is fitted to the custom all-reduce inside one machine).
    nccl_group_.ranks = dep_.tp;
    nccl_group_.nodes = (dep_.tp + hw_.interconnect_domain_gpus - 1) / hw_.interconnect_domain_gpus;
    nccl_group_.intra_bytes_per_s = hw_.interconnect_bandwidth_bytes_per_s;
    nccl_group_.network_bytes_per_s = hw_.network_bandwidth_bytes_per_s;
  }
  stage_layers_ = shard_shape(model_, dep_).layers;
}

RooflineCostModel::OpSeconds RooflineCostModel::op_seconds(const OpCost& op) const {
  OpSeconds t;
  if (op.kind == OpKind::communication) {
    const bool pp = op.name == std::string_view("pp_transfer");
    if (pp ? pp_transfer_crosses_ : all_reduce_crosses_) {
      // make_cost_model refuses a group across machines without a network bandwidth.
      if (pp) {
        // One stage's activations to the next stage's GPUs on another machine.
        t.comm_s = network_bytes_per_s_ > 0 ? op.comm_bytes / network_bytes_per_s_ : 0.0;
        t.comm_s += (hw_.interconnect_latency_s + hw_.network_latency_s) * op.count;
        t.algorithm = "send/recv";
      } else {
        const double buffer = all_reduce_buffer_bytes(op);
        const CrossMachine call = cross_machine_all_reduce(buffer, domain_all_reduce_s(buffer));
        t.comm_s = call.time_s * op.count;
        t.algorithm = call.algorithm;
      }
      t.body_s = t.comm_s;
      return t;
    }
    // make_cost_model refuses tp/pp > 1 over a zero-bandwidth link; this only guards
    // the arithmetic.
    t.comm_s = link_bytes_per_s_ > 0 ? op.comm_bytes / link_bytes_per_s_ : 0.0;
    t.comm_s += hw_.interconnect_latency_s * op.count;
    t.body_s = t.comm_s;
    t.algorithm = pp ? "send/recv" : "ring";
    return t;
  }
  const double bytes = op.bytes_read + op.bytes_written;
  // GEMM and attention kernels show a fixed cost per launch (prologue, pipeline fill,
  // epilogue, tail wave) in isolated timings; elementwise kernels' small fixed costs are
  // part of layer_overhead, with the kernels the op graph does not list.
  if (op.kind == OpKind::gemm) t.launch_s = hw_.kernel_overhead_s * op.count;
  if (op.kind == OpKind::attention) t.launch_s = hw_.attention_launch_s() * op.count;
  switch (op.kind) {
    case OpKind::gemm:
      // A tiled GEMM overlaps loading its operands with multiplying them, but not
      // perfectly: near the ridge (where the two take as long) it takes longer than
      // either. The quadrature sum is max() far from the ridge and sqrt(2) x max at it.
      t.compute_s = op.flops / gemm_flops_per_s_;
      t.memory_s = bytes / memory_bytes_per_s_;
      t.body_s = std::hypot(t.compute_s, t.memory_s);
      break;
    case OpKind::attention: {
      if (op.name == std::string_view("attn_decode")) return decode_attention_seconds(op, decode_kv_bytes_per_s(op.rows));
      // Prefill: every query row also pays a fixed cost worth `attention_row_overhead_keys` keys.
      t.compute_s = (op.flops + hw_.attention_row_overhead_keys * op.per_key_flops) / attention_flops_per_s_;
      t.memory_s = bytes / memory_bytes_per_s_;
      t.body_s = std::max(t.compute_s, t.memory_s);
      break;
    }
    case OpKind::elementwise:
      // Vector units at ~1 FLOP per byte: always memory-bound, only the bytes are timed.
      t.memory_s = bytes / elementwise_bytes_per_s_;
      t.body_s = t.memory_s;
      break;
    case OpKind::communication:
      break;
  }
  return t;
}

RooflineCostModel::OpBounds RooflineCostModel::op_bounds(const OpCost& op) const {
  const OpSeconds s = op_seconds(op);
  return {s.compute_s, s.memory_s, s.comm_s, s.body_s, s.launch_s};
}

OpTiming RooflineCostModel::time_op(const OpCost& op) const {
  const OpSeconds s = op_seconds(op);
  OpTiming t = timing_of_work(op);
  t.compute_s = s.compute_s;
  t.memory_s = s.memory_s;
  t.comm_s = s.comm_s;
  t.overhead_s = s.launch_s;
  t.time_s = s.body_s + s.launch_s;
  if (op.kind == OpKind::communication) {
    t.bound = "communication";
    t.link = link_of(op);
    t.algorithm = s.algorithm;
  } else {
    t.bound = s.compute_s > s.memory_s ? "compute" : "memory";
  }
  return t;
}

double RooflineCostModel::op_time_s(const OpCost& op) const {
  const OpSeconds s = op_seconds(op);
  return s.body_s + s.launch_s;
}

const char* RooflineCostModel::link_of(const OpCost& op) const {
  if (op.kind != OpKind::communication) return "";
  const bool crosses = op.name == std::string_view("pp_transfer") ? pp_transfer_crosses_ : all_reduce_crosses_;
  return crosses ? "network" : "nvlink";
}

const char* RooflineCostModel::algorithm_of(const OpCost& op) const {
  if (op.kind != OpKind::communication) return "";
  return op_seconds(op).algorithm;
}

double RooflineCostModel::all_reduce_buffer_bytes(const OpCost& op) const {
  const double g = dep_.tp;
  return g > 1 && op.count > 0 ? op.comm_bytes / op.count * g / (2.0 * (g - 1)) : 0.0;
}

double RooflineCostModel::domain_all_reduce_s(double buffer_bytes) const {
  // The ring inside one machine of k GPUs, as this model prices a tp = k group.
  const double k = hw_.interconnect_domain_gpus;
  return 2.0 * (k - 1) / k * buffer_bytes / link_bytes_per_s_ + hw_.interconnect_latency_s;
}

RooflineCostModel::CrossMachine RooflineCostModel::cross_machine_all_reduce(double buffer_bytes, double floor_s) const {
  SS_ASSERT(all_reduce_crosses_, "an all-reduce across machines");
  const NcclPrice nccl = nccl_all_reduce(nccl_group_, buffer_bytes);
  static constexpr const char* kNccl[2][3] = {{"NCCL tree/LL", "NCCL tree/LL128", "NCCL tree/Simple"},
                                              {"NCCL ring/LL", "NCCL ring/LL128", "NCCL ring/Simple"}};
  if (floor_s > nccl.time_s) return {floor_s, "one machine's all-reduce (floor)"};
  return {nccl.time_s, kNccl[nccl.algorithm == NcclAlgorithm::tree ? 0 : 1][static_cast<int>(nccl.protocol)]};
}

double RooflineCostModel::overhead_s() const {
  return hw_.step_overhead_s + hw_.layer_overhead_s * stage_layers_;
}

StepCost RooflineCostModel::step_cost(const BatchShape& batch) const {
  SS_ASSERT(!batch.empty(), "a step computes at least one token");
  if (batch.prefills.empty() && batch.extra_sampled_tokens == 0 && batch.decode_seqs <= kMaxTemplateSeqs)
    return decode_step_cost(batch);
  const auto sampled = static_cast<std::int64_t>(sampled_rows(batch));
  if (const Row* rows = tokens_template(batch, sampled)) return mixed_step_cost(batch, rows, sampled);
  StepOps ops;  // on the stack: this runs once per engine step
  step_ops_into(model_, dep_, batch, ops);
  return cost_of(ops.view());
}

double RooflineCostModel::decode_kv_bytes_per_s(double rows) const {
  return hw_.memory_bandwidth_bytes_per_s * hw_.decode_kv_efficiency(rows);
}

RooflineCostModel::OpSeconds RooflineCostModel::decode_attention_seconds(const OpCost& op,
                                                                        double kv_bytes_per_s) const {
  // One new token per sequence: the KV cache is streamed, at a bandwidth that depends on
  // how many sequences the kernel spreads over the GPU (decode_kv_bytes_per_s).
  OpSeconds t;
  t.launch_s = hw_.attention_launch_s() * op.count;
  t.compute_s = op.flops / attention_flops_per_s_;
  t.memory_s = (op.bytes_read + op.bytes_written + hw_.decode_attention_row_overhead_keys * op.per_key_bytes) / kv_bytes_per_s;
  t.body_s = std::max(t.compute_s, t.memory_s);
  return t;
}

RooflineCostModel::PricedOp RooflineCostModel::priced(const OpCost& op) const { return priced(op, op_seconds(op)); }

RooflineCostModel::PricedOp RooflineCostModel::priced(const OpCost& op, const OpSeconds& t) const {
  PricedOp p;
  p.flops = op.flops;
  p.bytes = op.bytes_read + op.bytes_written;
  p.launch_s = t.launch_s;
  p.body_s = t.body_s;
  if (op.kind == OpKind::communication) {
    p.bucket = 2;
  } else {
    p.bucket = t.compute_s > t.memory_s ? 0 : 1;
  }
  return p;
}

void RooflineCostModel::Sums::add(const PricedOp& p) {
  flops += p.flops;
  bytes += p.bytes;
  launch_s += p.launch_s;
  (p.bucket == 2 ? comm_s : p.bucket == 0 ? compute_s : memory_s) += p.body_s;
}

StepCost RooflineCostModel::assemble(const Sums& sums) const {
  StepCost cost;
  cost.compute_ns = ticks_from_seconds(sums.compute_s);
  cost.memory_ns = ticks_from_seconds(sums.memory_s);
  cost.comm_ns = ticks_from_seconds(sums.comm_s);
  cost.overhead_ns = ticks_from_seconds(overhead_s() + sums.launch_s);
  cost.flops = sums.flops;
  cost.bytes = sums.bytes;
  cost.total_ns = std::max<Tick>(
      1, cost.compute_ns + cost.memory_ns + cost.comm_ns + cost.overhead_ns);
  return cost;
}

StepCost RooflineCostModel::cost_of(std::span<const OpCost> ops) const {
  Sums sums;
  for (const OpCost& op : ops) sums.add(priced(op));
  return assemble(sums);
}

StepCost RooflineCostModel::decode_step_cost(const BatchShape& batch) const {
  const DecodeTemplate& t = decode_template(batch);
  return decode_step_cost(t, decode_attention_priced(t, batch));
}

void RooflineCostModel::decode_run_costs(std::int64_t seqs, std::int64_t context_sum, std::span<StepCost> out) const {
  if (seqs > kMaxTemplateSeqs) return CostModel::decode_run_costs(seqs, context_sum, out);
  BatchShape batch;
  batch.decode_seqs = seqs;
  batch.decode_context_sum = context_sum;
  const DecodeTemplate& t = decode_template(batch);
  // The steps differ in decode attention alone, whose launches do not depend on the
  // context: of the six sums, only its bucket's, the FLOPs and the bytes change from step
  // to step, while its bucket stays. Those three are added in operator order as ever; the
  // other sums and their rounded times are the first step's.
  StepCost first;
  int bucket = -1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    batch.decode_context_sum = context_sum + static_cast<std::int64_t>(k) * seqs;
    const PricedOp attention = decode_attention_priced(t, batch);
    if (k == 0 || attention.bucket != bucket) {
      out[k] = decode_step_cost(t, attention);
      if (k == 0) {
        first = out[k];
        bucket = attention.bucket;
      }
      continue;
    }
    const auto b = static_cast<std::size_t>(bucket);  // 0 compute, 1 memory
    double body = (bucket == 0 ? t.before_attention.compute_s : t.before_attention.memory_s) + attention.body_s;
    double flops = t.before_attention.flops + attention.flops;
    double bytes = t.before_attention.bytes + attention.bytes;
    for (std::size_t i = 0; i < t.after_count; ++i) {
      body += t.after[i][b];
      flops += t.after[i][4];
      bytes += t.after[i][5];
    }
    StepCost c = first;
    (bucket == 0 ? c.compute_ns : c.memory_ns) = ticks_from_seconds(body);
    c.flops = flops;
    c.bytes = bytes;
    c.total_ns = std::max<Tick>(1, c.compute_ns + c.memory_ns + c.comm_ns + c.overhead_ns);
    out[k] = c;
  }
}

const RooflineCostModel::DecodeTemplate& RooflineCostModel::decode_template(const BatchShape& batch) const {
  const auto seqs = static_cast<std::size_t>(batch.decode_seqs);
  if (decode_templates_.size() <= seqs) decode_templates_.resize(seqs + 1);
  std::unique_ptr<DecodeTemplate>& slot = decode_templates_[seqs];
  if (!slot) {
    StepOps ops;
    step_ops_into(model_, dep_, batch, ops);
    auto t = std::make_unique<DecodeTemplate>();
    t->size = ops.size();
    t->attention_index = ops.size();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const OpCost& op = ops.view()[i];
      if (op.name == std::string_view("attn_decode")) t->attention_index = i;
      t->ops[i] = priced(op);
    }
    SS_ASSERT(t->attention_index < t->size, "a decode step lists its attention operator");
    const OpCost& attention = ops.view()[t->attention_index];
    SS_ASSERT(attention.kind == OpKind::attention, "decode attention is an attention operator");
    for (std::size_t i = 0; i < t->attention_index; ++i) t->before_attention.add(t->ops[i]);
    for (std::size_t i = t->attention_index + 1; i < t->size; ++i) t->after[t->after_count++] = row_of(t->ops[i]);
    t->attention_rows = attention.rows;
    t->attention_kv_bytes_per_s = decode_kv_bytes_per_s(attention.rows);
    slot = std::move(t);
  }
  return *slot;
}

RooflineCostModel::Row RooflineCostModel::row_of(const PricedOp& p) {
  return {p.bucket == 0 ? p.body_s : 0.0, p.bucket == 1 ? p.body_s : 0.0, p.bucket == 2 ? p.body_s : 0.0,
          p.launch_s, p.flops, p.bytes};
}

const RooflineCostModel::Row* RooflineCostModel::tokens_template(const BatchShape& batch, std::int64_t sampled) const {
  const std::int64_t tokens = batch.total_tokens();
  if (model_.is_mla() || tokens > kMaxTemplateTokens || sampled > kMaxTemplateSampled) return nullptr;
  const auto at = static_cast<std::size_t>(tokens);
  const auto tail_at = static_cast<std::size_t>(sampled);
  const bool tail_wanted = sampled > 0;
  if (at < tokens_built_.size() && tokens_built_[at] && (!tail_wanted || (tail_at < tail_built_.size() && tail_built_[tail_at])))
    return &tokens_rows_[at * tokens_stride_];
  // Both parts from this step's list: [before] [attention kernels] [after] [final_norm lm_head].
  StepOps ops;
  step_ops_into(model_, dep_, batch, ops);
  const std::span<const OpCost> list = ops.view();
  const auto is_kernel = [](const OpCost& op) {
    return op.name == std::string_view("attn_prefill") || op.name == std::string_view("attn_decode");
  };
  std::size_t first = 0;
  while (first < list.size() && !is_kernel(list[first])) ++first;
  std::size_t past = first;
  while (past < list.size() && is_kernel(list[past])) ++past;
  std::size_t tail = past;
  while (tail < list.size() && list[tail].name != std::string_view("final_norm")) ++tail;
  const std::size_t stride = 1 + (tail - past);
  if (first == list.size() || list.size() - tail != (tail_wanted ? kTailRows : 0) ||
      (tail_wanted && list[tail + 1].name != std::string_view("lm_head")) ||
      (tokens_stride_ != 0 && stride != tokens_stride_))
    return nullptr;
  tokens_stride_ = stride;
  if (tokens_built_.size() <= at) {
    tokens_built_.resize(at + 1, 0);
    tokens_rows_.resize((at + 1) * stride);
  }
  Row* rows = &tokens_rows_[at * stride];
  if (!tokens_built_[at]) {
    Sums before;
    for (std::size_t i = 0; i < first; ++i) before.add(priced(list[i]));
    rows[0] = {before.compute_s, before.memory_s, before.comm_s, before.launch_s, before.flops, before.bytes};
    for (std::size_t i = past; i < tail; ++i) rows[1 + i - past] = row_of(priced(list[i]));
    tokens_built_[at] = 1;
  }
  if (tail_wanted) {
    if (tail_built_.size() <= tail_at) {
      tail_built_.resize(tail_at + 1, 0);
      tail_rows_.resize((tail_at + 1) * kTailRows);
    }
    if (!tail_built_[tail_at]) {
      tail_rows_[tail_at * kTailRows] = row_of(priced(list[tail]));
      tail_rows_[tail_at * kTailRows + 1] = row_of(priced(list[tail + 1]));
      tail_built_[tail_at] = 1;
    }
  }
  return rows;
}

StepCost RooflineCostModel::mixed_step_cost(const BatchShape& batch, const Row* rows, std::int64_t sampled) const {
  Sums sums{rows[0][0], rows[0][1], rows[0][2], rows[0][3], rows[0][4], rows[0][5]};
  if (!batch.prefills.empty()) sums.add(priced(attention_.prefill(batch)));
  if (batch.decode_seqs > 0) sums.add(priced(attention_.decode(batch)));
  for (std::size_t i = 1; i < tokens_stride_; ++i) sums.add(rows[i]);
  if (sampled > 0) {
    const Row* tail = &tail_rows_[static_cast<std::size_t>(sampled) * kTailRows];
    for (std::size_t i = 0; i < kTailRows; ++i) sums.add(tail[i]);
  }
  return assemble(sums);
}

RooflineCostModel::PricedOp RooflineCostModel::decode_attention_priced(const DecodeTemplate& t,
                                                                      const BatchShape& batch) const {
  const OpCost attention = attention_.decode(batch);
  const double kv_bytes_per_s =
      attention.rows == t.attention_rows ? t.attention_kv_bytes_per_s : decode_kv_bytes_per_s(attention.rows);
  return priced(attention, decode_attention_seconds(attention, kv_bytes_per_s));
}

StepCost RooflineCostModel::decode_step_cost(const DecodeTemplate& t, const PricedOp& attention) const {
  Sums sums = t.before_attention;
  sums.add(attention);
  for (std::size_t i = 0; i < t.after_count; ++i) sums.add(t.after[i]);
  return assemble(sums);
}

std::vector<OpTiming> RooflineCostModel::breakdown(const BatchShape& batch) const {
  std::vector<OpTiming> out;
  if (batch.empty()) return out;
  for (const OpCost& op : step_ops(model_, dep_, batch)) out.push_back(time_op(op));
  out.push_back(overhead_timing("overhead", overhead_s()));
  return out;
}

std::string RooflineCostModel::describe() const {
  std::ostringstream s;
  s << "roofline(" << model_.name << " on " << hw_.name << ", tp=" << dep_.tp
    << " pp=" << dep_.pp << (dep_.ep > 1 ? " ep=" + std::to_string(dep_.ep) : std::string())
    << ", weights " << dtype_name(dep_.weights) << ", kv "
    << dtype_name(dep_.kv) << ")";
  return s.str();
}

}  // namespace servesim
