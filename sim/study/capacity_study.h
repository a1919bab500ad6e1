#pragma once
// The capacity study (`servesim capacity`, docs/sweeps.md): the highest value of a load knob
// (a class's arrival rate, concurrency or trace speed-up, a multiplier of every class's
// rate, or any numeric key) at which a run is feasible as run_judgement.h judges it, found
// by doubling and bisection (capacity_search.h); with replicates, the same search under
// consecutive seeds, the capacity as a mean with its 95% interval.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"
#include "sim/study/capacity_search.h"
#include "sim/metrics/sustained_rate.h"
#include "sim/study/slo_targets.h"

namespace servesim {

// What the answer reports (--objective, docs/sweeps.md). Along one load knob the answer is
// always the highest feasible value; `energy` adds the energy of every trial and of the run
// at capacity, and names the feasible trial that spent the least per output token.
enum class CapacityObjective {
  load,    // the highest feasible load (the default)
  energy,  // the same, with its J per output token, mean power and kWh (needs cluster.energy)
};

// "load", "energy"; empty for any other text.
std::optional<CapacityObjective> capacity_objective_of(const std::string& text);

struct CapacityRequest {
  std::string scenario_path;
  std::vector<std::string> sets;         // --set overrides of every trial
  std::string class_name;                // "" with several classes: scale every class's rate
  std::string rate_key;                  // any other key to search ("" the class's own)
  std::string slo_text;                  // "ttft_p99=2s,..."; "" each class's slo:
  std::optional<double> start, max_rate;
  double tolerance = 0.01;               // relative width of the final bracket
  bool integer = false;                  // search whole numbers (implied for *concurrency)
  double reject_share = 0;               // share of arrivals that may be rejected
  double sustain_tolerance = kSustainTolerance;
  bool early_stop = true;
  std::optional<std::uint64_t> seed;     // the first seed; the scenario's without it
  int replicates = 1;                    // searches, one seed each
  std::string objective = "load";        // load, energy

  // Throws ConfigError naming the field for what needs no scenario to refuse (replicates,
  // tolerances, start, max_rate, reject_share, objective). plan_capacity calls it first.
  void validate() const;
};

// What the search turns: one scenario key set to x, or (scale) every class's rate key set to
// its own value times x.
struct CapacityKnob {
  std::vector<std::pair<std::string, double>> keys;  // key, the scenario's value
  bool scale = false;
  bool integer = false;
  std::string unit;  // for reports: "req/s", "users", "x the scenario's rates"
  double start = 1;
  // The --set overrides that put the knob at x.
  std::vector<std::string> overrides(double x) const;
};

// The knob and objectives a request resolves to, before anything runs.
struct CapacityPlan {
  std::string scenario_name;
  CapacityKnob knob;
  std::vector<SloScope> scopes;
  CapacityObjective objective = CapacityObjective::load;
  double price_per_kwh = 0;  // cluster.energy.price_per_kwh (USD; 0 = none)
};

struct CapacityTrialRun {
  double x = 0;
  bool feasible = false;
  std::string reason;      // why not, "; "-separated
  RunSummary summary;
  SustainedRate sustained;  // offered and served over the second half of the arrivals
  bool too_short = false;
  bool fails_at_any_load = false;  // RunJudgement::fails_at_any_load
  std::string lengthened;  // "run lengthened 4x to 800 requests", or ""
};

struct CapacityReplicates {
  std::vector<std::uint64_t> seeds;                // the first search's seed first
  std::vector<std::optional<double>> capacities;   // per seed; nullopt: none feasible
  int capped = 0;                                  // searches stopped at the highest value tried
  std::optional<FigureInterval> interval;          // over the seeds that found one (>= 2)
  int found() const;
};

struct CapacityStudy {
  CapacityPlan plan;
  CapacitySearchResult search;            // the first seed's search
  std::vector<CapacityTrialRun> trials;   // its trials, in search.trials' order
  std::optional<CapacityReplicates> replicates;
  // The trial at capacity, or nullptr when no value is feasible.
  const CapacityTrialRun* at_capacity() const;
  // The feasible trial of the first search with the least energy per output token (the
  // lowest value on a tie), or nullptr when none is feasible or none was metered.
  const CapacityTrialRun* least_energy() const;
};

// Resolves the knob and the objectives. Throws ConfigError on a bad request (no class of
// that name, a knob without a value and no start, no SLO anywhere, --objective energy on a
// scenario without cluster.energy).
CapacityPlan plan_capacity(const CapacityRequest& request);

// Runs the search (and its replicates). `on_trial` sees each trial of the first search as it
// ends; `on_replicate` each further seed's capacity (nullopt: none feasible).
CapacityStudy run_capacity(const CapacityRequest& request, const CapacityPlan& plan,
                           const std::function<void(const CapacityTrialRun&)>& on_trial = {},
                           const std::function<void(std::uint64_t, std::optional<double>)>& on_replicate = {});

}  // namespace servesim
