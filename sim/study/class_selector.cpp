#include "sim/study/class_selector.h"

#include <vector>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

int class_index_or_throw(const Scenario& scenario, const std::string& name, const std::string& path) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < scenario.workload.size(); ++i) {
    if (scenario.workload[i].name == name) return static_cast<int>(i);
    names.push_back(scenario.workload[i].name);
  }
  throw ConfigError(path, 0, "--class", unknown_choice_message("workload class", "classes", name, names));
}

}  // namespace servesim
