#pragma once
// Open-loop arrival processes: the gaps between consecutive arrivals of one class.
//   poisson:  exponential gaps, mean 1/rate (CV 1).
//   gamma:    gamma gaps with shape k = 1/cv^2 and scale 1/(rate*k): mean 1/rate, CV = cv.
//             cv > 1 gives bursts, cv < 1 more regular traffic than Poisson.
//   constant: every gap is exactly 1/rate.
// The closed loop is not a gap process (it depends on completions): see closed_loop_source.h.
#include <memory>
#include <string>

#include "sim/core/rng.h"
#include "sim/workload/workload_config.h"

namespace servesim {

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  // Seconds from the previous arrival (or from t = 0, for the first) to the next one.
  virtual double next_gap_s() = 0;
  // The exact mean gap, 1/rate.
  virtual double mean_gap_s() const = 0;
};

// Builds the process of `spec`, drawing from `rng`. Throws ConfigError (key
// "workload.<class_name>.arrival.*") for a rate or cv that is not positive, or for
// process closed.
std::unique_ptr<ArrivalProcess> make_arrival_process(const ArrivalSpec& spec, const std::string& class_name,
                                                     Rng rng);

}  // namespace servesim
