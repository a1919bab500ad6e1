#include "sim/scenario/class_models.h"

#include <algorithm>
#include <string>

#include "sim/cluster/class_routing.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

void check_class_models(const Field& workload, const std::vector<ClassSpec>& classes, const ClusterConfig& cluster) {
  const std::vector<Field> items = workload.items();
  std::vector<std::string> served;  // models of the pools a class can enter, in pool order
  for (const PoolConfig& p : cluster.pools)
    if (p.role != PoolRole::decode && std::find(served.begin(), served.end(), p.model.name) == served.end())
      served.push_back(p.model.name);
  for (std::size_t c = 0; c < classes.size() && c < items.size(); ++c) {
    const ClassSpec& cls = classes[c];
    if (cls.model.empty()) continue;
    const Field at = *items[c].get("model");
    for (const PoolConfig& p : cluster.pools) {
      const bool lists = std::find(p.classes.begin(), p.classes.end(), cls.name) != p.classes.end();
      if (lists && p.model.name != cls.model)
        at.fail("class '" + cls.name + "' needs model '" + cls.model + "' but pool '" + p.name +
                "', which lists it in 'classes', serves '" + p.model.name + "'");
    }
    if (std::find(served.begin(), served.end(), cls.model) == served.end())
      at.fail(unknown_choice_message("model", "models", cls.model, served) + " (no pool serves it)");
    if (pool_for_class(cluster.pools, cls.name, cls.model) < 0)
      at.fail("no pool serving '" + cls.model + "' takes class '" + cls.name +
              "' (list it in that pool's 'classes', or leave 'classes' out there)");
  }
}

}  // namespace servesim
