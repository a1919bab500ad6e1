#pragma once
// The configuration search (`servesim search`, docs/sweeps.md): every candidate of a space
// (scenario keys, each with its alternatives) run at the target rate and judged as capacity
// judges a run (run_judgement.h); the feasible ones ranked by the objective (cost per hour,
// or with cluster.energy the energy per output token or the cost with electricity), or with
// replicates by the share of seeds that meet the SLO, then the objective. Candidates that differ only
// in replica counts are searched in replica order (search_plan.h).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"
#include "sim/study/search_plan.h"
#include "sim/study/slo_targets.h"

namespace servesim {

struct SearchCandidate {
  std::vector<std::string> values;  // per axis, YAML text
  // False for a combination the loader refused (its plan entry says why): no pools, so no
  // GPUs or cost either.
  bool built = true;
  double cost_per_hour = 0;
  long long gpus = 0;
  std::optional<RunSummary> summary;  // for the candidates that ran to a summary
  // Requests per second offered and served over the second half of the arrivals, where the
  // run was judged on them (sim/metrics/sustained_rate.h): the rate the candidate holds,
  // undiluted by the drain that the summary's request_throughput includes.
  std::optional<double> offered_rate, served_rate;
  // With replicates: how many of the seeds met the SLO, and that share with its 95% Wilson
  // interval: the probability of meeting the SLO at the target rate.
  int replicates_met = 0;
  std::optional<FigureInterval> slo_probability;
  // With cluster.energy, from the run's overall energy object (sim/metrics/energy_meter.h):
  // kWh over the run, J per output token, and USD an hour of its mean power costs at
  // cluster.energy.price_per_kwh (only with a price; cost_per_hour includes it).
  std::optional<double> energy_kwh, energy_per_output_token_j, energy_cost_per_hour;
  // With replicates: a ranked candidate with a lower share than the winner's that cannot be
  // told apart from it (their intervals overlap).
  bool tied_with_winner = false;
};

// What ranks the feasible candidates (--objective, docs/sweeps.md).
enum class SearchObjective {
  cost,        // cost per hour: GPUs, plus electricity where cluster.energy has a price
  energy,      // J per output token (needs cluster.energy)
  total_cost,  // GPUs plus electricity per hour (needs cluster.energy.price_per_kwh)
};

// "cost", "energy", "total-cost"; empty for any other text.
std::optional<SearchObjective> search_objective_of(const std::string& text);
const char* search_objective_name(SearchObjective objective);

struct SearchReport {
  std::string scenario;
  std::string space_path;
  std::vector<std::string> axes;
  std::string rate_key;               // empty when the scenario's own rates are used
  double rate = 0;
  std::string slo_class;              // "" = overall block (or each class's own slo:)
  std::vector<std::pair<std::string, SloTarget>> slo;  // class ("" overall), target
  bool prune = true;
  int replicates = 1;                 // seeds each candidate ran with
  SearchObjective objective = SearchObjective::cost;
  bool metered_energy = false;        // some candidate's scenario has cluster.energy
  std::vector<std::string> unpriced;  // hardware with no price, counted as free
  std::vector<SearchCandidate> candidates;
  std::vector<PlanEntry> plan;        // per candidate: status, ran, reason
  std::vector<std::size_t> ranking;   // the feasible candidates, cheapest first
  std::size_t runs = 0;
  std::size_t pruned = 0;
};

// Orders the feasible candidates by cost per hour, then GPUs, then cost per 1M output
// tokens, then index, and stores the order in report.ranking; with the energy objective by
// J per output token first. With replicates, by the
// probability of meeting the SLO first (highest first), then as above, and marks the
// candidates whose probability cannot be told apart from the winner's.
void rank_candidates(SearchReport& report);

// USD per million tokens of `throughput_field` ("output_throughput",
// "total_token_throughput") at the candidate's cost per hour; empty without figures.
std::optional<double> candidate_cost_per_million(const SearchCandidate& c, const std::string& throughput_field);

struct SearchRequest {
  std::string scenario_path;
  std::string space_path;
  std::vector<std::string> sets;   // --set overrides of every candidate
  std::string class_name;          // the class --rate sets and the SLO is checked on
  std::optional<double> rate;      // req/s of that class; the scenario's own rates without it
  std::string slo_text;            // "" each class's slo:
  std::string price_text;          // "h100-sxm=2.5,..." over the profiles' prices
  int jobs = 1;                    // candidates run at once
  bool prune = true;
  double reject_share = 0;
  bool early_stop = true;
  std::optional<std::uint64_t> seed;
  int replicates = 1;              // seeds per candidate (pruning is off with more than one)
  std::string objective = "cost";  // what ranks them: cost, energy, total-cost

  // Throws ConfigError naming the field for what needs no scenario to refuse (replicates,
  // jobs, rate, reject_share, objective). run_search calls it first.
  void validate() const;
};

// Loads and validates every candidate, runs them in rounds and ranks them. `on_done` sees
// each candidate as its run ends (index, feasible, reason), from any thread, one at a time.
// `on_loaded` sees the report once every candidate is loaded, before any runs. Throws
// ConfigError on bad input (a candidate's bad value at its line in the space file).
SearchReport run_search(const SearchRequest& request,
                        const std::function<void(const SearchReport&)>& on_loaded = {},
                        const std::function<void(std::size_t, bool, const std::string&)>& on_done = {});

}  // namespace servesim
