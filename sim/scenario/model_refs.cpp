#include "sim/scenario/model_refs.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

namespace {

namespace fs = std::filesystem;

// The names bundled in <root>/<folder>/*.yaml, sorted, for "did you mean" and the list.
std::vector<std::string> bundled_names(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  const fs::path dir = fs::path(resource_root()) / folder;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

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
Spec load_for(const Field& field, const std::string& folder, const std::string& what,
              const std::string& plural, Loader loader) {
  const std::optional<std::string> path = resolve(field, folder);
  if (!path) {
    const std::string given = field.as_string();
    const std::vector<std::string> names = bundled_names(folder);
    // The short names count as names: "h10" is closest to "h100", and the list shows them.
    std::vector<std::string> spellings = names;
    std::string aliases;
    if (folder == "configs/hardware" && !names.empty())
      for (const auto& [alias, profile] : hardware_aliases()) {
        spellings.push_back(alias);
        aliases += (aliases.empty() ? "" : ", ") + alias + " = " + profile;
      }
    std::string message =
        "unknown " + what + " '" + given + "': not an existing file nor a bundled name";
    if (auto match = closest_match(given, spellings)) {
      message += "; did you mean '" + *match + "'?";
    } else if (names.empty()) {
      message += " (no " + folder + "/*.yaml under " + resource_root() + ")";
    } else {
      message += "; bundled " + plural + ": " + join_choices(names) + (aliases.empty() ? "" : " (also " + aliases + ")");
    }
    field.fail(message);
  }
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
  return load_for<ModelSpec>(field, "models", "model", "models",
                             [](const std::string& p) { return load_model(p); });
}

HardwareSpec load_hardware_for(const Field& field) {
  return load_for<HardwareSpec>(field, "configs/hardware", "hardware", "hardware profiles",
                                [](const std::string& p) { return load_hardware(p); });
}

}  // namespace servesim
