#pragma once
// Where bundled models/, configs/ and data/ live: $SERVESIM_HOME if set, else the source
// tree the binary was built from (SERVESIM_SOURCE_DIR baked in at build time), else the
// current directory.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace servesim {

std::string resource_root();
// "models", "llama-3-8b" -> <root>/models/llama-3-8b.yaml if it exists; a value that is
// itself an existing path is returned as is. nullopt if neither exists.
std::optional<std::string> resolve_resource(const std::string& folder, const std::string& name_or_path);
// The short names resolve_resource also takes for configs/hardware, with the profile each
// names: {"h100", "h100-sxm"}, {"a100", "a100-80g-sxm"}, ... (case-insensitive).
std::vector<std::pair<std::string, std::string>> hardware_aliases();
// The names bundled in <root>/<folder>/*.yaml, sorted.
std::vector<std::string> bundled_names(const std::string& folder);
// The one message for a value of `what` (model, hardware) that is neither an existing file
// nor a bundled name of `folder`: "unknown WHAT 'given': neither a file nor a bundled name",
// then "; did you mean 'x'?" for a likely typo (hardware's short names count as names),
// else the bundled names (with hardware's short names and their profiles), or that none
// are bundled under the resource root.
std::string unknown_bundled_name(const std::string& folder, const std::string& what, const std::string& given);
// A data path in a scenario: as given if it exists (relative to the working directory), else
// relative to the scenario file's folder, else under the resource root. Returns the first
// that exists, or the path as given.
std::string resolve_data_path(const std::string& path, const std::string& scenario_file);

}  // namespace servesim
