#include "sim/study/search_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/core/errors.h"

namespace servesim {

std::map<std::string, double> parse_prices(const std::string& text) {
  std::map<std::string, double> prices;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw option_error("--price", item, "expected HARDWARE=USD_PER_GPU_HOUR, e.g. h100-sxm=2.5");
    const std::string value = item.substr(eq + 1);
    char* end = nullptr;
    const double usd = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(usd) || usd < 0)
      throw option_error("--price", item, "the price must be a number >= 0 (USD per GPU-hour)");
    prices[item.substr(0, eq)] = usd;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return prices;
}

ClusterCost cluster_cost(const ClusterConfig& cluster, const std::map<std::string, double>& price_overrides) {
  ClusterCost cost;
  for (const auto& pool : cluster.pools) {
    const long long gpus = static_cast<long long>(pool.replicas) * pool.deployment.gpus();
    const auto o = price_overrides.find(pool.hardware.name);
    const double price = o != price_overrides.end() ? o->second : pool.hardware.price_per_gpu_hour;
    if (price == 0 && o == price_overrides.end() &&
        std::find(cost.unpriced.begin(), cost.unpriced.end(), pool.hardware.name) == cost.unpriced.end())
      cost.unpriced.push_back(pool.hardware.name);
    cost.gpus += gpus;
    cost.per_hour += static_cast<double>(gpus) * price;
  }
  return cost;
}

std::optional<double> cost_per_million_tokens(double per_hour, double tokens_per_s) {
  if (!(tokens_per_s > 0)) return std::nullopt;
  return per_hour / (tokens_per_s * 3600.0) * 1e6;
}

}  // namespace servesim
