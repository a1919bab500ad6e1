#pragma once
// The `model:` and `hardware:` keys of a pool: a bundled name (models/NAME.yaml,
// configs/hardware/NAME.yaml) or a path relative to the scenario's folder (data_paths.h
// says how every scenario path resolves), loaded with sim/scenario/model_loader.h. A name that
// resolves to nothing is reported at the scenario's line with the names that do exist;
// an error inside the model file is reported at that file's line, with the scenario key
// added so the user knows which pool asked for it.
#include "sim/hardware/hardware_spec.h"
#include "sim/model/model_spec.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

ModelSpec load_model_for(const Field& field);
HardwareSpec load_hardware_for(const Field& field);

}  // namespace servesim
