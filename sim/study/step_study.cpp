#include "sim/study/step_study.h"

#include <string>
#include <utility>

#include "sim/core/errors.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/model/dtype.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

Dtype parse_step_dtype(const std::string& text, const std::string& key) {
  if (const auto d = parse_dtype(text)) return *d;
  throw ConfigError("", 0, key, "must be bf16, fp8, int8 or int4, got '" + text + "'");
}

namespace {

// The most tokens a chunk may have, as the CLI caps its counts: sums of products stay far
// inside int64.
constexpr std::int64_t kMaxStepTokens = 1'000'000'000;

void check_step_deployment(const Deployment& dep) {
  for (const auto& [key, value] : {std::pair<const char*, int>{"tp", dep.tp}, {"pp", dep.pp}, {"ep", dep.ep}})
    if (value < 1) throw ConfigError("", 0, key, "must be at least 1, got " + std::to_string(value));
  if (dep.micro_batches < 0) throw ConfigError("", 0, "micro_batches", "must be 0 or more");
  // As a scenario's micro_batches: one stage has no pipeline to split the batch across.
  if (dep.micro_batches > 0 && dep.pp < 2) throw ConfigError("", 0, "micro_batches", "needs pp 2 or more");
  if (dep.activations != Dtype::bf16 && dep.activations != Dtype::fp8)
    throw ConfigError("", 0, "activations", "must be bf16 or fp8");
  if (dep.kv == Dtype::int4 || dep.kv == Dtype::int8)
    throw ConfigError("", 0, "kv", "must be bf16 or fp8 (no serving engine stores an int KV cache here)");
}

}  // namespace

void check_step_request(const StepRequest& request) {
  check_step_deployment(request.dep);
  for (const PrefillChunk& c : request.batch.prefills)
    if (c.new_tokens < 1 || c.past_tokens < 0 || c.new_tokens > kMaxStepTokens || c.past_tokens > kMaxStepTokens)
      throw ConfigError("", 0, "prefill",
                        "a chunk is 1 to 1000000000 new tokens over 0 to 1000000000 cached, got " + std::to_string(c.new_tokens) +
                            " over " + std::to_string(c.past_tokens));
  if (request.batch.decode_seqs < 0 || request.batch.decode_context_sum < 0)
    throw ConfigError("", 0, "decode", "sequences and context tokens must not be negative");
  if (request.batch.empty()) throw ConfigError("", 0, "batch", "give at least one prefill chunk or decode sequence");
  const std::string& chosen = request.cost_model;
  if (!chosen.empty() && chosen != "roofline" && chosen != "kernels") {
    throw ConfigError("", 0, "cost_model", "must be roofline or kernels, got '" + chosen + "'");
  }
  const std::string& engine = request.engine;
  if (engine != "vllm" && engine != "sglang" && engine != "trtllm") {
    throw ConfigError("", 0, "engine", "must be vllm, sglang or trtllm, got '" + engine + "'");
  }
  if (request.cuda_graph_max_batch < 0) throw ConfigError("", 0, "cuda_graphs", "must be 0 or more");
  if (!request.table_path.empty() && !chosen.empty())
    throw ConfigError("", 0, "table", "give a table or a cost model, not both");
}

StepStudy price_step(const StepRequest& request) {
  check_step_request(request);
  const std::string& chosen = request.cost_model;
  const std::string& engine = request.engine;
  StepStudy s;
  s.model = load_model(request.model);
  s.hardware = load_hardware(request.hardware);
  s.dep = request.dep;
  s.batch = request.batch;
  CostModelSpec spec;
  if (!request.table_path.empty()) {
    spec.kind = "table";
    spec.table_path = request.table_path;
  } else if (chosen != "roofline") {
    resolve_kernel_cost_model(spec, chosen == "kernels", resource_root() + "/data/kernels", s.model, s.hardware,
                              s.dep, engine, request.engine_version, request.cuda_graph_max_batch);
    s.cost_model_note = spec.kind == "kernels" ? spec.kernel_set_note : spec.why;
  }
  const auto cost_model = make_cost_model(spec, s.model, s.hardware, s.dep);
  s.cost = cost_model->step_cost(s.batch);
  s.ops = cost_model->breakdown(s.batch);
  s.cost_model = cost_model->describe();
  return s;
}

}  // namespace servesim
