#pragma once
// Reads a pool's `engine:` block (docs/scenario.md, docs/engine.md) and its `cost_model:`
// key. An engine block may start from a preset, `preset: vllm` (configs/engines/vllm.yaml,
// or a path), whose keys the block's own keys then override.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/engine/engine_config.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// Missing keys keep EngineConfig's defaults (vLLM's where it has one). `class_names` are
// the workload's classes, for per-class speculative acceptance rates.
EngineConfig parse_engine(const Field& field, const std::vector<std::string>& class_names = {});

// The largest CUDA-graph batch vLLM captures by default (`cuda_graphs: {max_batch: auto}`):
// the largest of its capture sizes within min(2 x max_num_seqs, 512, max_batched_tokens).
int vllm_cuda_graph_max_batch(int max_num_seqs, std::int64_t max_batched_tokens);

// The presets bundled in configs/engines/, sorted.
std::vector<std::string> bundled_presets();

// Checks of the engine that need the rest of the pool (the draft model against the target,
// swap against the hardware's host link). `engine` is the pool's `engine:` field.
void check_engine_for_pool(const Field& engine, const PoolConfig& pool);

// `roofline`, {constant: {step: 10ms}}, {linear: {base: 1ms, per_token: 0.1ms}} or
// {table: path.csv}.
CostModelSpec parse_cost_model(const Field& field);

}  // namespace servesim
