// `servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...]
//  [--jobs N] [--top K] [--json] [--out DIR]`: the cheapest configuration (per hour, per 1M
// output tokens) that carries the target rate within the SLOs, as Vidur-Search and
// aiconfigurator look for it (docs/sweeps.md). The study is sim/study/search_study.h, its
// report sim/report/search_report.h. Exit 0 with a winner, 1 if no candidate is feasible,
// 2 on bad input.
#include <boost/program_options.hpp>
#include <filesystem>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/feasibility_options.h"
#include "sim/cli/options.h"
#include "sim/cli/study_long_run.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/core/errors.h"
#include "sim/report/atomic_write.h"
#include "sim/report/search_report.h"
#include "sim/scenario/percent.h"
#include "sim/study/search_study.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace servesim::cli {

int search_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...] [options]");
  std::string scenario_path, space_path, out_dir, price_text;
  FeasibilityOptions feasible;
  double rate = 0;
  int jobs = default_jobs();
  int report_replicates = 1;
  std::size_t top = 5;
  opts.add_options()("help,h", "show this help")
      ("space", po::value(&space_path), "YAML file: scenario keys (as --set paths), each with a list of candidate values")
      ("rate", po::value(&rate), "target arrival rate (req/s) of the class (--class, or the only class)")
      ("price", po::value(&price_text), "USD per GPU-hour by hardware name, over the profiles' price_per_gpu_hour: h100-sxm=2.5,l40s=0.9")
      ("jobs,j", po::value(&jobs), "candidates run at once on local cores (default: all hardware threads)")
      ("top", po::value(&top), "show the winner and this many minus one runners-up (default 5)")
      ("no-prune", "run every candidate, even those the replica order already settles")
      ("replicates", po::value<int>(&report_replicates),
       "run every candidate with K seeds and rank by the share that meets the SLO (with its 95% interval), "
       "then by cost; runs every candidate (no pruning)")
      ("out,o", po::value(&out_dir), "output folder for search.json and search.csv (default results/NAME-search)")
      ("json", "print the result (search.json) instead of the table")
      ("quiet,q", "print only the winner line");
  opts.add(feasible.describe("candidate", "the class whose rate --rate sets and on which --slo is checked"));
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
  check_replicates(report_replicates);
  if (top < 1) throw ConfigError("--top", 0, std::to_string(top), "must be at least 1");
  if (vm.count("rate") && !(rate > 0)) throw ConfigError("--rate", 0, std::to_string(rate), "must be > 0 req/s");
  SearchRequest request;
  request.scenario_path = scenario_path;
  request.space_path = space_path;
  feasible.read(vm);
  request.sets = feasible.sets;
  request.class_name = feasible.class_name;
  if (vm.count("rate")) request.rate = rate;
  request.slo_text = feasible.slo_text;
  request.price_text = price_text;
  request.jobs = jobs;
  request.prune = vm.count("no-prune") == 0;
  request.reject_share = feasible.reject_share;
  request.early_stop = feasible.early_stop;
  request.seed = feasible.seed;
  request.replicates = report_replicates;

  const bool quiet = vm.count("quiet") > 0, json = vm.count("json") > 0;
  std::size_t done = 0;
  warn_long_study_runs("search", request.scenario_path, request.sets, err);
  const SearchReport report = run_search(
      request,
      [&](const SearchReport& loaded) {
        if (quiet || json) return;
        out << "servesim search: " << loaded.scenario << ", " << loaded.candidates.size() << " candidates over "
            << loaded.axes.size() << (loaded.axes.size() == 1 ? " key" : " keys");
        if (!loaded.rate_key.empty()) out << " at " << loaded.rate_key << " = " << ojson(loaded.rate).dump() << " req/s";
        out << "; SLO ";
        for (std::size_t i = 0; i < loaded.slo.size(); ++i)
          out << (i ? ", " : "") << loaded.slo[i].second.text() << (loaded.slo[i].first.empty() ? "" : " (" + loaded.slo[i].first + ")");
        out << "\n";
      },
      [&](std::size_t index, bool feasible, const std::string& reason) {
        if (!quiet && !json) err << "[" << ++done << "] candidate " << index << ": " << (feasible ? "feasible" : reason) << "\n";
      });

  if (out_dir.empty()) out_dir = "results/" + report.scenario + "-search";
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
    out << report.runs << " of " << report.candidates.size() << " candidates ran";
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
