#pragma once
// The results of `servesim search` (docs/sweeps.md): every candidate with its values,
// status, cost and figures, ranked by cost; written as search.json and search.csv and
// shown as a console table of the winner and the runners-up.
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/search_plan.h"
#include "sim/io/slo_targets.h"
#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"

namespace servesim::cli {

struct SearchCandidate {
  std::vector<std::string> values;  // per axis, YAML text
  double cost_per_hour = 0;
  long long gpus = 0;
  std::optional<RunSummary> summary;  // for the candidates that ran to a summary
  // Requests per second offered and served over the second half of the arrivals, where the
  // run was judged on them (sim/study/sustained_rate.h): the rate the candidate holds,
  // undiluted by the drain that the summary's request_throughput includes.
  std::optional<double> offered_rate, served_rate;
  // With replicates: how many of the seeds met the SLO, and that share with its 95% Wilson
  // interval: the probability of meeting the SLO at the target rate.
  int replicates_met = 0;
  std::optional<FigureInterval> slo_probability;
  // With replicates: a ranked candidate with a lower share than the winner's that cannot be
  // told apart from it (their intervals overlap).
  bool tied_with_winner = false;
};

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
  std::vector<std::string> unpriced;  // hardware with no price, counted as free
  std::vector<SearchCandidate> candidates;
  std::vector<PlanEntry> plan;        // per candidate: status, ran, reason
  std::vector<std::size_t> ranking;   // the feasible candidates, cheapest first
  std::size_t runs = 0;
  std::size_t pruned = 0;
};

// Orders the feasible candidates by cost per hour, then GPUs, then cost per 1M output
// tokens, then index, and stores the order in report.ranking. With replicates, by the
// probability of meeting the SLO first (highest first), then as above, and marks the
// candidates whose probability cannot be told apart from the winner's.
void rank_candidates(SearchReport& report);

// "cluster.pools.0.replicas=3, cluster.pools.0.hardware=h100-sxm" (long values shortened).
std::string candidate_label(const SearchReport& report, std::size_t index);

nlohmann::ordered_json search_report_to_json(const SearchReport& report);
// One line per candidate: candidate, each axis, status, rank, ran, gpus, cost_per_hour,
// cost_per_1m_output_tokens, cost_per_1m_total_tokens, reason, the sweep fields, then
// classes.NAME.FIELD (scenarios with two or more classes).
void write_search_csv(const nlohmann::ordered_json& report_json, std::ostream& out);
// The winner and up to top - 1 runners-up as a table, then the candidates that are not
// feasible with their reasons (at most 20 lines; the files hold all).
void print_search_report(const SearchReport& report, std::size_t top, std::ostream& out);

}  // namespace servesim::cli
