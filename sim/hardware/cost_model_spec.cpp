#include "sim/hardware/cost_model_spec.h"

#include <functional>

#include "sim/core/errors.h"
#include "sim/core/registry.h"
#include "sim/hardware/kernel_cost_model.h"
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
  if ((hw.crosses_domain(dep.tp) || (dep.pp > 1 && hw.crosses_domain(dep.gpus()))) &&
      !(hw.network_bandwidth_bytes_per_s > 0)) {
    fail("tp", hw.name + " has no network bandwidth, so it cannot run a group of more than " +
                   std::to_string(hw.interconnect_domain_gpus) + " GPUs");
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

std::unique_ptr<CostModel> make_kernels(const CostModelSpec& spec, const ModelSpec& model,
                                        const HardwareSpec& hw, const Deployment& dep) {
  // The roofline times what the tables lack, so it must be buildable too.
  (void)make_roofline(spec, model, hw, dep);
  if (!spec.kernel_tables) {
    fail("cost_model", "the kernels cost model needs its tables resolved by the scenario loader");
  }
  return std::make_unique<KernelCostModel>(model, hw, dep, spec.kernel_tables, spec.cuda_graph_max_batch);
}

Registry<CostModelFactory> builtin_cost_models() {
  Registry<CostModelFactory> r("cost model");
  r.add("roofline", "per-operator max(FLOPs/peak, bytes/bandwidth) plus overheads", make_roofline);
  r.add("kernels", "per-operator kernel latencies measured under the pool's engine and GPU (data/kernels)", make_kernels);
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
  if (dep.pp > 1 && dep.micro_batches > 0 && (spec.kind == "roofline" || spec.kind == "table" || spec.kind == "kernels")) {
    return std::make_unique<PipelineCostModel>(std::move(stage), dep.pp, dep.micro_batches);
  }
  return stage;
}

std::string kernel_engine_family(const std::string& preset) {
  if (preset == "sglang" || preset == "trtllm") return preset;
  return "vllm";
}

// The versions whose tables data/kernels/ ships: vLLM 0.14.0 is the measured release nearest
// to 0.15; SGLang 0.5.14 and TensorRT-LLM 1.3.0rc20 are the newest measured with every table
// (data/kernels/README.md, "What was selected").
std::string default_engine_version(const std::string& family) {
  if (family == "sglang") return "0.5.14";
  if (family == "trtllm") return "1.3.0rc20";
  return "0.14.0";
}

void resolve_kernel_cost_model(CostModelSpec& spec, bool explicit_choice, const std::string& root,
                               const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                               const std::string& engine_preset, const std::string& engine_version,
                               int cuda_graph_max_batch) {
  const std::string family = kernel_engine_family(engine_preset);
  const std::string version = engine_version.empty() ? default_engine_version(family) : engine_version;
  if (!explicit_choice && !hw.calibrated_from.empty()) {
    // The user's measurements are the reason the profile exists: the tables would price
    // every step as if the fit had not been made.
    spec.kind = "roofline";
    spec.why = "the hardware profile " + hw.name + " was calibrated to measured steps (" + hw.calibrated_from +
               "), so its fitted roofline prices the pool; cost_model: kernels prices it from the kernel tables";
    return;
  }
  std::string why;
  std::optional<KernelSetChoice> choice;
  if (hw.kernel_tables.empty()) {
    why = hw.name + " has no measured kernel tables (its hardware profile names no kernel_tables)";
  } else if (!deployment_problem(model, dep).empty()) {
    why = deployment_problem(model, dep);
  } else {
    choice = choose_kernel_set(root, hw.kernel_tables, family, version, &why);
  }
  std::shared_ptr<const KernelTables> tables;
  if (choice) {
    KernelTableQuery query = kernel_table_query(model, dep);
    if (hw.crosses_domain(dep.tp)) {
      // A tp group across machines runs NCCL, whose all-reduce inside one machine is its
      // floor. NCCL 2.27.3 is the version aiconfigurator's systems/h100_sxm.yaml and
      // a100_sxm.yaml name (misc.nccl_version); on H200 the newest measured before it,
      // 2.26.2, is the one systems/h200_sxm.yaml names.
      if (const auto nccl = choose_kernel_set(root, hw.kernel_tables, "nccl", "2.27.3", nullptr)) {
        query.nccl_dir = nccl->dir;
        query.nccl_set = nccl->name;
        query.node_gpus = hw.interconnect_domain_gpus;
      }
    }
    tables = load_kernel_tables(choice->dir, choice->name, query);
    // The GEMMs are most of a step: without rows in the weights' format (int4/int8
    // weight-only, fp8 on A100) the tables do not cover the pool.
    if (tables->gemm.empty()) {
      why = choice->name + " has no GEMM rows in the format '" + tables->query.gemm_dtype + "'";
      tables.reset();
    }
  }
  if (!tables) {
    if (explicit_choice) fail("cost_model", "kernels: " + why + "; use cost_model: roofline");
    spec.kind = "roofline";
    spec.why = "the default where kernel tables do not cover the pool: " + why;
    return;
  }
  spec.kind = "kernels";
  spec.kernels_by_default = !explicit_choice;
  if (!explicit_choice) {
    spec.why = "the default where measured kernel tables cover the pool's GPU, engine and weights; "
               "cost_model: roofline for the roofline";
  }
  spec.kernel_set_note = choice->note;
  spec.cuda_graph_max_batch = cuda_graph_max_batch;
  spec.kernel_tables = std::move(tables);
}

}  // namespace servesim
