#pragma once
// Open-loop arrival processes: the gaps between consecutive arrivals of one class.
//   poisson:  exponential gaps, mean 1/rate (CV 1).
//   gamma:    gamma gaps with shape k = 1/cv^2 and scale 1/(rate*k): mean 1/rate, CV = cv.
//             cv > 1 gives bursts, cv < 1 more regular traffic than Poisson.
//   constant: every gap is exactly 1/rate.
// With ArrivalSpec::stages the process runs at each stage's rate in turn, from t = 0, and
// ends with the last stage (docs/workload.md, "Stages"):
//   poisson, gamma: the first arrival of a stage is one gap (at the stage's rate) after the
//     stage's start, later ones one gap after the previous; a gap that would end past the
//     stage's end is dropped and the next stage starts afresh at the boundary. For Poisson
//     this is exactly the process with a piecewise-constant rate (the exponential gap is
//     memoryless); for gamma it restarts the renewal process at each boundary.
//   constant: arrival k of a stage is at start + k/rate, k = 1 ... int(rate x duration), the
//     count inference-perf sends in a stage of that rate and duration.
//   A stage of rate 0 is idle.
// The closed loop is not a gap process (it depends on completions): see closed_loop_source.h.
#include <memory>
#include <optional>
#include <string>

#include "sim/core/rng.h"
#include "sim/workload/workload_config.h"

namespace servesim {

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  // Seconds from the previous arrival (or from t = 0, for the first) to the next one.
  // REQUIRES: !ends() (a staged process is read through next_arrival_s only).
  virtual double next_gap_s() = 0;
  // The exact mean gap, 1/rate; staged: the stages' total duration over the arrivals they
  // expect (sum of rate x duration).
  virtual double mean_gap_s() const = 0;
  // Seconds from t = 0 of the next arrival, the previous one having arrived at `previous_s`
  // (0 before the first); nullopt when no arrival will ever come again (the last stage has
  // ended). A process without stages never ends: previous_s + next_gap_s().
  virtual std::optional<double> next_arrival_s(double previous_s) { return previous_s + next_gap_s(); }
  // Whether arrivals can end (stages). Readers of next_gap_s need a process that does not.
  virtual bool ends() const { return false; }
};

// Builds the process of `spec`, drawing from `rng`. Throws ConfigError (key
// "workload.<class_name>.arrival.*") for a rate or cv that is not positive, for process
// closed, and for stages that are malformed (a duration that is not positive, a negative
// rate, every rate 0) or given together with a rate.
std::unique_ptr<ArrivalProcess> make_arrival_process(const ArrivalSpec& spec, const std::string& class_name,
                                                     Rng rng);

// Requests a stage of constant arrivals sends: int(rate x duration), computed with a
// relative allowance of 1e-12 so that a product that is a whole number on paper (0.1/s x
// 30 s) is not cut to the one below by rounding.
std::int64_t constant_stage_arrivals(const ArrivalSpec::Stage& stage);

}  // namespace servesim
