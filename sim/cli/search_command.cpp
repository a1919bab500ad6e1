// `servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...]
//  [--jobs N] [--top K] [--json] [--out DIR]`: the cheapest configuration (per hour, per 1M
// output tokens) that carries the target rate within the SLOs, as Vidur-Search and
// aiconfigurator look for it (docs/sweeps.md). Exit 0 with a winner, 1 if no candidate is
// feasible, 2 on bad input.
#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <map>
#include <iomanip>
#include <mutex>
#include <ostream>
#include <regex>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/study/run_judgement.h"
#include "sim/cli/search_cost.h"
#include "sim/cli/search_plan.h"
#include "sim/cli/search_report.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/cluster/saturation_watch.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/io/atomic_write.h"
#include "sim/io/percent.h"
#include "sim/io/scenario_loader.h"
#include "sim/io/search_space.h"
#include "sim/io/slo_targets.h"
#include "sim/metrics/replicate_intervals.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace servesim::cli {
namespace {

// What one run of a candidate says: feasible, or why not, and whether the reason is the
// load (so fewer replicas fail too) rather than a configuration that cannot be built.
struct RunVerdict {
  bool feasible = false;
  bool load_failure = false;
  std::string reason;
  std::optional<RunSummary> summary;
  SustainedRate sustained;  // offered and served over the second half of the arrivals
  int met = 0;              // replicates that were feasible (1 or 0 without replicates)
};

// The same test of a run as `servesim capacity` (docs/sweeps.md): not saturated, something
// completed, rejections within the allowance, every SLO target met.
RunVerdict run_candidate(const Scenario& s, const std::vector<std::pair<std::string, SloTarget>>& slo,
                         double reject_share, bool early_stop) {
  RunVerdict v;
  try {
    std::vector<SloScope> scopes;
    for (const auto& [cls, target] : slo) scopes.push_back({cls, {target}});
    // As capacity does: a run too short to judge is lengthened (up to 16x) before it counts.
    std::string lengthened;
    RunJudgement judged = judge_long_enough(s, scopes, reject_share, early_stop, true, kSustainTolerance, 16, &lengthened);
    v.summary = judged.result.summary;
    v.sustained = judged.sustained;
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
    const int axis = e.file() == "--set" ? space_axis_of_key(space, e.key()) : -1;
    if (axis < 0) throw;
    const auto at = sweep_point_indices(space.axes, SweepMode::product, index)[static_cast<std::size_t>(axis)];
    const SpaceMark m = space.value_marks[static_cast<std::size_t>(axis)][at];
    throw ConfigError(space.path, m.line, e.key(), e.message(), m.column);
  }
}

bool is_replicas_key(const std::string& key) {
  static const std::regex kReplicas(R"(cluster\.pools\.[0-9]+\.replicas)");
  return std::regex_match(key, kReplicas);
}

}  // namespace

