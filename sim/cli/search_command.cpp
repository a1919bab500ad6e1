// `servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...]
//  [--objective cost|energy|total-cost] [--jobs N] [--top K] [--json] [--out DIR]`: the cheapest configuration (per hour, per 1M
// output tokens) that carries the target rate within the SLOs, as Vidur-Search and
// aiconfigurator look for it (docs/sweeps.md). The study is sim/study/search_study.h, its
// report sim/report/search_report.h and sim/report/search_outputs.h. Exit 0 with a winner,
// 1 if no candidate is feasible, 2 on bad input.
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/feasibility_options.h"
#include "sim/cli/options.h"
#include "sim/cli/study_long_run.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/report/search_outputs.h"
#include "sim/study/search_study.h"

namespace po = boost::program_options;

namespace servesim::cli {

namespace {

// The options as typed, before they are checked.
struct SearchOptions {
  std::string scenario_path, space_path, out_dir, price_text, objective = "cost";
  FeasibilityOptions feasible;
  double rate = 0;
  int jobs = default_jobs();
  int replicates = 1;
  std::size_t top = 5;
};

po::options_description search_options(SearchOptions& o) {
  po::options_description opts("servesim search SCENARIO.yaml --space SPACE.yaml [--class NAME] [--rate R] [--slo ...] [options]");
  opts.add_options()("help,h", "show this help")
      ("space", po::value(&o.space_path), "YAML file: scenario keys (as --set paths), each with a list of candidate values")
      ("rate", po::value(&o.rate), "target arrival rate (req/s) of the class (--class, or the only class)")
      ("price", po::value(&o.price_text), "USD per GPU-hour by hardware name, over the profiles' price_per_gpu_hour: h100-sxm=2.5,l40s=0.9")
      ("objective", po::value(&o.objective),
       "what ranks the feasible candidates: cost (per hour, default), energy (J per output token; needs "
       "cluster.energy) or total-cost (GPUs plus electricity per hour; needs cluster.energy.price_per_kwh)")
      ("jobs,j", po::value(&o.jobs), "candidates run at once on local cores (default: all hardware threads)")
      ("top", po::value(&o.top), "show the winner and this many minus one runners-up (default 5)")
      ("no-prune", "run every candidate, even those the replica order already settles")
      ("replicates", po::value<int>(&o.replicates),
       "run every candidate with K seeds and rank by the share that meets the SLO (with its 95% interval), "
       "then by cost; runs every candidate (no pruning)")
      ("out,o", po::value(&o.out_dir), "output folder for search.json and search.csv (default results/NAME-search)")
      ("json", "print the result (search.json) instead of the table")
      ("quiet,q", "print only the winner line");
  opts.add(o.feasible.describe("candidate", "the class whose rate --rate sets and on which --slo is checked"));
  return opts;
}

SearchRequest search_request(SearchOptions& o, const po::variables_map& vm) {
  if (o.top < 1) throw option_error("--top", std::to_string(o.top), "must be at least 1");
  SearchRequest request;
  request.scenario_path = o.scenario_path;
  request.space_path = o.space_path;
  o.feasible.read_into(vm, request);
  if (vm.count("rate")) request.rate = o.rate;
  request.price_text = o.price_text;
  request.jobs = o.jobs;
  request.prune = vm.count("no-prune") == 0;
  request.replicates = o.replicates;
  request.objective = o.objective;
  return request;
}

}  // namespace

int search_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SearchOptions options;
  const po::options_description opts = search_options(options);
  const char* about =
      "Finds the cheapest configuration that carries the target rate within the SLOs: every\n"
      "candidate of the space runs at that rate; the feasible ones are ranked by cost per hour\n"
      "(replicas x tp x pp x price per GPU-hour, over pools), or as --objective says. Exit 0\n"
      "with a winner, 1 if none.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("search", args, opts, about, options.scenario_path, vm, out, err))
    return *done;
  if (options.space_path.empty()) {
    err << "servesim search: a scenario file and --space SPACE.yaml are required\n\n" << opts;
    return 2;
  }
  const SearchRequest request = search_request(options, vm);
  const bool quiet = vm.count("quiet") > 0, json = vm.count("json") > 0;
  std::size_t done = 0;
  warn_long_study_runs("search", request.scenario_path, request.sets, err);
  const SearchReport report = run_search(
      request,
      [&](const SearchReport& loaded) {
        if (!quiet && !json) print_search_scope(loaded, out);
      },
      [&](std::size_t index, bool feasible, const std::string& reason) {
        if (!quiet && !json) err << "[" << ++done << "] candidate " << index << ": " << (feasible ? "feasible" : reason) << "\n";
      });
  const SearchFiles files = write_search_files(report, options.out_dir);
  if (json) {
    out << files.json.dump(2) << "\n";
  } else if (quiet) {
    print_search_winner(report, out);
  } else {
    print_search_outcome(report, options.top, files, out);
  }
  return report.ranking.empty() ? 1 : 0;
}

}  // namespace servesim::cli
