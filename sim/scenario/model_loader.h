#pragma once
// Loads model architectures and accelerator profiles. `name_or_path` is a name resolved to
// models/NAME.yaml or configs/hardware/NAME.yaml under the resource root, or a path to a
// YAML file from the working directory (a command-line value, resolve_resource); for models
// also a path to a Hugging Face config.json. The *_file forms read a file already found
// (a scenario resolves its own paths, data_paths.h) without looking anywhere else.
// Errors throw ConfigError naming the file, line and field.
#include <string>

#include "sim/hardware/hardware_spec.h"
#include "sim/model/model_spec.h"

namespace servesim {

ModelSpec load_model(const std::string& name_or_path);
HardwareSpec load_hardware(const std::string& name_or_path);
ModelSpec load_model_file(const std::string& path);
HardwareSpec load_hardware_file(const std::string& path);

}  // namespace servesim
