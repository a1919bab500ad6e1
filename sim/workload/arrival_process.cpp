#include "sim/workload/arrival_process.h"

#include <cmath>

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

}  // namespace

std::unique_ptr<ArrivalProcess> make_arrival_process(const ArrivalSpec& spec, const std::string& class_name,
                                                     Rng rng) {
  const std::string key = "workload." + class_name + ".arrival";
  if (spec.process == ArrivalSpec::Process::closed) {
    throw ConfigError("", 0, key + ".process", "a closed loop has no gap process (internal: use a closed-loop source)");
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

}  // namespace servesim
