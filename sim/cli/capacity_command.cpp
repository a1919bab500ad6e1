// `servesim capacity SCENARIO.yaml --slo ttft_p99=2s,itl_p99=100ms [--class NAME]
//  [--rate-key KEY] [--max-rate R] [--tolerance 1%] [--objective load|energy]`: the highest
// arrival rate (or concurrency) whose SLOs hold and whose run sustains it, with its energy
// under --objective energy (docs/sweeps.md); the study is
// sim/study/capacity_study.h, its report sim/report/capacity_report.h. Exit 0 with the rate
// and the figures at it; exit 1 if no rate is feasible.
#include <boost/program_options.hpp>
#include <ostream>
#include <sstream>

#include "sim/cli/commands.h"
#include "sim/cli/feasibility_options.h"
#include "sim/cli/options.h"
#include "sim/cli/study_long_run.h"
#include "sim/core/errors.h"
#include "sim/report/capacity_files.h"
#include "sim/report/capacity_report.h"
#include "sim/scenario/percent.h"
#include "sim/study/capacity_study.h"

namespace po = boost::program_options;

namespace servesim::cli {

namespace {

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

int capacity_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim capacity SCENARIO.yaml --slo ttft_p99=2s,... [options]");
  CapacityRequest request;
  std::string tolerance = "1%", out_dir, sustain = "5%";
  double max_rate = 0, start = 0;
  FeasibilityOptions feasible;
  opts.add_options()("help,h", "show this help")
      ("rate-key", po::value(&request.rate_key), "the scenario key to search instead (e.g. workload.0.arrival.concurrency)")
      ("start", po::value(&start), "first value tried (default: the scenario's own value)")
      ("max-rate", po::value(&max_rate), "never try above this value")
      ("tolerance", po::value(&tolerance), "stop when the bracket is this narrow, relative (default 1%)")
      ("integer", "the searched value is a whole number (implied for *.concurrency)")
      ("sustain-tolerance", po::value(&sustain),
       "a run must serve the offered rate within this share over the second half of its arrivals; "
       "a run too short to tell is lengthened up to 16x (default 5%)")
      ("replicates", po::value(&request.replicates),
       "search again with the seeds after it, K searches in all, and give the capacity as the mean with its "
       "95% interval (the trials shown are the first seed's)")
      ("objective", po::value(&request.objective),
       "load (default): the answer is the highest feasible value; energy: the same answer with the energy per "
       "output token, mean power and kWh of every trial and of the run at capacity, and the feasible trial that "
       "spent the least per output token (needs cluster.energy)")
      ("out,o", po::value(&out_dir), "also write capacity.json and the run at capacity's summary.json here")
      ("json", "print the result as JSON")
      ("quiet,q", "print only the result line");
  opts.add(feasible.describe("trial", "search this class's rate and check the SLO on it (default: scale every "
                                      "class's rate together, check the SLO overall)"));
  const char* about =
      "Finds the highest arrival rate (or concurrency) whose SLOs hold: doubling until a run\n"
      "fails, then bisection. A run whose queue grows without bound fails as saturated,\n"
      "stopped as soon as that is plain. Exit 0 with the rate; 1 if no rate is feasible.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("capacity", args, opts, about, request.scenario_path, vm, out, err))
    return *done;
  request.tolerance = parse_percent_or_throw(tolerance, "--tolerance");
  feasible.read_into(vm, request);
  request.sustain_tolerance = parse_percent_or_throw(sustain, "--sustain-tolerance");
  if (vm.count("start")) request.start = start;
  if (vm.count("max-rate")) request.max_rate = max_rate;
  request.integer = vm.count("integer") > 0;

  warn_long_study_runs("capacity", request.scenario_path, request.sets, err);
  const CapacityPlan plan = plan_capacity(request);
  const bool quiet = vm.count("quiet") > 0, json = vm.count("json") > 0;
  const bool progress = !quiet && !json;
  if (progress) print_capacity_header(plan, out);
  const CapacityStudy study = run_capacity(
      request, plan, [&](const CapacityTrialRun& t) { if (progress) print_capacity_trial(plan, t, out); },
      [&](std::uint64_t seed, std::optional<double> capacity) {
        if (progress) out << "  seed " << seed << ": " << (capacity ? fmt(*capacity) + " " + plan.knob.unit : "no feasible value") << "\n";
      });

  const nlohmann::ordered_json report = write_capacity_files(study, request.sustain_tolerance, out_dir);
  if (json) out << report.dump(2) << "\n";
  else print_capacity_result(study, out);
  return study.at_capacity() ? 0 : 1;
}

}  // namespace servesim::cli
