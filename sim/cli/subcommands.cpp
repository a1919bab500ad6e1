#include "sim/cli/subcommands.h"

#include <exception>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"

namespace servesim::cli {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"run", "simulate a scenario and write summary.json / requests.csv", run_command},
      {"validate", "check a scenario without running it", validate_command},
      {"step", "predict the duration of one engine step", step_command},
      {"cache-curve", "prefix-cache hit ratio of a trace per cache size (LRU, no timing)", cache_curve_command},
      {"calibrate", "fit a hardware profile's roofline parameters to measured times", calibrate_command},
      {"sweep", "run a scenario over axes of values; one table, Pareto front marked", sweep_command},
      {"capacity", "find the highest arrival rate that meets the SLOs", capacity_command},
      {"search", "the cheapest configuration that carries a rate within the SLOs", search_command},
      {"compare", "compare two summaries or sweep tables; exit 1 on a regression", compare_command},
      {"explain", "rank how far one-lever variants move TTFT, ITL and throughput", explain_command},
      {"replay", "replay a real benchmark run's requests; measured vs simulated, per figure", replay_command},
      {"merge", "join the tables of sweep shards into one", merge_command},
      {"report", "one self-contained interactive HTML page for a run or sweep folder", report_command},
  };
  return table;
}

int run_subcommand(const std::string& command, const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  for (const Subcommand& c : subcommands()) {
    if (command != c.name) continue;
    try {
      return c.fn(args, out, err);
    } catch (const UsageError& e) {
      err << "servesim " << command << ": " << e.message << "\n" << e.help;
    } catch (const ConfigError& e) {
      err << "servesim " << command << ": error: " << e.what() << "\n";
    } catch (const std::exception& e) {
      err << "servesim " << command << ": error: " << e.what() << "\n";
    }
    return 2;
  }
  return -1;
}

}  // namespace servesim::cli
