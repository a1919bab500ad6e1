#include "sim/engine/memory_fit.h"

#include <sstream>

#include "sim/model/shard.h"
#include "sim/core/units.h"

namespace servesim {

namespace {

bool fits(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep, const EngineConfig& engine,
          MemoryPlan* plan_out) {
  if (!deployment_problem(model, dep).empty()) return false;
  const MemoryPlan plan = plan_memory(model, hw, dep, engine);
  if (plan_out) *plan_out = plan;
  return plan.fits && plan.kv_capacity_tokens >= engine.block_size;
}

std::string gib(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / kBytesPerGiB << " GiB";
  return os.str();
}

// "weights 17.2 GiB per GPU, KV cache 51234 tokens per replica" of a plan that fits.
std::string what_fits(const MemoryPlan& plan) {
  return "weights " + gib(plan.weight_bytes_per_gpu) + " per GPU, KV cache " +
         std::to_string(plan.kv_capacity_tokens) + " tokens per replica";
}

// The smallest value of one parallel degree (`degree`: tp or pp) above the deployment's at
// which the model fits, trying up to kMaxTriedGpus; `plan` then holds that deployment's.
std::optional<int> smallest_fitting(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                                    const EngineConfig& engine, int Deployment::*degree, MemoryPlan& plan) {
  for (int n = dep.*degree + 1; n <= kMaxTriedGpus; ++n) {
    Deployment d = dep;
    d.*degree = n;
    if (fits(model, hw, d, engine, &plan)) return n;
  }
  return std::nullopt;
}

}  // namespace

MemoryFitAdvice advise_memory_fit(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                                  const EngineConfig& engine) {
  MemoryFitAdvice advice;
  std::vector<std::string> ways;
  MemoryPlan plan;
  advice.tp = smallest_fitting(model, hw, dep, engine, &Deployment::tp, plan);
  if (advice.tp) {
    ways.push_back("set tp: " + std::to_string(*advice.tp) + ", the smallest tp at which it fits (" + what_fits(plan) +
                   ")");
  } else {
    advice.pp = smallest_fitting(model, hw, dep, engine, &Deployment::pp, plan);
    if (advice.pp) ways.push_back("set pp: " + std::to_string(*advice.pp) + " (" + what_fits(plan) + ")");
  }
  for (const Dtype format : {Dtype::fp8, Dtype::int4}) {  // int8 weighs what fp8 does
    if (bytes_per_element(format) >= bytes_per_element(dep.weights)) continue;
    Deployment d = dep;
    d.weights = format;
    if (fits(model, hw, d, engine, &plan)) {
      advice.weights.push_back(format);
      ways.push_back("weights: " + std::string(dtype_name(format)) + " at tp " + std::to_string(dep.tp) + " (" +
                     what_fits(plan) + ")");
    }
  }
  for (std::size_t i = 0; i < ways.size(); ++i) advice.text += (i ? "; or " : "") + ways[i];
  if (ways.empty())
    advice.text = "no tp or pp up to " + std::to_string(kMaxTriedGpus) + " and no smaller weight format fits it on " +
                  hw.name + ": use a GPU with more memory";
  return advice;
}

std::string does_not_fit_message(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                                 const EngineConfig& engine, const MemoryPlan& plan) {
  return "the model does not fit: " + plan.explanation + "; " + advise_memory_fit(model, hw, dep, engine).text;
}

}  // namespace servesim
