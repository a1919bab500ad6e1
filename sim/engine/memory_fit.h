#pragma once
// When a replica's weights and activation reserve leave no memory for the KV cache
// (MemoryPlan::fits is false), what would: the memory plan re-run at larger deployments.
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/memory_plan.h"

namespace servesim {

struct MemoryFitAdvice {
  std::optional<int> tp;         // the smallest tp above the deployment's at which it fits
  std::optional<int> pp;         // else the smallest pp above the deployment's, at its tp
  std::vector<Dtype> weights;    // smaller weight formats that fit at its own tp and pp
  std::string text;              // "set tp: 4 (weights 34.4 GiB per GPU, KV cache ...); or weights: fp8"
};

// A deployment "fits" when the engine's memory rule leaves KV memory for at least one
// block. Only deployments the model layer accepts are tried (deployment_problem: tp must
// split the heads, pp at most the layers), tp and pp up to kMaxTriedGpus.
MemoryFitAdvice advise_memory_fit(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                                  const EngineConfig& engine);

// "the model does not fit: <the plan's arithmetic>; <the advice>", the message of every
// place that refuses such a pool.
std::string does_not_fit_message(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                                 const EngineConfig& engine, const MemoryPlan& plan);

// tp and pp are tried up to this many GPUs each (an 8-GPU node's tp, pipelined over 8 nodes
// and beyond, covers every model the project ships).
inline constexpr int kMaxTriedGpus = 64;

}  // namespace servesim
