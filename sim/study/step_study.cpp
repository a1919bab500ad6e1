#include "sim/study/step_study.h"

#include "sim/core/errors.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

StepStudy price_step(const StepRequest& request) {
  const std::string& chosen = request.cost_model;
  if (!chosen.empty() && chosen != "roofline" && chosen != "kernels") {
    throw ConfigError("", 0, "cost_model", "must be roofline or kernels, got '" + chosen + "'");
  }
  const std::string& engine = request.engine;
  if (engine != "vllm" && engine != "sglang" && engine != "trtllm") {
    throw ConfigError("", 0, "engine", "must be vllm, sglang or trtllm, got '" + engine + "'");
  }
  if (request.cuda_graph_max_batch < 0) throw ConfigError("", 0, "cuda_graphs", "must be 0 or more");
  if (request.batch.empty()) throw ConfigError("", 0, "batch", "give at least one prefill chunk or decode sequence");
  StepStudy s;
  s.model = load_model(request.model);
  s.hardware = load_hardware(request.hardware);
  s.dep = request.dep;
  s.batch = request.batch;
  CostModelSpec spec;
  if (!request.table_path.empty()) {
    if (!chosen.empty()) throw ConfigError("", 0, "table", "give a table or a cost model, not both");
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
