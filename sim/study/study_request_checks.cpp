// The checks of the study requests that need no scenario (sweep_study.h, capacity_study.h,
// search_study.h: validate()). Each run function calls its request's validate() first, so
// the CLI and the Python package, which only translate their arguments into a request,
// cannot disagree about what is accepted or how a refusal reads. The message names the
// request's field; the value is said as the user gave it (a share as a percentage).
#include "sim/core/errors.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/study/capacity_study.h"
#include "sim/study/replicates.h"
#include "sim/study/search_study.h"
#include "sim/study/sweep_study.h"

namespace servesim {

namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message) { throw ConfigError("", 0, field, message); }

std::string percent(double share) { return format_number(share * 100) + "%"; }

void check_jobs(int jobs) {
  if (jobs < 1) refuse("jobs", "must be at least 1, got " + std::to_string(jobs));
}

void check_positive(const std::optional<double>& value, const std::string& field, const std::string& unit) {
  if (value && !(*value > 0)) refuse(field, "must be > 0" + unit + ", got " + format_number(*value));
}

// A share of the requests: above 100% it would allow nothing more than 100% does.
void check_reject_share(double share) {
  if (!(share >= 0 && share <= 1))
    refuse("reject_share", "must be from 0% to 100% (a share of the requests), got " + percent(share));
}

}  // namespace

void SweepRequest::validate() const {
  check_replicates(replicates, "replicates");
  check_jobs(jobs);
}

void CapacityRequest::validate() const {
  check_replicates(replicates, "replicates");
  if (!(tolerance > 0)) refuse("tolerance", "must be > 0% (the final bracket's relative width), got " + percent(tolerance));
  if (!(sustain_tolerance > 0 && sustain_tolerance < 1))
    refuse("sustain_tolerance", "must be between 0% and 100%, got " + percent(sustain_tolerance));
  check_positive(start, "start", "");
  check_positive(max_rate, "max_rate", "");
  check_reject_share(reject_share);
  if (!capacity_objective_of(objective)) refuse("objective", "must be load or energy, got '" + objective + "'");
}

void SearchRequest::validate() const {
  check_replicates(replicates, "replicates");
  check_jobs(jobs);
  check_positive(rate, "rate", " req/s");
  check_reject_share(reject_share);
  if (!search_objective_of(objective))
    refuse("objective", "must be cost, energy or total-cost, got '" + objective + "'");
}

}  // namespace servesim
