#include "sim/study/feasibility.h"

#include "sim/core/errors.h"
#include "sim/scenario/scenario.h"
#include "sim/study/class_selector.h"

namespace servesim {

int judged_class_index(const Scenario& base, const std::string& class_name, const std::string& path) {
  if (!class_name.empty()) return class_index_or_throw(base, class_name, path);
  return base.workload.size() == 1 ? 0 : -1;
}

std::vector<SloScope> slo_scopes(const Scenario& base, const std::string& class_name, const std::string& slo_text,
                                 const std::string& path) {
  std::vector<SloScope> scopes;
  if (!slo_text.empty()) {
    scopes.push_back({class_name, parse_slo_targets(slo_text)});
    return scopes;
  }
  for (const auto& c : base.workload)
    if (class_name.empty() || c.name == class_name) {
      auto targets = slo_targets_from_spec(c.slo);
      if (!targets.empty()) scopes.push_back({c.name, std::move(targets)});
    }
  if (scopes.empty()) throw ConfigError(path, 0, "--slo", "give --slo ttft_p99=2s,... or an slo: in the class");
  return scopes;
}

}  // namespace servesim
