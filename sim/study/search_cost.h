#pragma once
// What a candidate of `servesim search` costs (docs/sweeps.md): every GPU of every pool at
// its hardware's price_per_gpu_hour (configs/hardware/*.yaml; USD), or a --price override.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/cluster_config.h"

namespace servesim {

struct ClusterCost {
  double per_hour = 0;                 // sum over pools of replicas * tp * pp * price
  long long gpus = 0;                  // sum over pools of replicas * tp * pp
  std::vector<std::string> unpriced;   // hardware names with no price (counted as free)
};

// "h100-sxm=2.5,l40s=0.9": USD per GPU-hour by hardware name. Throws
// option_error("--price", item, ...) on a malformed item or a negative price.
std::map<std::string, double> parse_prices(const std::string& text);

ClusterCost cluster_cost(const ClusterConfig& cluster, const std::map<std::string, double>& price_overrides);

// USD per million tokens when `tokens_per_s` flow for an hour that costs `per_hour`; empty
// when no tokens flow.
std::optional<double> cost_per_million_tokens(double per_hour, double tokens_per_s);

}  // namespace servesim
