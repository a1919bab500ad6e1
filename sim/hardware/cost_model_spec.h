#pragma once
// Which cost model a pool uses, as written in the scenario's `cost_model:` key.
#include <memory>
#include <string>

#include "sim/core/time.h"
#include "sim/hardware/cost_model.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct KernelTables;

struct CostModelSpec {
  std::string kind = "roofline";   // roofline | kernels | constant | linear | table
  Tick constant_step_ns = 0;       // constant: every step takes this long
  Tick linear_base_ns = 0;         // linear: base + per_token * tokens computed in the step
  double linear_per_token_ns = 0;
  std::string table_path;          // table: measured per-operator CSV
  // kernels: the pool's measured kernel tables, loaded once by the scenario loader
  // (resolve_kernel_cost_model) and shared by every replica and sweep point built from it.
  std::shared_ptr<const KernelTables> kernel_tables;
  std::string kernel_set_note;     // why that table set, when not the version asked for
  int cuda_graph_max_batch = 0;    // kernels: decode steps padded to CUDA-graph sizes up to this
  // kernels was chosen because the tables cover the pool, not written in the scenario.
  bool kernels_by_default = false;
  // Why this kind prices the pool when the scenario names none (resolve_kernel_cost_model;
  // `validate` prints it); "" when the scenario names the cost model.
  std::string why;
};

// The engine family whose tables price a pool ("vllm", "sglang", "trtllm") from its
// engine preset: SGLang and TensorRT-LLM presets are their own; any other engine runs
// vLLM's kernels (the default engine copies vLLM's defaults; Sarathi-Serve is built on
// vLLM). And that family's version when the engine names none.
std::string kernel_engine_family(const std::string& preset);
std::string default_engine_version(const std::string& family);

// Resolves `cost_model: kernels` (or, when `explicit_choice` is false, the default) for a
// pool: finds the table set of the hardware's GPU, the engine family and version under
// `root` (data/kernels), loads the rows the model needs into spec.kernel_tables and sets
// spec.kind. With `explicit_choice` a pool the tables cannot cover throws ConfigError
// (key "cost_model") saying what is missing; without it, spec stays "roofline", as it does
// for a profile `servesim calibrate` fitted to measured steps (hw.calibrated_from), and
// spec.why says which rule chose.
void resolve_kernel_cost_model(CostModelSpec& spec, bool explicit_choice, const std::string& root,
                               const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                               const std::string& engine_preset, const std::string& engine_version,
                               int cuda_graph_max_batch);

// Builds the cost model for one replica. Throws ConfigError for an unknown kind.
std::unique_ptr<CostModel> make_cost_model(const CostModelSpec& spec, const ModelSpec& model,
                                           const HardwareSpec& hw, const Deployment& dep);

}  // namespace servesim
