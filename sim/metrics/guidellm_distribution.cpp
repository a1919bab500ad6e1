// GuideLLM's DistributionSummary, from values and weights.
#include "sim/metrics/guidellm_distribution.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace servesim {
namespace {

using ordered_json = nlohmann::ordered_json;

// GuideLLM treats a total weight this small as no weight at all.
constexpr double kEpsilon = 1e-6;

const std::pair<const char*, double> kPercentiles[] = {
    {"p001", 0.001}, {"p01", 0.01}, {"p05", 0.05}, {"p10", 0.1},  {"p25", 0.25},  {"p50", 0.5},
    {"p75", 0.75},   {"p90", 0.9},  {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999},
};

ordered_json summary(double mean, double median, double mode, double variance, double min, double max,
                     long long count, ordered_json percentiles) {
  ordered_json out;
  out["mean"] = mean;
  out["median"] = median;
  out["mode"] = mode;
  out["variance"] = variance;
  out["std_dev"] = std::sqrt(variance);
  out["min"] = min;
  out["max"] = max;
  out["count"] = count;
  out["total_sum"] = mean * static_cast<double>(count);
  out["percentiles"] = std::move(percentiles);
  out["pdf"] = nullptr;
  return out;
}

ordered_json empty_summary(long long count) {
  ordered_json percentiles;
  for (const auto& [key, p] : kPercentiles) percentiles[key] = 0.0;
  return summary(0, 0, 0, 0, 0, 0, count, std::move(percentiles));
}

}  // namespace

ordered_json guidellm_distribution(std::vector<GuidellmValue> values) {
  if (values.empty()) return empty_summary(0);
  double weight_sum = 0;
  for (const GuidellmValue& v : values) weight_sum += v.weight;
  const auto count = static_cast<long long>(std::llround(weight_sum));

  std::stable_sort(values.begin(), values.end(), [](const GuidellmValue& a, const GuidellmValue& b) { return a.value < b.value; });
  std::vector<GuidellmValue> merged;  // distinct values, weights summed, weight 0 dropped
  for (const GuidellmValue& v : values) {
    if (!merged.empty() && merged.back().value == v.value) {
      merged.back().weight += v.weight;
    } else {
      merged.push_back(v);
    }
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(), [](const GuidellmValue& v) { return !(v.weight > 0); }),
               merged.end());
  if (merged.empty()) return empty_summary(count);
  double total = 0;
  for (const GuidellmValue& v : merged) total += v.weight;
  if (total <= kEpsilon) {  // GuideLLM falls back to equal weights
    for (GuidellmValue& v : merged) v.weight = 1;
    total = static_cast<double>(merged.size());
  }

  std::vector<double> probability(merged.size()), cumulative(merged.size());
  double running = 0, mean = 0;
  std::size_t mode = 0;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    probability[i] = merged[i].weight / total;
    cumulative[i] = running += probability[i];
    mean += merged[i].value * probability[i];
    if (probability[i] > probability[mode]) mode = i;
  }
  double variance = 0;
  for (std::size_t i = 0; i < merged.size(); ++i) variance += (merged[i].value - mean) * (merged[i].value - mean) * probability[i];

  ordered_json percentiles;
  double median = 0;
  for (const auto& [key, p] : kPercentiles) {
    const auto at = std::lower_bound(cumulative.begin(), cumulative.end(), p) - cumulative.begin();
    // A cumulative sum that rounds to just under 1 has no entry >= 0.999: the largest value.
    const double value = merged[std::min<std::size_t>(static_cast<std::size_t>(at), merged.size() - 1)].value;
    percentiles[key] = value;
    if (p == 0.5) median = value;
  }
  return summary(mean, median, merged[mode].value, variance, merged.front().value, merged.back().value, count,
                 std::move(percentiles));
}

ordered_json guidellm_status_distribution(const std::vector<GuidellmValue>& successful,
                                          const std::vector<GuidellmValue>& incomplete,
                                          const std::vector<GuidellmValue>& errored) {
  std::vector<GuidellmValue> total = successful;
  total.insert(total.end(), incomplete.begin(), incomplete.end());
  total.insert(total.end(), errored.begin(), errored.end());
  ordered_json out;
  out["successful"] = guidellm_distribution(successful);
  out["incomplete"] = guidellm_distribution(incomplete);
  out["errored"] = guidellm_distribution(errored);
  out["total"] = guidellm_distribution(std::move(total));
  return out;
}

}  // namespace servesim
