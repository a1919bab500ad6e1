#include "sim/scenario/model_refs.h"

#include <optional>

#include "sim/core/errors.h"
#include "sim/scenario/data_paths.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

namespace {

template <typename Spec, typename Loader>
Spec load_for(const Field& field, const std::string& folder, const std::string& what, Loader loader) {
  const std::optional<std::string> path = resolve_scenario_file(field, folder);
  if (!path) field.fail(unknown_bundled_name(folder, what, field.as_string()) + " (looked " + where_looked(field) + ")");
  const std::string where = " (the " + what + " of " + field.key() + " at " + field.file() +
                            (field.line() > 0 ? ":" + std::to_string(field.line()) : "") + ")";
  try {
    return loader(*path);
  } catch (const ConfigError& e) {
    throw ConfigError(e.file(), e.line(), e.key(), e.message() + where, e.column());
  } catch (const std::exception& e) {
    field.fail("cannot load " + what + " '" + *path + "': " + e.what());
  }
}

}  // namespace

ModelSpec load_model_for(const Field& field) {
  return load_for<ModelSpec>(field, "models", "model", [](const std::string& p) { return load_model_file(p); });
}

HardwareSpec load_hardware_for(const Field& field) {
  return load_for<HardwareSpec>(field, "configs/hardware", "hardware", [](const std::string& p) { return load_hardware_file(p); });
}

}  // namespace servesim
