#include "sim/cli/feasibility_options.h"

#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/scenario/percent.h"
#include "sim/scenario/set_overrides.h"

namespace po = boost::program_options;

namespace servesim::cli {

po::options_description FeasibilityOptions::describe(const std::string& run_noun, const std::string& class_help) {
  po::options_description opts("what a feasible " + run_noun + " is");
  opts.add_options()
      ("slo", po::value(&slo_text), "objectives: METRIC_STAT=DURATION,... (ttft|itl|tpot|e2el|queue, "
                                    "mean|p50|p90|p95|p99|p999|every; none: p99); default: each class's slo:")
      ("class", po::value(&class_name), class_help.c_str())
      ("max-rejected", po::value(&max_rejected), "share of requests that may be rejected (default 0%)")
      ("no-early-stop", ("run every " + run_noun + " to its end, even when its queue plainly grows without bound").c_str())
      ("set", po::value(&sets)->composing(), ("override a scenario key of every " + run_noun + ": --set stop.requests=20000").c_str())
      ("seed", po::value<std::uint64_t>(), ("override the scenario's seed (every " + run_noun + " uses it)").c_str());
  return opts;
}

void FeasibilityOptions::read(const po::variables_map& vm) {
  reject_share = parse_percent_or_throw(max_rejected, "--max-rejected");
  early_stop = vm.count("no-early-stop") == 0;
  if (vm.count("seed")) seed = vm["seed"].as<std::uint64_t>();
  // --seed is applied to every loaded run, so a --set seed=N beside it would do nothing.
  if (seed) check_set_not_overwritten(sets, "seed", "the key --seed sets,");
}

}  // namespace servesim::cli
