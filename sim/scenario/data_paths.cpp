#include "sim/scenario/data_paths.h"

#include <filesystem>
#include <system_error>

#include "sim/scenario/resource_paths.h"

namespace servesim {

std::string existing_data_path(const Field& field, const std::string& what) {
  const std::string given = field.as_string();
  if (given.empty()) field.fail("the " + what + " path is empty");
  const std::string resolved = resolve_data_path(given, field.context().file);
  std::error_code ec;
  if (std::filesystem::is_directory(resolved, ec)) {
    field.fail(what + " '" + given + "' is a folder, not a file");
  }
  if (!std::filesystem::exists(resolved, ec)) {
    field.fail(what + " '" + given +
               "' not found (looked relative to the working directory, the scenario's folder "
               "and " +
               resource_root() + ")");
  }
  return resolved;
}

}  // namespace servesim
