#pragma once
// Where bundled models/, configs/ and data/ live: $SERVESIM_HOME if set, else (an installed
// Python package, built with SERVESIM_PACKAGED_RESOURCES) the copy beside its extension
// module, else the source tree the binary was built from (SERVESIM_SOURCE_DIR baked in at
// build time), else the current directory.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace servesim {

std::string resource_root();

// A folder a relative value is looked up from, and how a message names it ("beside the
// scenario", "in the working directory").
struct SearchBase {
  std::string folder;
  std::string where;
};

// One file a value names, and where it was found ("beside the scenario", "bundled").
struct FoundFile {
  std::string path;
  std::string where;
};

// Every distinct existing file `given` names, in lookup order: an absolute path names
// itself; a relative one names the file relative to each of `bases` in turn, then a bundled
// one under resource_root(): <root>/<folder>/NAME.yaml, <root>/<folder>/NAME, <root>/NAME,
// and for "configs/hardware" a short name (hardware_aliases()), the first of these that
// exists. `folder` empty: <root>/NAME only (data files). A value that starts with ./ or ../ names a file relative to a base,
// never a bundled one: how a user picks the file beside the scenario over a bundled one of
// the same name. Two candidates that are one file on disk count once.
std::vector<FoundFile> find_resource(const std::string& folder, const std::string& given,
                                     const std::vector<SearchBase>& bases);
// The error for a value that names more than one file: "'x.json' names 2 files: A (beside
// the scenario) and B (bundled); write ./x.json for the one beside the scenario, or give an
// absolute path".
std::string ambiguous_resource_message(const std::string& given, const std::vector<FoundFile>& found);

// A model, hardware or preset named on the command line: as a path from the working
// directory (every CLI flag's path is), else bundled (find_resource). nullopt if neither
// exists; a ConfigError when it names two files.
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

}  // namespace servesim
