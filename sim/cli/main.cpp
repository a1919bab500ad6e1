// The `servesim` command: dispatches to one subcommand per file in sim/cli/.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/core/errors.h"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*fn)(const std::vector<std::string>&, std::ostream&, std::ostream&);
};

const Subcommand kSubcommands[] = {
    {"run", "simulate a scenario and write summary.json / requests.csv", servesim::cli::run_command},
    {"validate", "check a scenario without running it", servesim::cli::validate_command},
    {"step", "predict the duration of one engine step", servesim::cli::step_command},
    {"cache-curve", "prefix-cache hit ratio of a trace per cache size (LRU, no timing)", servesim::cli::cache_curve_command},
    {"calibrate", "fit a hardware profile's roofline parameters to measured times", servesim::cli::calibrate_command},
    {"sweep", "run a scenario over axes of values; one table, Pareto front marked", servesim::cli::sweep_command},
    {"capacity", "find the highest arrival rate that meets the SLOs", servesim::cli::capacity_command},
    {"search", "the cheapest configuration that carries a rate within the SLOs", servesim::cli::search_command},
    {"compare", "compare two summaries or sweep tables; exit 1 on a regression", servesim::cli::compare_command},
    {"explain", "rank how far one-lever variants move TTFT, ITL and throughput", servesim::cli::explain_command},
    {"replay", "replay a real benchmark run's requests; measured vs simulated, per figure", servesim::cli::replay_command},
    {"merge", "join the tables of sweep shards into one", servesim::cli::merge_command},
    {"report", "one self-contained interactive HTML page for a run or sweep folder", servesim::cli::report_command},
};

void print_usage(std::ostream& os) {
  os << "servesim " << SERVESIM_VERSION << " - discrete-event simulator of LLM serving clusters\n\n"
     << "usage: servesim <command> [options]   (servesim <command> --help for details)\n\ncommands:\n";
  for (const auto& c : kSubcommands) os << "  " << c.name << std::string(12 - std::string(c.name).size(), ' ') << c.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage(std::cout);
    return 0;
  }
  if (command == "--version") {
    std::cout << "servesim " << SERVESIM_VERSION << "\n";
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : kSubcommands) {
    if (command != c.name) continue;
    try {
      return c.fn(args, std::cout, std::cerr);
    } catch (const servesim::ConfigError& e) {
      std::cerr << "servesim " << command << ": error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "servesim " << command << ": error: " << e.what() << "\n";
      return 2;
    }
  }
  std::cerr << "servesim: unknown command '" << command << "'\n\n";
  print_usage(std::cerr);
  return 2;
}
