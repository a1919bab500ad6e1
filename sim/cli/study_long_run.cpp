#include "sim/cli/study_long_run.h"

#include "sim/core/errors.h"
#include "sim/scenario/run_size.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim::cli {

void warn_long_study_runs(const std::string& study, const std::string& scenario_path,
                          const std::vector<std::string>& sets, std::ostream& err) {
  std::string warning;
  try {
    warning = long_run_warning(load_scenario(scenario_path, sets));
  } catch (const ConfigError&) {
    return;  // the study loads it again and says why it cannot
  }
  if (warning.empty()) return;
  const std::string it = "this run simulates";
  if (const auto at = warning.find(it); at != std::string::npos)
    warning.replace(at, it.size(), study + "'s runs start from this scenario, which simulates");
  err << warning << "\n";
}

}  // namespace servesim::cli
