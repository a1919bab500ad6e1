#include "sim/study/search_study.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/set_overrides.h"
#include "sim/study/feasibility.h"
#include "sim/study/replicates.h"
#include "sim/study/run_energy.h"
#include "sim/study/run_judgement.h"
#include "sim/study/search_cost.h"
#include "sim/study/search_space.h"
#include "sim/study/study_runs.h"
#include "sim/study/sweep_spec.h"

namespace servesim {

namespace {

std::optional<double> field_of(const SearchCandidate& c, const std::string& field) {
  if (!c.summary) return std::nullopt;
  const double v = c.summary->overall.get(field);
  if (std::isnan(v)) return std::nullopt;
  return v;
}

// What one run of a candidate says: feasible, or why not, and whether the reason is the
// load (so fewer replicas fail too) rather than a configuration that cannot be built.
struct RunVerdict {
  bool feasible = false;
  bool load_failure = false;
  std::string reason;
  std::optional<RunSummary> summary;
  SustainedRate sustained;  // offered and served over the second half of the arrivals
  int met = 0;              // replicates that were feasible (1 or 0 without replicates)
  // Per pool, the GPUs it paid for on average over the run (summary.json's gpu_hours over
  // the run's hours): an autoscaled pool pays for the replicas it ran, not its ceiling.
  std::vector<double> paid_gpus;
};

// The same test of a run as `servesim capacity` (docs/sweeps.md): not saturated, something
// completed, rejections within the allowance, every SLO target met.
RunVerdict run_candidate(const Scenario& s, const std::vector<std::pair<std::string, SloTarget>>& slo,
                         double reject_share, bool early_stop) {
  RunVerdict v;
  try {
    std::vector<SloScope> scopes;
    for (const auto& [cls, target] : slo) scopes.push_back({cls, {target}});
    // As capacity does: a run too short to judge is lengthened before it counts.
    std::string lengthened;
    RunJudgement judged =
        judge_long_enough(s, scopes, reject_share, early_stop, true, kSustainTolerance, kMaxLengthening, &lengthened);
    v.summary = judged.result.summary;
    v.sustained = judged.sustained;
    const double hours = static_cast<double>(judged.result.end_ns) / 3.6e12;
    if (hours > 0)
      for (const auto& [name, block] : judged.result.summary.pools) v.paid_gpus.push_back(block.get("gpu_hours") / hours);
    v.feasible = judged.feasible;
    v.load_failure = !v.feasible;
    v.reason = std::move(judged.reason);
  } catch (const ConfigError& e) {
    // Weights larger than memory at this tp, say: a fact about this candidate alone.
    v.reason = "cannot be built: " + format_config_error("", 0, e.column(), e.key(), e.message());
  }
  return v;
}

// Loads one candidate; a bad value from the space is reported at its line in the space file.
Scenario load_candidate(const std::string& scenario_path, const std::vector<std::string>& overrides,
                        const SearchSpace& space, std::size_t index) {
  try {
    return load_scenario(scenario_path, overrides);
  } catch (const ConfigError& e) {
    const std::optional<SetError> set = set_error_of(e);
    const int axis = set ? space_axis_of_key(space, set->key) : -1;
    if (axis < 0) throw;
    const auto at = sweep_point_indices(space.axes, SweepMode::product, index)[static_cast<std::size_t>(axis)];
    const SpaceMark m = space.value_marks[static_cast<std::size_t>(axis)][at];
    throw ConfigError(space.path, m.line, set->key, set->message, m.column);
  }
}

bool is_replicas_key(const std::string& key) {
  static const std::regex kReplicas(R"(cluster\.pools\.[0-9]+\.replicas)");
  return std::regex_match(key, kReplicas);
}

}  // namespace

std::optional<SearchObjective> search_objective_of(const std::string& text) {
  if (text == "cost") return SearchObjective::cost;
  if (text == "energy") return SearchObjective::energy;
  if (text == "total-cost") return SearchObjective::total_cost;
  return std::nullopt;
}

const char* search_objective_name(SearchObjective objective) {
  switch (objective) {
    case SearchObjective::energy: return "energy";
    case SearchObjective::total_cost: return "total-cost";
    case SearchObjective::cost: break;
  }
  return "cost";
}

std::optional<double> candidate_cost_per_million(const SearchCandidate& c, const std::string& throughput_field) {
  const auto tps = field_of(c, throughput_field);
  return tps ? cost_per_million_tokens(c.cost_per_hour, *tps) : std::nullopt;
}

void rank_candidates(SearchReport& report) {
  report.ranking.clear();
  for (std::size_t i = 0; i < report.plan.size(); ++i)
    if (report.plan[i].status == CandidateStatus::feasible) report.ranking.push_back(i);
  const auto key = [&](std::size_t i) {
    const SearchCandidate& c = report.candidates[i];
    const auto m = candidate_cost_per_million(c, "output_throughput");
    const double probability = c.slo_probability ? c.slo_probability->mean : 1.0;
    // total-cost ranks by cost_per_hour as cost does: with a price per kWh it already holds
    // the electricity (settle_candidate); the objective only insists that there is one.
    const double first = report.objective == SearchObjective::energy ? c.energy_per_output_token_j.value_or(INFINITY)
                                                                      : c.cost_per_hour;
    return std::make_tuple(-probability, first, c.cost_per_hour, c.gpus, m.value_or(INFINITY), i);
  };
  std::sort(report.ranking.begin(), report.ranking.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  for (auto& c : report.candidates) c.tied_with_winner = false;
  if (report.ranking.empty() || !report.candidates[report.ranking.front()].slo_probability) return;
  const FigureInterval& best = *report.candidates[report.ranking.front()].slo_probability;
  for (std::size_t r = 1; r < report.ranking.size(); ++r) {
    SearchCandidate& c = report.candidates[report.ranking[r]];
    // An equal share is ordered by cost, which is known exactly; a lower one whose interval
    // reaches the winner's may be as likely to meet the SLO.
    c.tied_with_winner = c.slo_probability && c.slo_probability->mean < best.mean && c.slo_probability->hi >= best.lo;
  }
}

namespace {

// The --set overrides every candidate gets: the user's, and --rate on the judged class.
std::vector<std::string> common_overrides(const SearchRequest& request, const Scenario& base, int class_index,
                                          SearchReport& report) {
  const std::string& scenario_path = request.scenario_path;
  std::vector<std::string> common = request.sets;
  if (request.rate) {
    if (class_index < 0) throw ConfigError(scenario_path, 0, "--rate", "the scenario has several classes: name one with --class");
    const ClassSpec& c = base.workload[static_cast<std::size_t>(class_index)];
    if (!c.arrival || c.arrival->process == ArrivalSpec::Process::closed)
      throw ConfigError(scenario_path, 0, "--rate", "class '" + c.name + "' has no arrival rate (a trace or a closed loop); "
                                                    "set its load with --set (trace.speedup, arrival.concurrency)");
    report.rate_key = "workload." + std::to_string(class_index) + ".arrival.rate";
    check_set_not_overwritten(request.sets, report.rate_key, "the key --rate sets,");
    report.rate = *request.rate;
    common.push_back(report.rate_key + "=" + nlohmann::json(*request.rate).dump());
  }
  return common;
}

// The energy objectives rank by figures only a run with cluster.energy has (and, for
// total-cost, its price): a candidate without them would rank on nothing, so the search is
// refused before any run, naming the missing key.
void check_objective_inputs(SearchObjective objective, const Scenario& s, std::size_t index,
                            const std::string& scenario_path) {
  const std::string which = "--objective " + std::string(search_objective_name(objective)) + " ranks by ";
  const std::string candidate = " (candidate " + std::to_string(index) + " has none)";
  if (objective == SearchObjective::energy && !s.cluster.energy)
    throw ConfigError(scenario_path, 0, "cluster.energy",
                      which + "the energy per output token, which only a scenario with cluster.energy meters" + candidate +
                          "; add energy: {} under cluster: or --set 'cluster.energy={}' (docs/energy.md)");
  if (objective == SearchObjective::total_cost && !(s.cluster.energy && s.cluster.energy->price_per_kwh > 0))
    throw ConfigError(scenario_path, 0, "cluster.energy.price_per_kwh",
                      which + "GPU and electricity cost per hour, which needs cluster.energy with a price_per_kwh" +
                          candidate + "; e.g. --set cluster.energy.price_per_kwh=0.12 (docs/energy.md)");
}

// Every candidate loaded (so validated) and priced before any runs, in the space's order.
void load_candidates(const SearchRequest& request, const SearchSpace& space, const std::vector<std::string>& common,
                     const std::map<std::string, double>& prices, SearchReport& report, std::vector<Scenario>& scenarios,
                     std::vector<PlanEntry>& entries) {
  const std::string& scenario_path = request.scenario_path;
  const std::size_t count = sweep_point_count(space.axes, SweepMode::product);
  for (std::size_t p = 0; p < count; ++p) {
    std::vector<std::string> overrides = common;
    for (auto& o : sweep_point_overrides(space.axes, SweepMode::product, p)) overrides.push_back(std::move(o));
    SearchCandidate c;
    const auto at = sweep_point_indices(space.axes, SweepMode::product, p);
    PlanEntry e;
    for (std::size_t a = 0; a < space.axes.size(); ++a) {
      c.values.push_back(space.axes[a].values[at[a]]);
      if (!is_replicas_key(space.axes[a].key)) e.family += c.values.back() + '\x1f';
    }
    Scenario s;
    try {
      s = load_candidate(scenario_path, overrides, space, p);
    } catch (const ConfigError& error) {
      // A value wrong in itself is the space file's mistake (load_candidate names its line).
      // Any other refusal is a fact about this combination of values, which loaded one by
      // one with the base: more GPUs than cluster.gpus, say. The candidate is infeasible,
      // with the reason, and the search goes on.
      if (error.file() == space.path) throw;
      c.built = false;
      e.status = CandidateStatus::infeasible;
      e.reason = "cannot be built: " + format_config_error("", 0, error.column(), error.key(), error.message());
      report.candidates.push_back(std::move(c));
      entries.push_back(std::move(e));
      scenarios.push_back(Scenario{});  // never run: its entry is settled
      continue;
    }
    if (request.seed) s.seed = *request.seed;
    check_objective_inputs(report.objective, s, p, scenario_path);
    if (s.cluster.energy) report.metered_energy = true;
    for (const auto& pool : s.cluster.pools) e.replicas.push_back(pool.replicas);
    const ClusterCost cost = cluster_cost(s.cluster, prices);
    c.cost_per_hour = cost.per_hour;
    c.gpus = cost.gpus;
    for (const auto& hw : cost.unpriced)
      if (std::find(report.unpriced.begin(), report.unpriced.end(), hw) == report.unpriced.end()) report.unpriced.push_back(hw);
    for (const auto& slo : report.slo) {
      // Not a structured binding: clang 14 (the fuzz and sanitizer build) cannot capture one.
      const std::string& cls = slo.first;
      if (!cls.empty() && std::none_of(s.workload.begin(), s.workload.end(), [&](const ClassSpec& w) { return w.name == cls; }))
        throw ConfigError(scenario_path, 0, "--class", "class '" + cls + "' is not in candidate " + std::to_string(p));
    }
    report.candidates.push_back(std::move(c));
    entries.push_back(std::move(e));
    scenarios.push_back(std::move(s));
  }
}

// A --price for hardware no candidate runs on is most often a misspelt name, and would
// leave the ranking on the profiles' own prices without a word.
void check_prices_used(const std::map<std::string, double>& prices, const std::vector<Scenario>& scenarios) {
  std::vector<std::string> hardware;
  for (const Scenario& s : scenarios)
    for (const auto& pool : s.cluster.pools)
      if (std::find(hardware.begin(), hardware.end(), pool.hardware.name) == hardware.end())
        hardware.push_back(pool.hardware.name);
  for (const auto& [name, usd] : prices) {
    if (std::find(hardware.begin(), hardware.end(), name) != hardware.end()) continue;
    const auto near = closest_match(name, hardware);
    throw option_error("--price", name,
                      "no candidate runs on hardware '" + name + "'" +
                          (near ? "; did you mean '" + *near + "'?" : "; the candidates run on " + join_choices(hardware)));
  }
}

// One candidate and its replicates: the same candidate under the seeds after its own; the
// first run's figures stand in the table, the count of feasible seeds ranks it.
// run_candidate keeps a candidate that cannot be built as its verdict's reason.
RunVerdict run_with_replicates(const SearchRequest& request, const Scenario& s, const SearchReport& report) {
  RunVerdict verdict = run_candidate(s, report.slo, request.reject_share, request.early_stop);
  verdict.met = verdict.feasible ? 1 : 0;
  const bool buildable = verdict.summary.has_value();
  for (int r = 1; r < request.replicates && buildable; ++r) {
    Scenario again = s;
    again.seed = replicate_seed(s.seed, r);
    const RunVerdict v = run_candidate(again, report.slo, request.reject_share, request.early_stop);
    verdict.met += v.feasible ? 1 : 0;
    if (!v.feasible && verdict.reason.empty()) verdict.reason = "seed " + std::to_string(again.seed) + ": " + v.reason;
  }
  if (request.replicates >= 2 && buildable) verdict.feasible = verdict.met > 0;
  return verdict;
}

// A candidate's row from its verdict.
void settle_candidate(const SearchRequest& request, const Scenario& s, const std::map<std::string, double>& prices,
                      RunVerdict& verdict, SearchCandidate& candidate) {
  candidate.summary = std::move(verdict.summary);
  // An autoscaled pool is priced by the time it paid for, as a sweep prices it
  // (summary.json's fleet_cost_usd), not at autoscale.max_replicas: a candidate whose
  // ceiling it never reached costs what it ran.
  if (verdict.paid_gpus.size() == s.cluster.pools.size() &&
      std::any_of(s.cluster.pools.begin(), s.cluster.pools.end(), [](const PoolConfig& p) { return p.autoscale.has_value(); })) {
    double per_hour = 0;
    for (std::size_t p = 0; p < s.cluster.pools.size(); ++p) {
      const PoolConfig& pool = s.cluster.pools[p];
      const auto o = prices.find(pool.hardware.name);
      per_hour += verdict.paid_gpus[p] * (o != prices.end() ? o->second : pool.hardware.price_per_gpu_hour);
    }
    candidate.cost_per_hour = per_hour;
  }
  // With cluster.energy and a price per kWh, an hour of the candidate also pays for its
  // fleet's electricity at the run's mean power (docs/energy.md): the ranking weighs a GPU
  // that draws less.
  if (s.cluster.energy && s.cluster.energy->price_per_kwh > 0 && candidate.summary) {
    candidate.energy_cost_per_hour = energy_cost_per_hour(*candidate.summary, s.cluster.energy->price_per_kwh);
    candidate.cost_per_hour += *candidate.energy_cost_per_hour;
  }
  if (candidate.summary) {
    candidate.energy_kwh = overall_energy_field(*candidate.summary, "energy_kwh");
    candidate.energy_per_output_token_j = overall_energy_field(*candidate.summary, "energy_per_output_token_j");
  }
  if (verdict.sustained.offered_per_s > 0) {
    candidate.offered_rate = verdict.sustained.offered_per_s;
    candidate.served_rate = verdict.sustained.served_per_s;
  }
  if (request.replicates >= 2 && candidate.summary) {
    candidate.replicates_met = verdict.met;
    candidate.slo_probability = share_interval(verdict.met, request.replicates);
  }
}

}  // namespace

SearchReport run_search(const SearchRequest& request, const std::function<void(const SearchReport&)>& on_loaded,
                        const std::function<void(std::size_t, bool, const std::string&)>& on_done) {
  request.validate();
  const std::string& scenario_path = request.scenario_path;
  const auto prices = request.price_text.empty() ? std::map<std::string, double>{} : parse_prices(request.price_text);
  const SearchSpace space = load_search_space(request.space_path);

  const Scenario base = load_scenario(scenario_path, request.sets);
  SearchReport report;
  report.scenario = base.name;
  report.space_path = request.space_path;
  report.replicates = request.replicates;
  report.objective = *search_objective_of(request.objective);  // validate() refused any other
  // A candidate with more replicas than one that met the SLO under some seeds may meet it
  // under more: the replica order settles nothing about probabilities.
  report.prune = request.prune && request.replicates == 1;
  for (const auto& a : space.axes) report.axes.push_back(a.key);
  for (const auto& a : space.axes) check_set_not_overwritten(request.sets, a.key, "a key of the search space");
  const int class_index = judged_class_index(base, request.class_name, scenario_path);
  const std::vector<std::string> common = common_overrides(request, base, class_index, report);

  // The objectives, as for capacity.
  report.slo_class = request.class_name;
  for (const SloScope& scope : slo_scopes(base, request.class_name, request.slo_text, scenario_path))
    for (const SloTarget& t : scope.targets) report.slo.push_back({scope.class_name, t});

  std::vector<Scenario> scenarios;
  std::vector<PlanEntry> entries;
  load_candidates(request, space, common, prices, report, scenarios, entries);
  check_prices_used(prices, scenarios);
  if (on_loaded) on_loaded(report);

  // Rounds: each runs its candidates in parallel, then settles them in index order.
  SearchPlan plan(std::move(entries), report.prune);
  for (auto round = plan.next_round(); !round.empty(); round = plan.next_round()) {
    std::vector<RunVerdict> verdicts(round.size());
    const auto run_one = [&](std::size_t k) { verdicts[k] = run_with_replicates(request, scenarios[round[k]], report); };
    run_each(round.size(), request.jobs, run_one, [&](std::size_t k, const ConfigError*) {
      if (on_done) on_done(round[k], verdicts[k].feasible, verdicts[k].reason);
    });
    for (std::size_t k = 0; k < round.size(); ++k) {
      const std::size_t i = round[k];
      settle_candidate(request, scenarios[i], prices, verdicts[k], report.candidates[i]);
      plan.record(i, verdicts[k].feasible, verdicts[k].load_failure, verdicts[k].reason, "candidate " + std::to_string(i));
    }
  }
  report.plan = plan.entries();
  report.runs = plan.runs();
  report.pruned = plan.pruned();
  rank_candidates(report);
  return report;
}

}  // namespace servesim
