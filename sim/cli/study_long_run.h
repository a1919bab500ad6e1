#pragma once
// The long-run warning (sim/scenario/run_size.h) for studies whose runs start from one
// scenario (`capacity`, `search`, `explain`): said once, before any run, when the scenario
// as given would run past kLongRunWallSeconds. Their runs change the load or the deployment,
// so the scenario's own size is what the warning can stand behind.
#include <ostream>
#include <string>
#include <vector>

namespace servesim::cli {

// Loads `scenario_path` with `sets` and writes the warning, naming `study`, to `err`. A
// scenario that does not load says nothing here: the study itself reports why.
void warn_long_study_runs(const std::string& study, const std::string& scenario_path,
                          const std::vector<std::string>& sets, std::ostream& err);

}  // namespace servesim::cli
