#include "sim/workload/empirical_distribution.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/workload/csv_reader.h"

namespace servesim {

EmpiricalDistribution::EmpiricalDistribution(const std::string& path, const std::string& column,
                                             std::optional<double> min, std::optional<double> max)
    : ClampedDistribution(min, max) {
  CsvReader reader(path);
  const int index = reader.column(column);
  // Summed in a long double so a column of millions of values keeps its mean to the last digit.
  long double sum = 0;
  while (reader.next_row()) {
    const double value = reader.number(index);
    values_.push_back(value);
    sum += value;
  }
  if (values_.empty()) throw ConfigError(path, reader.line(), column, "the column has no values");
  std::sort(values_.begin(), values_.end());
  mean_ = static_cast<double>(sum / static_cast<long double>(values_.size()));
}

double EmpiricalDistribution::draw(Rng& rng) const {
  const auto last = static_cast<std::int64_t>(values_.size()) - 1;
  return values_[static_cast<std::size_t>(rng.uniform_int(0, last))];
}

}  // namespace servesim
