#pragma once
// GuideLLM's summary of a list of values (DistributionSummary.from_values and
// StatusDistributionSummary.from_values in guidellm/schemas/statistics.py, 0.3 and later),
// computed the same way so that a report servesim writes carries the figures GuideLLM
// would print for the same requests:
//   - equal values are merged (their weights summed), values of weight 0 dropped, and
//     each value's probability is its weight over the total weight;
//   - mean, variance (population) and std_dev are probability-weighted; mode is the most
//     probable value (the smallest among ties); count is the rounded total weight;
//     total_sum = mean x count;
//   - a percentile p is the first value whose cumulative probability reaches p (numpy's
//     searchsorted, side "left"): no interpolation;
//   - no values: every figure 0.
#include <vector>

#include <nlohmann/json.hpp>

namespace servesim {

struct GuidellmValue {
  double value = 0;
  double weight = 1;
};

// {mean, median, mode, variance, std_dev, min, max, count, total_sum, percentiles
// {p001, p01, p05, p10, p25, p50, p75, p90, p95, p99, p999}, pdf: null}.
nlohmann::ordered_json guidellm_distribution(std::vector<GuidellmValue> values);

// {successful, incomplete, errored, total}: each status's summary and that of all three.
nlohmann::ordered_json guidellm_status_distribution(const std::vector<GuidellmValue>& successful,
                                                    const std::vector<GuidellmValue>& incomplete,
                                                    const std::vector<GuidellmValue>& errored);

}  // namespace servesim
