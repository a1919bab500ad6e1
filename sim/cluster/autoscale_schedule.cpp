// schedule: the replica count of the latest step at or before now (before the first step:
// initial_replicas). The autoscaler evaluates exactly at each step's time, so a step at
// 1h starts or drains replicas at 1h to the nanosecond.
#include <algorithm>

#include "sim/cluster/autoscale_policy.h"

namespace servesim {

namespace {

class SchedulePolicy final : public AutoscalePolicy {
 public:
  SchedulePolicy(std::vector<ScheduleStep> steps, int before_first)
      : steps_(std::move(steps)), before_first_(before_first) {}
  int desired(const FleetObservation& fleet) override {
    int n = before_first_;
    for (const ScheduleStep& s : steps_) {
      if (s.at_ns > fleet.now_ns) break;
      n = s.replicas;
    }
    return n;
  }
  std::optional<Tick> next_change_after(Tick now_ns) const override {
    for (const ScheduleStep& s : steps_)
      if (s.at_ns > now_ns) return s.at_ns;
    return std::nullopt;
  }

 private:
  std::vector<ScheduleStep> steps_;  // strictly increasing at_ns (the loader checks)
  int before_first_;
};

}  // namespace

std::unique_ptr<AutoscalePolicy> make_schedule_policy(const AutoscaleSpec& spec) {
  return std::make_unique<SchedulePolicy>(spec.schedule, spec.initial_replicas);
}

}  // namespace servesim
