// `servesim replay BENCH --scenario S [--tolerance 10%] [--json]`: replays the requests of a
// real benchmark run (vllm bench serve, inference-perf, GuideLLM) through the scenario's
// deployment and prints measured against simulated, figure by figure, with signed errors.
// Exit 1 when --tolerance is given and a figure is off by more; 2 on bad input. The study is
// sim/study/replay_study.h, its report sim/report/replay_report.h.
#include <ostream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/replay_report.h"
#include "sim/scenario/percent.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/replay_study.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace po = boost::program_options;

namespace servesim::cli {

int replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim replay BENCH --scenario S [options]");
  std::string bench_path, scenario_path, format = "auto", tolerance;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")
      ("scenario", po::value(&scenario_path), "the deployment to replay through (scenario YAML); its workload is replaced")
      ("format", po::value(&format), "benchmark format: auto (default), vllm-bench, inference-perf, guidellm")
      ("set", po::value(&sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("tolerance", po::value(&tolerance), "exit 1 when any figure's |error| exceeds this, e.g. 10%")
      ("json", "print the comparison as JSON")
      ("force", "replay a benchmark whose model, tokenizer, engine or parallelism differ from the scenario's (a warning instead of exit 2)");
  po::options_description hidden;
  hidden.add_options()("bench", po::value(&bench_path));
  po::positional_options_description pos;
  pos.add("bench", 1);
  po::variables_map vm;
  if (asks_for_formats(args) && !asks_for_help(args)) {
    print_benchmark_formats(out);
    return 0;
  }
  if (!parse_options(args, opts, hidden, pos, vm, err)) return 2;
  if (vm.count("help")) {
    out << "Replays the succeeded requests of a real benchmark run (their prompt and output\n"
           "lengths; their send times where the file has them, else the tool's rate,\n"
           "burstiness and concurrency) through the scenario's deployment, and prints the\n"
           "measured and the simulated TTFT, ITL, TPOT and E2E (mean, p50, p90, p99) and\n"
           "throughputs, for the whole run and per load stage. Failed requests are counted,\n"
           "not replayed. The scenario gives the deployment; its workload and stop are\n"
           "replaced by the benchmark's requests. The model, tokenizer, serving engine and\n"
           "parallelism the file states must be the scenario's (exit 2 naming both, unless\n"
           "--force). Exit 0; 1 beyond --tolerance; 2 bad input.\n\n"
        << opts;
    return 0;
  }
  if (bench_path.empty() || scenario_path.empty()) {
    err << "servesim replay: give the benchmark file and --scenario\n\n" << opts;
    return 2;
  }
  std::optional<double> tolerance_fraction;
  if (!tolerance.empty()) tolerance_fraction = parse_percent_or_throw(tolerance, "--tolerance");

  BenchmarkRun bench = read_benchmark(bench_path, format);
  // The benchmark's requests replace the scenario's workload, so the scenario needs no stop.
  Scenario scenario = load_deployment(scenario_path, sets);
  if (!check_benchmark_deployment(bench, scenario, vm.count("force") > 0, "servesim replay", err)) return 2;
  const BenchmarkReplay replay(std::move(scenario), std::move(bench));
  const ReplayStudy study = run_replay(replay, tolerance_fraction);
  const SimulatedReplay& simulated = study.simulated;
  const int beyond = study.beyond_tolerance;
  if (vm.count("json")) {
    out << replay_json(replay, simulated, study.sets, tolerance_fraction).dump(2) << "\n";
  } else {
    print_replay(replay, simulated, study.sets, out);
    if (tolerance_fraction) {
      out << beyond << " figure" << (beyond == 1 ? "" : "s") << " beyond the tolerance of "
          << tolerance << "\n";
    }
  }
  if (simulated.rejected > 0 || simulated.unfinished > 0) {
    err << "servesim replay: warning: the simulated deployment rejected " << simulated.rejected << " and left "
        << simulated.unfinished << " unfinished of the replayed requests; their figures are left out\n";
  }
  return beyond > 0 ? 1 : 0;
}

}  // namespace servesim::cli
