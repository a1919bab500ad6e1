#include "sim/hardware/table_cost_model.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/model/shard.h"

namespace servesim {

namespace {

// Our operator -> Vidur's. Vidur times one residual add per layer ("add"); our graph has
// two of the same shape, and each takes the measured add time.
const std::pair<std::string_view, const char*> kVidurName[] = {
    {"embedding", "emb"},           {"input_norm", "input_layernorm"},
    {"qkv_proj", "attn_pre_proj"},  {"o_proj", "attn_post_proj"},
    {"attn_residual_add", "add"},   {"post_attn_norm", "post_attention_layernorm"},
    {"gate_up_proj", "mlp_up_proj"}, {"up_proj", "mlp_up_proj"},
    {"silu_mul", "mlp_act"},        {"gelu", "mlp_act"},
    {"down_proj", "mlp_down_proj"}, {"mlp_residual_add", "add"},
};

const char* vidur_name(std::string_view ours) {
  for (const auto& [o, v] : kVidurName)
    if (o == ours) return v;
  return nullptr;
}

[[noreturn]] void fail(const std::string& message) { throw ConfigError("", 0, "cost_model.table", message); }

// Rotary embedding: vLLM runs it as its own kernel over Q and K, which our op graph folds
// into attention; the table times it, and its roofline fallback reads and writes Q and K.
OpCost rope_op(const ModelSpec& model, const Deployment& dep, double rows) {
  const ShardShape s = shard_shape(model, dep);
  const double per_layer = rows * (s.q_heads + s.kv_heads) * model.head_dim * bytes_per_element(dep.activations);
  OpCost op{"attn_rope", OpKind::elementwise};
  op.bytes_read = per_layer * s.layers;
  op.bytes_written = per_layer * s.layers;
  op.count = s.layers;
  op.rows = rows;
  return op;
}

}  // namespace

TableCostModel::TableCostModel(ModelSpec model, HardwareSpec hw, Deployment dep, VidurOpTable table)
    : roofline_(model, hw, dep), table_(std::move(table)) {
  const auto mismatch = [&](const char* what, long table_value, long model_value) {
    if (table_value != model_value) {
      fail(table_.path + " was measured for " + what + " " + std::to_string(table_value) +
           ", the model " + model.name + " has " + std::to_string(model_value));
    }
  };
  // Vidur's mlp.csv profiles dense Llama-style layers: no experts, no latent attention.
  if (model.is_moe() || model.is_mla()) {
    fail(table_.path + " profiles dense grouped-query layers; " + model.name +
         " uses " + (model.is_moe() ? "mixture-of-experts MLPs" : "latent attention") +
         ": use the roofline");
  }
  mismatch("n_embd (hidden size)", table_.n_embd, model.hidden_size);
  mismatch("n_head (attention heads)", table_.n_head, model.num_attention_heads);
  mismatch("n_kv_head (KV heads)", table_.n_kv_head, model.num_kv_heads);
  mismatch("n_expanded_embd (MLP width)", table_.n_expanded_embd, model.intermediate_size);
  mismatch("use_gated_mlp", table_.gated_mlp, model.gated_mlp);
  if (dep.weights != Dtype::bf16 || dep.activations != Dtype::bf16) {
    fail(table_.path + " holds 16-bit kernels; use the roofline for " +
         std::string(dtype_name(dep.weights)) + " weights");
  }
  const auto it = table_.series.find(dep.tp);
  if (it == table_.series.end()) {
    std::string have;
    for (int tp : table_.tp_degrees()) have += (have.empty() ? "" : ", ") + std::to_string(tp);
    fail(table_.path + " has no rows for tp=" + std::to_string(dep.tp) + " (it has tp " + have + ")");
  }
  series_ = &it->second;
  stage_layers_ = shard_shape(model, dep).layers;
}

std::vector<OpTiming> TableCostModel::time_ops(const BatchShape& batch, int* fallbacks) const {
  std::vector<OpCost> ops = step_ops(roofline_.model(), roofline_.deployment(), batch);
  // Rope runs right after the QKV projection.
  const auto qkv = std::find_if(ops.begin(), ops.end(),
                                [](const OpCost& o) { return std::string_view(o.name) == "qkv_proj"; });
  if (qkv != ops.end() && series_->count("attn_rope")) {
    const double rows = qkv->rows;
    ops.insert(qkv + 1, rope_op(roofline_.model(), roofline_.deployment(), rows));
  }
  std::vector<OpTiming> out;
  out.reserve(ops.size() + 1);
  for (const OpCost& op : ops) {
    OpTiming t = roofline_.time_op(op);
    const char* vidur = std::string_view(op.name) == "attn_rope" ? "attn_rope" : vidur_name(op.name);
    const auto s = vidur ? series_->find(vidur) : series_->end();
    if (s != series_->end()) {
      lookups_.fetch_add(1, std::memory_order_relaxed);
      if (const auto ms = interpolate_ms(s->second, op.rows)) {
        // Per layer per GPU, for each of the op's launches (its layers).
        t.time_s = *ms * 1e-3 * op.count;
        t.overhead_s = 0;  // measured kernel times include their launch
        t.source = "table";
      } else {
        fallbacks_.fetch_add(1, std::memory_order_relaxed);
        ++*fallbacks;
        t.source = "roofline (outside table)";
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

StepCost TableCostModel::step_cost(const BatchShape& batch) const {
  SS_ASSERT(!batch.empty(), "a step computes at least one token");
  int fallbacks = 0;
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = roofline_.overhead_s();
  double flops = 0, bytes = 0;
  for (const OpTiming& t : time_ops(batch, &fallbacks)) {
    flops += t.flops;
    bytes += t.bytes;
    overhead_s += t.overhead_s;
    const double body = t.time_s - t.overhead_s;
    if (t.bound == "communication") {
      comm_s += body;
    } else if (t.bound == "compute") {
      compute_s += body;
    } else {
      memory_s += body;
    }
  }
  StepCost cost;
  cost.compute_ns = ticks_from_seconds(compute_s);
  cost.memory_ns = ticks_from_seconds(memory_s);
  cost.comm_ns = ticks_from_seconds(comm_s);
  cost.overhead_ns = ticks_from_seconds(overhead_s);
  cost.total_ns = std::max<Tick>(1, cost.compute_ns + cost.memory_ns + cost.comm_ns + cost.overhead_ns);
  cost.table_fallback_ops = fallbacks;
  cost.flops = flops;
  cost.bytes = bytes;
  return cost;
}

std::vector<OpTiming> TableCostModel::breakdown(const BatchShape& batch) const {
  if (batch.empty()) return {};
  int fallbacks = 0;
  std::vector<OpTiming> out = time_ops(batch, &fallbacks);
  out.push_back(overhead_timing("overhead", roofline_.overhead_s()));
  return out;
}

std::string TableCostModel::describe() const {
  std::ostringstream s;
  s << "table(" << table_.path << ", tp=" << roofline_.deployment().tp << "; "
    << roofline_.describe() << " for the rest)";
  return s.str();
}

}  // namespace servesim
