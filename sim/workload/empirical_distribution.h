#pragma once
// {empirical: {path, column}}: resamples the values of one CSV column, each row equally
// likely. The column is read once, at construction, into a sorted vector.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/clamped_distribution.h"

namespace servesim {

class EmpiricalDistribution : public ClampedDistribution {
 public:
  // Reads `column` of the CSV file `path`. Throws ConfigError (file, line, column name) when
  // the file cannot be read, the column is missing, a cell is not a number, or there are no
  // rows.
  EmpiricalDistribution(const std::string& path, const std::string& column, std::optional<double> min,
                        std::optional<double> max);

  // The arithmetic mean of the column's values (exact for this distribution).
  double mean() const override { return mean_; }
  // The column's values, ascending (length_bounds.h reads its bounds and shares from them).
  const std::vector<double>& values() const { return values_; }

 protected:
  double draw(Rng& rng) const override;

 private:
  std::vector<double> values_;  // ascending
  double mean_ = 0;
};

}  // namespace servesim
