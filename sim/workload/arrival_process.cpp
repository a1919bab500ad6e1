#include "sim/workload/arrival_process.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {
namespace {

class PoissonProcess : public ArrivalProcess {
 public:
  PoissonProcess(double rate_per_s, Rng rng) : mean_gap_s_(1.0 / rate_per_s), rng_(rng) {}
  double next_gap_s() override { return rng_.exponential(mean_gap_s_); }
  double mean_gap_s() const override { return mean_gap_s_; }

 private:
  double mean_gap_s_;
  Rng rng_;
};

class GammaProcess : public ArrivalProcess {
 public:
  // Gamma(k, theta) has mean k*theta and CV 1/sqrt(k); solving for mean 1/rate and CV cv
  // gives k = 1/cv^2, theta = 1/(rate*k).
  GammaProcess(double rate_per_s, double cv, Rng rng)
      : shape_(1.0 / (cv * cv)), scale_s_(1.0 / (rate_per_s * shape_)), rng_(rng) {}
  double next_gap_s() override { return rng_.gamma(shape_, scale_s_); }
  double mean_gap_s() const override { return shape_ * scale_s_; }

 private:
  double shape_;
  double scale_s_;
  Rng rng_;
};

class ConstantProcess : public ArrivalProcess {
 public:
  explicit ConstantProcess(double rate_per_s) : gap_s_(1.0 / rate_per_s) {}
  double next_gap_s() override { return gap_s_; }
  double mean_gap_s() const override { return gap_s_; }

 private:
  double gap_s_;
};

// Stages back to back from t = 0 (see arrival_process.h for the rule at the boundaries).
class StagedProcess : public ArrivalProcess {
 public:
  StagedProcess(const ArrivalSpec& spec, Rng rng)
      : process_(spec.process), shape_(1.0 / (spec.cv * spec.cv)), stages_(spec.stages), rng_(rng) {
    double start_s = 0, expected = 0;
    for (const ArrivalSpec::Stage& stage : stages_) {
      starts_s_.push_back(start_s);
      start_s += stage.duration_s;
      expected += stage.rate_per_s * stage.duration_s;
    }
    mean_gap_s_ = start_s / expected;
  }

  double next_gap_s() override {
    SS_ASSERT(false, "a staged arrival process ends: read it through next_arrival_s");
    return 0;
  }
  double mean_gap_s() const override { return mean_gap_s_; }
  bool ends() const override { return true; }

  std::optional<double> next_arrival_s(double previous_s) override {
    for (; stage_ < stages_.size(); ++stage_, taken_ = 0) {
      const ArrivalSpec::Stage& stage = stages_[stage_];
      if (stage.rate_per_s == 0) continue;  // idle
      const double start_s = starts_s_[stage_];
      if (process_ == ArrivalSpec::Process::constant) {
        // Computed from the stage's start, not summed gap by gap, so the count and the
        // last arrival's time do not depend on rounding.
        if (taken_ < constant_stage_arrivals(stage)) {
          ++taken_;
          return start_s + static_cast<double>(taken_) / stage.rate_per_s;
        }
        continue;
      }
      // Within a stage the previous arrival is at or after its start; the first gap of a
      // stage counts from the start.
      const double at_s = std::max(previous_s, start_s) + gap_s(stage.rate_per_s);
      if (at_s <= start_s + stage.duration_s) return at_s;
    }
    return std::nullopt;
  }

 private:
  double gap_s(double rate_per_s) {
    if (process_ == ArrivalSpec::Process::gamma) return rng_.gamma(shape_, 1.0 / (rate_per_s * shape_));
    return rng_.exponential(1.0 / rate_per_s);
  }

  ArrivalSpec::Process process_;
  double shape_;  // gamma: 1/cv^2
  std::vector<ArrivalSpec::Stage> stages_;
  std::vector<double> starts_s_;
  Rng rng_;
  double mean_gap_s_ = 0;
  std::size_t stage_ = 0;    // the stage the next arrival is looked for in
  std::int64_t taken_ = 0;   // constant: arrivals of that stage so far
};


void check_stages(const ArrivalSpec& spec, const std::string& key) {
  if (spec.rate_per_s != 0) {
    throw ConfigError("", 0, key + ".stages", "give either 'rate' or 'stages', not both");
  }
  double total_s = 0;
  bool any_arrivals = false;
  for (std::size_t i = 0; i < spec.stages.size(); ++i) {
    const ArrivalSpec::Stage& stage = spec.stages[i];
    const std::string at = key + ".stages." + std::to_string(i);
    if (!(stage.duration_s > 0) || !std::isfinite(stage.duration_s)) {
      throw ConfigError("", 0, at + ".duration", "must be a positive duration");
    }
    if (!(stage.rate_per_s >= 0) || !std::isfinite(stage.rate_per_s)) {
      throw ConfigError("", 0, at + ".rate", "must be >= 0 requests per second (0: an idle stage)");
    }
    if (stage.rate_per_s * stage.duration_s > kMaxStageArrivals) {
      throw ConfigError("", 0, at + ".rate", "the stage would send more than 1e15 requests");
    }
    total_s += stage.duration_s;
    any_arrivals = any_arrivals || stage.rate_per_s > 0;
  }
  if (total_s > kMaxStagedSeconds) {
    throw ConfigError("", 0, key + ".stages", "the stages last longer than 9e9 s (285 years)");
  }
  if (!any_arrivals) throw ConfigError("", 0, key + ".stages", "every stage has rate 0: the class would send nothing");
}

}  // namespace

std::unique_ptr<ArrivalProcess> make_arrival_process(const ArrivalSpec& spec, const std::string& class_name,
                                                     Rng rng) {
  const std::string key = "workload." + class_name + ".arrival";
  if (spec.process == ArrivalSpec::Process::closed) {
    throw ConfigError("", 0, key + ".process", "a closed loop has no gap process (internal: use a closed-loop source)");
  }
  if (!spec.stages.empty()) {
    check_stages(spec, key);
    if (spec.process == ArrivalSpec::Process::gamma && (!(spec.cv > 0) || !std::isfinite(spec.cv))) {
      throw ConfigError("", 0, key + ".cv", "must be positive (for perfectly regular arrivals use process: constant)");
    }
    return std::make_unique<StagedProcess>(spec, rng);
  }
  if (!(spec.rate_per_s > 0) || !std::isfinite(spec.rate_per_s)) {
    throw ConfigError("", 0, key + ".rate", "must be a positive number of requests per second");
  }
  switch (spec.process) {
    case ArrivalSpec::Process::poisson:
      return std::make_unique<PoissonProcess>(spec.rate_per_s, rng);
    case ArrivalSpec::Process::gamma:
      if (!(spec.cv > 0) || !std::isfinite(spec.cv)) {
        throw ConfigError("", 0, key + ".cv", "must be positive (for perfectly regular arrivals use process: constant)");
      }
      return std::make_unique<GammaProcess>(spec.rate_per_s, spec.cv, rng);
    case ArrivalSpec::Process::constant:
      return std::make_unique<ConstantProcess>(spec.rate_per_s);
    case ArrivalSpec::Process::closed:
      break;
  }
  throw ConfigError("", 0, key + ".process", "unknown arrival process");
}

std::int64_t constant_stage_arrivals(const ArrivalSpec::Stage& stage) {
  const double product = stage.rate_per_s * stage.duration_s;
  return static_cast<std::int64_t>(std::floor(product + product * 1e-12));
}

}  // namespace servesim
