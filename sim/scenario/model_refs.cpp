#include "sim/scenario/model_refs.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

namespace {

namespace fs = std::filesystem;

// A value that looks like a path is also tried relative to the scenario's folder, the way
// trace paths are, so a scenario can sit next to its own model file.
std::optional<std::string> resolve(const Field& field, const std::string& folder) {
  const std::string given = field.as_string();
  if (given.empty()) field.fail("the name is empty");
  if (auto found = resolve_resource(folder, given)) return found;
  const bool looks_like_path =
      given.find('/') != std::string::npos || fs::path(given).has_extension();
  if (looks_like_path) {
    std::error_code ec;
    const fs::path beside = fs::path(field.context().file).parent_path() / given;
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return std::nullopt;
}

template <typename Spec, typename Loader>
Spec load_for(const Field& field, const std::string& folder, const std::string& what, Loader loader) {
  const std::optional<std::string> path = resolve(field, folder);
  if (!path) field.fail(unknown_bundled_name(folder, what, field.as_string()));
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
  return load_for<ModelSpec>(field, "models", "model", [](const std::string& p) { return load_model(p); });
}

HardwareSpec load_hardware_for(const Field& field) {
  return load_for<HardwareSpec>(field, "configs/hardware", "hardware", [](const std::string& p) { return load_hardware(p); });
}

}  // namespace servesim
