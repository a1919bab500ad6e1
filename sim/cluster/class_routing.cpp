#include "sim/cluster/class_routing.h"

#include <algorithm>

namespace servesim {

int pool_for_class(const std::vector<PoolConfig>& pools, const std::string& class_name, const std::string& model) {
  auto may_serve = [&](const PoolConfig& p) {
    return p.role != PoolRole::decode && (model.empty() || p.model.name == model);
  };
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const auto& names = pools[p].classes;
    if (may_serve(pools[p]) && std::find(names.begin(), names.end(), class_name) != names.end())
      return static_cast<int>(p);
  }
  for (std::size_t p = 0; p < pools.size(); ++p)
    if (may_serve(pools[p]) && pools[p].classes.empty()) return static_cast<int>(p);
  return -1;
}

}  // namespace servesim
