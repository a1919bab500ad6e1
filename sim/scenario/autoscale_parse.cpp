#include "sim/scenario/autoscale_parse.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/cluster/autoscale_policy.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

namespace {

const std::vector<std::string> kAutoscaleKeys = {
    "min_replicas", "max_replicas",     "initial_replicas", "policy",   "target",   "ttft_target",
    "window",       "scale_down_below", "schedule",         "cold_start", "scale_down_delay", "interval"};

// Kubernetes HPA's defaults: the controller's sync period (--horizontal-pod-autoscaler-sync-period,
// 15 s) and the scale-down stabilisation window (behavior.scaleDown.stabilizationWindowSeconds,
// 300 s). A schedule is the user's own intent, so it is followed without a window.
constexpr Tick kDefaultIntervalNs = 15 * kNsPerSec;
constexpr Tick kDefaultScaleDownDelayNs = 300 * kNsPerSec;
// slo_headroom: one minute of finished requests, the rate window of a typical Prometheus
// query behind such an autoscaler (histogram_quantile over rate(...[1m])).
constexpr Tick kDefaultWindowNs = 60 * kNsPerSec;
constexpr int kMaxReplicas = 100'000;  // as a pool's `replicas`

Tick duration_at_least(const Field& f, Tick lowest) {
  const Tick v = f.as_duration_ns();
  if (v < lowest) f.fail((lowest == 0 ? "must be >= 0, got " : "must be > 0, got ") + f.node().Scalar());
  return v;
}

int replica_count(const Field& f) {
  const std::int64_t v = f.int_at_least(1);
  if (v > kMaxReplicas) f.fail("must be at most " + std::to_string(kMaxReplicas) + ", got " + std::to_string(v));
  return static_cast<int>(v);
}

// A key that only some policies read is refused under the others, so a misplaced key is
// not silently ignored.
void only_for(const Field& f, const char* key, const std::string& policy, const std::vector<std::string>& readers) {
  const std::optional<Field> v = f.get(key);
  if (v && std::find(readers.begin(), readers.end(), policy) == readers.end())
    v->fail(std::string("'") + key + "' is read only by policy " + join_choices(readers) + ", not by '" + policy + "'");
}

void check_within(const Field& f, int n, const AutoscaleSpec& s, const char* what) {
  if (n < s.min_replicas || n > s.max_replicas)
    f.fail(std::string(what) + " " + std::to_string(n) + " is outside [min_replicas, max_replicas] = [" +
           std::to_string(s.min_replicas) + ", " + std::to_string(s.max_replicas) + "]");
}

}  // namespace

AutoscaleSpec parse_autoscale(const Field& f, const Field& pool_field, const PoolConfig& pool) {
  f.expect_map(kAutoscaleKeys);
  if (pool.role != PoolRole::unified)
    f.fail_at_key("autoscaling is modelled for unified pools only; a prefill or decode pool keeps a fixed 'replicas'");
  if (const std::optional<Field> r = pool_field.get("replicas"))
    r->fail("an autoscaled pool's size is autoscale.min_replicas .. max_replicas; leave 'replicas' out");

  AutoscaleSpec s;
  const Field policy = f.require("policy");
  s.policy = policy.as_string();
  const std::vector<std::string> policies = autoscale_policy_names();
  if (std::find(policies.begin(), policies.end(), s.policy) == policies.end())
    policy.fail(unknown_choice_message("autoscale policy", "policies", s.policy, policies));

  if (auto v = f.get("min_replicas")) s.min_replicas = replica_count(*v);
  const Field max = f.require("max_replicas");
  s.max_replicas = replica_count(max);
  if (s.min_replicas > s.max_replicas)
    max.fail("max_replicas " + std::to_string(s.max_replicas) + " is below min_replicas " +
             std::to_string(s.min_replicas));

  only_for(f, "target", s.policy, {"queue_depth", "in_flight"});
  only_for(f, "ttft_target", s.policy, {"slo_headroom"});
  only_for(f, "window", s.policy, {"slo_headroom"});
  only_for(f, "scale_down_below", s.policy, {"slo_headroom"});
  only_for(f, "schedule", s.policy, {"schedule"});
  if (s.policy == "queue_depth" || s.policy == "in_flight") s.target = f.require("target").positive_double();
  if (s.policy == "slo_headroom") {
    s.ttft_target_ns = duration_at_least(f.require("ttft_target"), 1);
    s.window_ns = kDefaultWindowNs;
    if (auto v = f.get("window")) s.window_ns = duration_at_least(*v, 1);
    if (auto v = f.get("scale_down_below")) {
      s.scale_down_below = v->positive_double();
      if (s.scale_down_below > 1) v->fail("must be at most 1 (a fraction of ttft_target), got " + v->node().Scalar());
    }
  }
  s.initial_replicas = s.min_replicas;
  if (s.policy == "schedule") {
    const Field list = f.require("schedule");
    const std::vector<Field> items = list.items();
    if (items.empty()) list.fail("a schedule needs at least one {at, replicas} step");
    for (const Field& item : items) {
      item.expect_map({"at", "replicas"});
      ScheduleStep step;
      const Field at = item.require("at");
      step.at_ns = duration_at_least(at, 0);
      if (!s.schedule.empty() && step.at_ns <= s.schedule.back().at_ns)
        at.fail("schedule times must increase strictly");
      const Field replicas = item.require("replicas");
      step.replicas = replica_count(replicas);
      check_within(replicas, step.replicas, s, "replicas");
      s.schedule.push_back(step);
    }
    if (s.schedule.front().at_ns == 0) s.initial_replicas = s.schedule.front().replicas;
  }
  if (auto v = f.get("initial_replicas")) {
    s.initial_replicas = replica_count(*v);
    check_within(*v, s.initial_replicas, s, "initial_replicas");
  }
  if (auto v = f.get("cold_start")) s.cold_start_ns = duration_at_least(*v, 0);
  // Without it the pool loads the weights over the host link (Autoscaler's default).
  if (!s.cold_start_ns && !(pool.hardware.host_link_bandwidth_bytes_per_s > 0))
    f.fail_at_key("hardware '" + pool.hardware.name +
                  "' gives no host_link_bandwidth_gb_s to load the weights over; give autoscale.cold_start");
  s.scale_down_delay_ns = s.policy == "schedule" ? 0 : kDefaultScaleDownDelayNs;
  if (auto v = f.get("scale_down_delay")) s.scale_down_delay_ns = duration_at_least(*v, 0);
  s.interval_ns = kDefaultIntervalNs;
  if (auto v = f.get("interval")) s.interval_ns = duration_at_least(*v, 1);
  return s;
}

}  // namespace servesim
