// `servesim explain SCENARIO.yaml [--out DIR] [--set KEY=VALUE]... [--json] [--jobs N]`:
// runs the explain study (sim/study/explain_study.h) and writes explain.json and the text
// report (sim/report/explain_report.h).
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/study_long_run.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/core/errors.h"
#include "sim/report/explain_files.h"
#include "sim/report/explain_report.h"
#include "sim/study/explain_study.h"

namespace po = boost::program_options;

namespace servesim::cli {

int explain_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim explain SCENARIO.yaml [options]");
  std::string scenario_path, out_dir;
  std::vector<std::string> sets;
  int jobs = default_jobs();
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_dir), "output folder for explain.json (default results/NAME-explain)")
      ("set", po::value(&sets)->composing(), "override a scenario key of the base: --set stop.requests=2000")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed (every variant uses the same seed)")
      ("jobs,j", po::value(&jobs), "variants run at once on local cores (default: all hardware threads)")
      ("json", "print the result as JSON instead of text");
  const char* about =
      "Runs the scenario and one-lever variants of it (prefix caching, chunk size, batch cap,\n"
      "weight precision, speculative decoding, one more replica per pool) and ranks how far each\n"
      "lever moves TTFT p50/p99, TPOT p50/p99 (ITL beside) and throughput, saying which phase\n"
      "owns each metric. Overloaded variants (saturated, or rejecting requests) are ranked last.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("explain", args, opts, about, scenario_path, vm, out, err)) return *done;
  if (jobs < 1) throw option_error("--jobs", std::to_string(jobs), "must be at least 1");

  ExplainRequest request;
  request.scenario_path = scenario_path;
  request.sets = sets;
  if (vm.count("seed")) request.seed = vm["seed"].as<std::uint64_t>();
  request.jobs = jobs;
  warn_long_study_runs("explain", request.scenario_path, request.sets, err);
  const ExplainStudy study = run_explain(request);
  const ExplainFiles files = write_explain_files(study, out_dir);
  if (vm.count("json")) {
    out << files.json.dump(2) << "\n";
  } else {
    out << explain_text(study) << "\nwrote " << files.json_path << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