int search_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...] [options]");
  std::string scenario_path, space_path, slo_text, class_name, max_rejected = "0%", out_dir, price_text;
  std::vector<std::string> sets;
  double rate = 0;
  int jobs = default_jobs();
  int report_replicates = 1;
  std::size_t top = 5;
  opts.add_options()("help,h", "show this help")
      ("space", po::value(&space_path), "YAML file: scenario keys (as --set paths), each with a list of candidate values")
      ("rate", po::value(&rate), "target arrival rate (req/s) of the class (--class, or the only class)")
      ("class", po::value(&class_name), "the class whose rate --rate sets and on which --slo is checked")
      ("slo", po::value(&slo_text), "objectives: METRIC_STAT=DURATION,... as for capacity (STAT also every); default: each class's slo:")
      ("price", po::value(&price_text), "USD per GPU-hour by hardware name, over the profiles' price_per_gpu_hour: h100-sxm=2.5,l40s=0.9")
      ("jobs,j", po::value(&jobs), "candidates run at once on local cores (default: all hardware threads)")
      ("top", po::value(&top), "show the winner and this many minus one runners-up (default 5)")
      ("no-prune", "run every candidate, even those the replica order already settles")
      ("max-rejected", po::value(&max_rejected), "share of requests that may be rejected (default 0%)")
      ("no-early-stop", "run every candidate to its end, even when its queue plainly grows without bound")
      ("set", po::value(&sets)->composing(), "override a scenario key for every candidate")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed (every candidate uses the same seed)")
      ("replicates", po::value<int>(&report_replicates),
       "run every candidate with K seeds and rank by the share that meets the SLO (with its 95% interval), "
       "then by cost; runs every candidate (no pruning)")
      ("out,o", po::value(&out_dir), "output folder for search.json and search.csv (default results/NAME-search)")
      ("json", "print the result (search.json) instead of the table")
      ("quiet,q", "print only the winner line");
  const char* about =
      "Finds the cheapest configuration that carries the target rate within the SLOs: every\n"
      "candidate of the space runs at that rate; the feasible ones are ranked by cost per hour\n"
      "(replicas x tp x pp x price per GPU-hour, over pools). Exit 0 with a winner, 1 if none.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("search", args, opts, about, scenario_path, vm, out, err)) return *done;
  if (space_path.empty()) {
    err << "servesim search: a scenario file and --space SPACE.yaml are required\n\n" << opts;
    return 2;
  }
  if (jobs < 1) throw ConfigError("--jobs", 0, std::to_string(jobs), "must be at least 1");
  if (report_replicates < 1 || report_replicates > 1000)
    throw ConfigError("", 0, "--replicates", "must be a whole number from 1 to 1000, got " + std::to_string(report_replicates));
  if (top < 1) throw ConfigError("--top", 0, std::to_string(top), "must be at least 1");
  if (vm.count("rate") && !(rate > 0)) throw ConfigError("--rate", 0, std::to_string(rate), "must be > 0 req/s");
  const double reject_share = parse_percent_or_throw(max_rejected, "--max-rejected");
  const auto prices = price_text.empty() ? std::map<std::string, double>{} : parse_prices(price_text);
  const SearchSpace space = load_search_space(space_path);

  const Scenario base = load_scenario(scenario_path, sets);
  SearchReport report;
  report.scenario = base.name;
  report.space_path = space_path;
  report.replicates = report_replicates;
  // A candidate with more replicas than one that met the SLO under some seeds may meet it
  // under more: the replica order settles nothing about probabilities.
  report.prune = vm.count("no-prune") == 0 && report_replicates == 1;
  for (const auto& a : space.axes) report.axes.push_back(a.key);

  int class_index = -1;
  if (!class_name.empty()) {
    for (std::size_t i = 0; i < base.workload.size(); ++i)
      if (base.workload[i].name == class_name) class_index = static_cast<int>(i);
    if (class_index < 0) throw ConfigError(scenario_path, 0, "--class", "no workload class is named '" + class_name + "'");
  } else if (base.workload.size() == 1) {
    class_index = 0;
  }
  std::vector<std::string> common = sets;
  if (vm.count("rate")) {
    if (class_index < 0) throw ConfigError(scenario_path, 0, "--rate", "the scenario has several classes: name one with --class");
    const ClassSpec& c = base.workload[static_cast<std::size_t>(class_index)];
    if (!c.arrival || c.arrival->process == ArrivalSpec::Process::closed)
      throw ConfigError(scenario_path, 0, "--rate", "class '" + c.name + "' has no arrival rate (a trace or a closed loop); "
                                                    "set its load with --set (trace.speedup, arrival.concurrency)");
    report.rate_key = "workload." + std::to_string(class_index) + ".arrival.rate";
    report.rate = rate;
    common.push_back(report.rate_key + "=" + ojson(rate).dump());
  }

  // The objectives, as for capacity.
  report.slo_class = class_name;
  if (!slo_text.empty()) {
    for (const auto& t : parse_slo_targets(slo_text)) report.slo.push_back({class_name, t});
  } else {
    for (const auto& c : base.workload)
      if (class_name.empty() || c.name == class_name)
        for (const auto& t : slo_targets_from_spec(c.slo)) report.slo.push_back({c.name, t});
    if (report.slo.empty()) throw ConfigError(scenario_path, 0, "--slo", "give --slo ttft_p99=2s,... or an slo: in the class");
  }

  // Every candidate is loaded (so validated) and priced before any runs.
  const std::size_t count = sweep_point_count(space.axes, SweepMode::product);
  std::vector<Scenario> scenarios;
  std::vector<PlanEntry> entries;
  for (std::size_t p = 0; p < count; ++p) {
    std::vector<std::string> overrides = common;
    for (auto& o : sweep_point_overrides(space.axes, SweepMode::product, p)) overrides.push_back(std::move(o));
    Scenario s = load_candidate(scenario_path, overrides, space, p);
    if (vm.count("seed")) s.seed = vm["seed"].as<std::uint64_t>();
    SearchCandidate c;
    const auto at = sweep_point_indices(space.axes, SweepMode::product, p);
    PlanEntry e;
    for (std::size_t a = 0; a < space.axes.size(); ++a) {
      c.values.push_back(space.axes[a].values[at[a]]);
      if (!is_replicas_key(space.axes[a].key)) e.family += c.values.back() + '\x1f';
    }
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

  const bool quiet = vm.count("quiet") > 0, json = vm.count("json") > 0;
  if (!quiet && !json) {
    out << "servesim search: " << base.name << ", " << count << " candidates over " << space.axes.size()
        << (space.axes.size() == 1 ? " key" : " keys");
    if (!report.rate_key.empty()) out << " at " << report.rate_key << " = " << ojson(rate).dump() << " req/s";
    out << "; SLO ";
    for (std::size_t i = 0; i < report.slo.size(); ++i)
      out << (i ? ", " : "") << report.slo[i].second.text() << (report.slo[i].first.empty() ? "" : " (" + report.slo[i].first + ")");
    out << "\n";
  }

  // Rounds: each runs its candidates in parallel, then settles them in index order.
  SearchPlan plan(std::move(entries), report.prune);
  const bool early_stop = vm.count("no-early-stop") == 0;
  std::mutex progress_mutex;
  std::size_t done = 0;
  for (auto round = plan.next_round(); !round.empty(); round = plan.next_round()) {
    std::vector<RunVerdict> verdicts(round.size());
    run_parallel(round.size(), jobs, [&](std::size_t k) {
      verdicts[k] = run_candidate(scenarios[round[k]], report.slo, reject_share, early_stop);
      verdicts[k].met = verdicts[k].feasible ? 1 : 0;
      // Replicates: the same candidate under the seeds after its own; the first run's
      // figures stand in the table, the count of feasible seeds ranks it.
      bool buildable = verdicts[k].summary.has_value();
      for (int r = 1; r < report_replicates && buildable; ++r) {
        Scenario again = scenarios[round[k]];
        again.seed += static_cast<std::uint64_t>(r);
        const RunVerdict v = run_candidate(again, report.slo, reject_share, early_stop);
        verdicts[k].met += v.feasible ? 1 : 0;
        if (!v.feasible && verdicts[k].reason.empty()) verdicts[k].reason = "seed " + std::to_string(again.seed) + ": " + v.reason;
      }
      if (report_replicates >= 2 && buildable) verdicts[k].feasible = verdicts[k].met > 0;
      if (!quiet && !json) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        err << "[" << ++done << "] candidate " << round[k] << ": " << (verdicts[k].feasible ? "feasible" : verdicts[k].reason) << "\n";
      }
    });
    for (std::size_t k = 0; k < round.size(); ++k) {
      const std::size_t i = round[k];
      report.candidates[i].summary = std::move(verdicts[k].summary);
      if (verdicts[k].sustained.offered_per_s > 0) {
        report.candidates[i].offered_rate = verdicts[k].sustained.offered_per_s;
        report.candidates[i].served_rate = verdicts[k].sustained.served_per_s;
      }
      if (report_replicates >= 2 && report.candidates[i].summary) {
        report.candidates[i].replicates_met = verdicts[k].met;
        report.candidates[i].slo_probability = share_interval(verdicts[k].met, report_replicates);
      }
      plan.record(i, verdicts[k].feasible, verdicts[k].load_failure, verdicts[k].reason, "candidate " + std::to_string(i));
    }
  }
  report.plan = plan.entries();
  report.runs = plan.runs();
  report.pruned = plan.pruned();
  rank_candidates(report);

  if (out_dir.empty()) out_dir = "results/" + base.name + "-search";
  const ojson j = search_report_to_json(report);
  const std::string json_path = (fs::path(out_dir) / "search.json").string();
  const std::string csv_path = (fs::path(out_dir) / "search.csv").string();
  write_file_atomically(json_path, "--out", [&](std::ostream& f) { f << j.dump(2) << "\n"; });
  write_file_atomically(csv_path, "--out", [&](std::ostream& f) { write_search_csv(j, f); });

  if (json) {
    out << j.dump(2) << "\n";
  } else if (quiet) {
    if (report.ranking.empty()) out << "no candidate is feasible\n";
    else out << "winner: candidate " << report.ranking.front() << " (" << candidate_label(report, report.ranking.front()) << ")\n";
  } else {
    out << report.runs << " of " << count << " candidates ran";
    if (report.pruned)
      out << "; " << report.pruned << " settled without a run by the replica order (fewer replicas than a failing "
             "candidate fail, more than a feasible one cost more; --no-prune runs them)";
    out << "\n";
    print_search_report(report, top, out);
    out << "wrote " << json_path << ", " << csv_path << "\n";
  }
  return report.ranking.empty() ? 1 : 0;
}

}  // namespace servesim::cli
