#include "sim/hardware/cost_model_spec.h"

#include <functional>

#include "sim/core/errors.h"
#include "sim/core/registry.h"
#include "sim/hardware/pipeline_cost_model.h"
#include "sim/hardware/roofline.h"
#include "sim/hardware/simple_cost_models.h"
#include "sim/hardware/table_cost_model.h"
#include "sim/hardware/vidur_table.h"
#include "sim/model/shard.h"

namespace servesim {

namespace {

using CostModelFactory = std::function<std::unique_ptr<CostModel>(
    const CostModelSpec&, const ModelSpec&, const HardwareSpec&, const Deployment&)>;

// Errors here come from values the scenario loader has already placed; the file and line
// are unknown at this depth, so they name the key.
[[noreturn]] void fail(const std::string& key, const std::string& message) {
  throw ConfigError("", 0, key, message);
}

std::unique_ptr<CostModel> make_roofline(const CostModelSpec&, const ModelSpec& model,
                                         const HardwareSpec& hw, const Deployment& dep) {
  const std::string problem = deployment_problem(model, dep);
  if (!problem.empty()) fail("tp", problem);
  if ((dep.tp > 1 || dep.pp > 1) && !(hw.interconnect_bandwidth_bytes_per_s > 0)) {
    fail("tp", hw.name + " has no interconnect bandwidth, so it cannot run tp/pp > 1");
  }
  if (!(hw.peak_flops_bf16 > 0) || !(hw.memory_bandwidth_bytes_per_s > 0)) {
    fail("hardware", hw.name + " needs a bf16 peak and a memory bandwidth for the roofline");
  }
  return std::make_unique<RooflineCostModel>(model, hw, dep);
}

std::unique_ptr<CostModel> make_constant(const CostModelSpec& spec, const ModelSpec&,
                                         const HardwareSpec&, const Deployment&) {
  if (spec.constant_step_ns < 1) fail("cost_model.constant.step", "must be > 0");
  return std::make_unique<ConstantCostModel>(spec.constant_step_ns);
}

std::unique_ptr<CostModel> make_linear(const CostModelSpec& spec, const ModelSpec&,
                                       const HardwareSpec&, const Deployment&) {
  if (spec.linear_base_ns < 0) fail("cost_model.linear.base", "must be >= 0");
  if (!(spec.linear_per_token_ns >= 0)) fail("cost_model.linear.per_token", "must be >= 0");
  return std::make_unique<LinearCostModel>(spec.linear_base_ns, spec.linear_per_token_ns);
}

std::unique_ptr<CostModel> make_table(const CostModelSpec& spec, const ModelSpec& model,
                                      const HardwareSpec& hw, const Deployment& dep) {
  // The roofline times what the table lacks, so it must be buildable too.
  (void)make_roofline(spec, model, hw, dep);
  VidurOpTable table;
  try {
    table = read_vidur_table(spec.table_path);
  } catch (const ConfigError& e) {
    // Placed at the scenario's `table:` key; the message keeps the CSV's file and line.
    fail("cost_model.table", format_config_error(e.file(), e.line(), e.column(), e.key(), e.message()));
  }
  return std::make_unique<TableCostModel>(model, hw, dep, std::move(table));
}

Registry<CostModelFactory> builtin_cost_models() {
  Registry<CostModelFactory> r("cost model");
  r.add("roofline", "per-operator max(FLOPs/peak, bytes/bandwidth) plus overheads", make_roofline);
  r.add("constant", "every step takes the same time", make_constant);
  r.add("linear", "base + per_token x tokens computed in the step", make_linear);
  r.add("table", "per-operator times measured by Vidur's profiler, interpolated in tokens", make_table);
  return r;
}

}  // namespace

std::unique_ptr<CostModel> make_cost_model(const CostModelSpec& spec, const ModelSpec& model,
                                           const HardwareSpec& hw, const Deployment& dep) {
  const Registry<CostModelFactory> registry = builtin_cost_models();
  const auto* entry = registry.find(spec.kind);
  if (entry == nullptr) {
    fail("cost_model", "unknown cost model '" + spec.kind + "'; valid: " + registry.names());
  }
  std::unique_ptr<CostModel> stage = entry->factory(spec, model, hw, dep);
  // Micro-batched pipelines: the roofline and table models price one stage; the wrapper
  // adds the micro-batches and the bubble (docs/cost-model.md, "Pipeline micro-batching").
  if (dep.micro_batches < 0) fail("micro_batches", "must be >= 0");
  if (dep.pp > 1 && dep.micro_batches > 0 && (spec.kind == "roofline" || spec.kind == "table")) {
    return std::make_unique<PipelineCostModel>(std::move(stage), dep.pp, dep.micro_batches);
  }
  return stage;
}

}  // namespace servesim
