#pragma once
// Every file a scenario names (model, hardware, engine preset, draft model, traces,
// empirical distributions, rate curves, cost tables) resolves one way: relative to the
// scenario file's folder, then bundled under resource_root() (find_resource), never from
// the working directory, so `servesim validate ../chat.yaml` reads the same files from any
// folder. A value given with --set was typed on the command line, so the working directory
// is looked in too. A value that names two files is an error naming both; a data file must
// exist when the scenario is loaded, so a typo in a path fails at `validate` rather than
// minutes into a run.
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/resource_paths.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// Where `field`'s relative paths are looked up from: the scenario's folder; for a --set
// value the working directory first.
std::vector<SearchBase> search_bases(const Field& field);

// The one file `field` (a text value) names under find_resource's rules with `folder`
// ("models", "configs/hardware", "configs/engines"; "" for data files); nullopt when none
// exists. Fails at the field when the value is empty or names more than one file.
std::optional<std::string> resolve_scenario_file(const Field& field, const std::string& folder);

// "beside the scenario (/abs/folder), bundled under ROOT" (with "in the working directory
// (/abs/cwd)" first for a --set value): where a value that names nothing was looked for.
std::string where_looked(const Field& field);

// A pool mapping copied into a --set value (explain's disaggregation lever clones the
// scenario's pool) names its files as the scenario did; a file that sits beside the
// scenario is pinned to its absolute path, so that the copy names that file and no other
// of the same name in the working directory (where a --set value is also looked up).
void pin_pool_files(YAML::Node pool, const std::string& scenario_file);

// The resolved path of the data file named by `field`; fails at the field when there is
// none. `what` names the file in the error ("trace file", "cost table").
std::string existing_data_path(const Field& field, const std::string& what);

}  // namespace servesim
