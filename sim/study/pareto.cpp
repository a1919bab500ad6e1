#include "sim/study/pareto.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

std::string objective_text(const ParetoObjective& o) { return (o.maximize ? "max:" : "min:") + o.field; }

std::vector<ParetoObjective> default_objectives() {
  return {{"output_throughput", true}, {"p99_ttft_ms", false}, {"p99_itl_ms", false}};
}

std::vector<ParetoObjective> parse_objectives(const std::string& text, const std::string& file,
                                              const std::string& key) {
  std::vector<ParetoObjective> out;
  std::string::size_type start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto colon = item.find(':');
    const std::string dir = colon == std::string::npos ? "" : item.substr(0, colon);
    const std::string field = colon == std::string::npos ? "" : item.substr(colon + 1);
    if ((dir != "max" && dir != "min") || field.empty())
      throw ConfigError(file, 0, key,
                        "expected objectives like max:output_throughput,min:p99_ttft_ms, got '" + item + "'");
    out.push_back({field, dir == "max"});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void check_objective_fields(const std::vector<ParetoObjective>& objectives, const std::vector<std::string>& fields,
                            const std::string& option, const std::string& text) {
  for (const auto& o : objectives)
    if (std::find(fields.begin(), fields.end(), o.field) == fields.end())
      throw option_error(option, text, objective_text(o) + ": " + unknown_choice_message("field", "fields", o.field, fields));
}

std::vector<bool> pareto_front(const std::vector<std::vector<std::optional<double>>>& values,
                               const std::vector<ParetoObjective>& objectives) {
  const std::size_t rows = values.size(), k_all = objectives.size();
  for (const auto& row : values) SS_ASSERT(row.size() == k_all, "one value per objective in every row");

  // Objectives some row has; the others say nothing about any point.
  std::vector<std::size_t> used;
  for (std::size_t k = 0; k < k_all; ++k)
    for (const auto& row : values)
      if (row[k]) {
        used.push_back(k);
        break;
      }

  std::vector<bool> complete(rows, !used.empty());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k : used)
      if (!values[r][k]) complete[r] = false;

  // "Goodness" with larger always better, so one comparison serves both directions.
  auto good = [&](std::size_t r, std::size_t k) { return objectives[k].maximize ? *values[r][k] : -*values[r][k]; };
  auto dominates = [&](std::size_t a, std::size_t b) {
    bool strictly = false;
    for (std::size_t k : used) {
      if (good(a, k) < good(b, k)) return false;
      if (good(a, k) > good(b, k)) strictly = true;
    }
    return strictly;
  };

  std::vector<bool> front(rows, false);
  for (std::size_t b = 0; b < rows; ++b) {
    if (!complete[b]) continue;
    bool beaten = false;
    for (std::size_t a = 0; a < rows && !beaten; ++a) beaten = a != b && complete[a] && dominates(a, b);
    front[b] = !beaten;
  }
  return front;
}

}  // namespace servesim
