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

struct CostModelSpec {
  std::string kind = "roofline";   // roofline | constant | linear | table
  Tick constant_step_ns = 0;       // constant: every step takes this long
  Tick linear_base_ns = 0;         // linear: base + per_token * tokens computed in the step
  double linear_per_token_ns = 0;
  std::string table_path;          // table: measured per-operator CSV
};

// Builds the cost model for one replica. Throws ConfigError for an unknown kind.
std::unique_ptr<CostModel> make_cost_model(const CostModelSpec& spec, const ModelSpec& model,
                                           const HardwareSpec& hw, const Deployment& dep);

}  // namespace servesim
