#pragma once
// Reads a pool's `engine:` block and its `cost_model:` key (docs/scenario.md).
#include "sim/engine/engine_config.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/io/yaml_helpers.h"

namespace servesim {

// Missing keys keep EngineConfig's defaults (vLLM's where it has one).
EngineConfig parse_engine(const Field& field);

// `roofline`, {constant: {step: 10ms}}, {linear: {base: 1ms, per_token: 0.1ms}} or
// {table: path.csv}.
CostModelSpec parse_cost_model(const Field& field);

}  // namespace servesim
