// `servesim replay BENCH --scenario S [--tolerance 10%] [--json]`: replays the requests of a
// real benchmark run (vllm bench serve, inference-perf, GuideLLM) through the scenario's
// deployment and prints measured against simulated, figure by figure, with signed errors.
// Exit 1 when --tolerance is given and a figure is off by more; 2 on bad input. The whole
// path from request to table is sim/report/replay_outcome.h, which the Python package
// shares; the study is sim/study/replay_study.h.
#include <ostream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/replay_outcome.h"
#include "sim/report/replay_report.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace po = boost::program_options;

namespace servesim::cli {

int replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim replay BENCH --scenario S [options]");
  ReplayRequest request;
  opts.add_options()("help,h", "show this help")
      ("scenario", po::value(&request.scenario_path), "the deployment to replay through (scenario YAML); its workload is replaced")
      ("format", po::value(&request.format), "benchmark format: auto (default), vllm-bench, inference-perf, guidellm")
      ("set", po::value(&request.sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("tolerance", po::value(&request.tolerance), "exit 1 when any figure's |error| exceeds this, e.g. 10%")
      ("json", "print the comparison as JSON")
      ("force", "replay a benchmark whose model, tokenizer, engine or parallelism differ from the scenario's (a warning instead of exit 2)");
  if (asks_for_formats(args) && !asks_for_help(args)) {
    print_benchmark_formats(out);
    return 0;
  }
  const char* about =
      "Replays the succeeded requests of a real benchmark run (their prompt and output\n"
      "lengths; their send times where the file has them, else the tool's rate,\n"
      "burstiness and concurrency) through the scenario's deployment, and prints the\n"
      "measured and the simulated TTFT, ITL, TPOT and E2E (mean, p50, p90, p99) and\n"
      "throughputs, for the whole run and per load stage. Failed requests are counted,\n"
      "not replayed. The scenario gives the deployment; its workload and stop are\n"
      "replaced by the benchmark's requests. The model, tokenizer, serving engine and\n"
      "parallelism the file states must be the scenario's (exit 2 naming both, unless\n"
      "--force). Exit 0; 1 beyond --tolerance; 2 bad input.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands("bench", request.bench_path), vm, out, err))
    return *done;
  if (request.bench_path.empty() || request.scenario_path.empty()) {
    err << "servesim replay: give the benchmark file and --scenario\n\n" << opts;
    return 2;
  }
  request.force = vm.count("force") > 0;
  const ReplayOutcome outcome = replay_benchmark(request, "servesim replay", err);
  if (outcome.refused) return 2;
  if (vm.count("json")) {
    out << outcome.json.dump(2) << "\n";
  } else {
    out << outcome.table;
  }
  if (!outcome.shortfall.empty()) err << "servesim replay: warning: " << outcome.shortfall << "\n";
  return outcome.beyond_tolerance > 0 ? 1 : 0;
}

}  // namespace servesim::cli
