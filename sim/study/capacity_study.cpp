#include "sim/study/capacity_study.h"

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/feasibility.h"
#include "sim/study/replicates.h"
#include "sim/study/run_energy.h"
#include "sim/study/run_judgement.h"
#include "sim/study/slo_targets.h"

namespace servesim {

namespace {

// How much longer than asked a trial may run to be long enough to judge.

// The rate key of one class: its arrival rate, its concurrency (closed loop) or its
// trace's speedup. `scalable`: whether "scale every class" touches it (closed loops keep
// their users: they are not a rate).
struct ClassKnob {
  std::string key;
  double value = 0;
  bool integer = false;
  std::string unit;
  bool scalable = true;
};

ClassKnob class_knob(const Scenario& s, std::size_t i) {
  const ClassSpec& c = s.workload[i];
  const std::string prefix = "workload." + std::to_string(i) + ".";
  if (c.arrival && c.arrival->process == ArrivalSpec::Process::closed)
    return {prefix + "arrival.concurrency", static_cast<double>(c.arrival->concurrency), true, "users", false};
  if (c.arrival) return {prefix + "arrival.rate", c.arrival->rate_per_s, false, "req/s", true};
  if (c.trace) return {prefix + "trace.speedup", c.trace->speedup, false, "x trace speed", true};
  throw ConfigError(s.source_file, 0, prefix + "arrival", "the class has neither an arrival process nor a trace");
}

std::optional<double> known_value(const Scenario& s, const std::string& key) {
  for (std::size_t i = 0; i < s.workload.size(); ++i) {
    const ClassKnob k = class_knob(s, i);
    if (k.key == key) return k.value;
  }
  return std::nullopt;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::vector<std::string> CapacityKnob::overrides(double x) const {
  std::vector<std::string> out;
  // nlohmann prints the shortest text that reads back as the same double.
  for (const auto& [key, base] : keys) out.push_back(key + "=" + nlohmann::json(scale ? base * x : x).dump());
  return out;
}

int CapacityReplicates::found() const {
  int n = 0;
  for (const auto& c : capacities) n += c ? 1 : 0;
  return n;
}

std::optional<CapacityObjective> capacity_objective_of(const std::string& text) {
  if (text == "load") return CapacityObjective::load;
  if (text == "energy") return CapacityObjective::energy;
  return std::nullopt;
}

const CapacityTrialRun* CapacityStudy::at_capacity() const {
  return search.best ? &trials[*search.best] : nullptr;
}

const CapacityTrialRun* CapacityStudy::least_energy() const {
  const CapacityTrialRun* least = nullptr;
  std::optional<double> least_j;
  for (const CapacityTrialRun& t : trials) {
    if (!t.feasible) continue;
    const auto j = overall_energy_field(t.summary, "energy_per_output_token_j");
    if (j && (!least_j || *j < *least_j || (*j == *least_j && t.x < least->x))) {
      least = &t;
      least_j = j;
    }
  }
  return least;
}

CapacityPlan plan_capacity(const CapacityRequest& request) {
  request.validate();
  const std::string& path = request.scenario_path;
  const Scenario base = load_scenario(path, request.sets);
  CapacityPlan plan;
  plan.scenario_name = base.name;
  // A named class, or the only one: its own rate, in its own unit.
  const int class_index = judged_class_index(base, request.class_name, path);

  CapacityKnob& knob = plan.knob;
  if (!request.rate_key.empty()) {
    const auto value = known_value(base, request.rate_key);
    knob.keys.push_back({request.rate_key, value.value_or(0)});
    knob.integer = ends_with(request.rate_key, "concurrency");
    knob.unit = knob.integer ? "users" : request.rate_key.find("rate") != std::string::npos ? "req/s" : "";
    if (!value && !request.start)
      throw ConfigError(path, 0, request.rate_key, "its value is not known to capacity; give --start VALUE");
    knob.start = value.value_or(1);
  } else if (class_index >= 0) {
    const ClassKnob k = class_knob(base, static_cast<std::size_t>(class_index));
    knob.keys.push_back({k.key, k.value});
    knob.integer = k.integer;
    knob.unit = k.unit;
    knob.start = k.value;
  } else {
    knob.scale = true;
    knob.unit = "x the scenario's rates";
    for (std::size_t i = 0; i < base.workload.size(); ++i) {
      const ClassKnob k = class_knob(base, i);
      if (k.scalable) knob.keys.push_back({k.key, k.value});
    }
    if (knob.keys.empty())
      throw ConfigError(path, 0, "workload", "no class has a rate to scale (closed loops only): use --rate-key");
  }
  if (request.integer) knob.integer = true;
  if (request.start) knob.start = *request.start;
  if (!(knob.start > 0)) throw ConfigError(path, 0, knob.keys.front().first, "is not > 0; give --start VALUE");

  plan.scopes = slo_scopes(base, request.class_name, request.slo_text, path);
  plan.objective = *capacity_objective_of(request.objective);  // validate() refused any other
  // The energy objective reports figures only a metered run has: refused before any run,
  // naming the key, as search refuses it.
  if (plan.objective == CapacityObjective::energy && !base.cluster.energy)
    throw ConfigError(path, 0, "cluster.energy",
                      "--objective energy reports the energy per output token at capacity, which only a scenario "
                      "with cluster.energy meters; add energy: {} under cluster: or --set 'cluster.energy={}' "
                      "(docs/energy.md)");
  if (base.cluster.energy) plan.price_per_kwh = base.cluster.energy->price_per_kwh;
  return plan;
}

CapacityStudy run_capacity(const CapacityRequest& request, const CapacityPlan& plan,
                           const std::function<void(const CapacityTrialRun&)>& on_trial,
                           const std::function<void(std::uint64_t, std::optional<double>)>& on_replicate) {
  const std::uint64_t first_seed =
      request.seed ? *request.seed : load_scenario(request.scenario_path, request.sets).seed;
  // One trial: the scenario with the knob at x, run with `seed` and judged.
  const auto judge_at = [&](double x, std::uint64_t seed) {
    std::vector<std::string> overrides = request.sets;
    for (auto& o : plan.knob.overrides(x)) overrides.push_back(std::move(o));
    Scenario s = load_scenario(request.scenario_path, overrides);
    s.seed = seed;
    CapacityTrialRun t;
    t.x = x;
    RunJudgement judged = judge_long_enough(s, plan.scopes, request.reject_share, request.early_stop, false,
                                            request.sustain_tolerance, kMaxLengthening, &t.lengthened);
    t.feasible = judged.feasible;
    t.reason = std::move(judged.reason);
    t.summary = std::move(judged.result.summary);
    t.sustained = judged.sustained;
    t.too_short = judged.too_short;
    t.fails_at_any_load = judged.fails_at_any_load;
    return t;
  };

  CapacitySearchParams params;
  params.start = plan.knob.start;
  params.max_x = request.max_rate;
  params.tolerance = request.tolerance;
  params.integer = plan.knob.integer;

  CapacityStudy study;
  study.plan = plan;
  study.search = search_capacity(params, [&](double x) {
    study.trials.push_back(judge_at(x, first_seed));
    if (on_trial) on_trial(study.trials.back());
    const CapacityTrialRun& t = study.trials.back();
    return CapacityTrial{x, t.feasible, t.reason, t.fails_at_any_load};
  });
  if (request.replicates < 2) return study;

  // Replicates: the same search under the seeds after the first; the capacity of each, and
  // their mean with its 95% interval over the seeds that found one.
  CapacityReplicates& rep = study.replicates.emplace();
  const auto capacity_of = [](const CapacitySearchResult& r) {
    return r.best ? std::optional<double>(r.trials[*r.best].x) : std::nullopt;
  };
  rep.seeds.push_back(first_seed);
  rep.capacities.push_back(capacity_of(study.search));
  rep.capped = study.search.best && study.search.capped ? 1 : 0;
  for (int k = 1; k < request.replicates; ++k) {
    const std::uint64_t seed = replicate_seed(first_seed, k);
    const CapacitySearchResult again = search_capacity(params, [&](double x) {
      const CapacityTrialRun t = judge_at(x, seed);
      return CapacityTrial{x, t.feasible, t.reason, t.fails_at_any_load};
    });
    rep.seeds.push_back(seed);
    rep.capacities.push_back(capacity_of(again));
    rep.capped += again.best && again.capped ? 1 : 0;
    if (on_replicate) on_replicate(seed, rep.capacities.back());
  }
  std::vector<double> found;
  for (const auto& c : rep.capacities)
    if (c) found.push_back(*c);
  if (found.size() >= 2) rep.interval = mean_interval(found);
  return study;
}

}  // namespace servesim
