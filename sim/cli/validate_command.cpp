// `servesim validate SCENARIO.yaml [--set KEY=VALUE]...`: loads and checks a scenario the
// way `run` would (models, hardware and data files included, and run's servability check,
// sim/scenario/servability.h), prints what it understood, and runs nothing. Exit 0 when
// valid, 2 with "file:line:col: key: message" when not.
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cluster/engine_setup.h"
#include "sim/scenario/run_size.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"
#include "sim/scenario/servability.h"

namespace po = boost::program_options;

namespace servesim::cli {

int validate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim validate SCENARIO.yaml [options]");
  std::string scenario_path;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")(
      "set", po::value(&sets)->composing(),
      "override a scenario key before checking: --set cluster.pools.0.replicas=4");
  const char* about =
      "Checks a scenario without running it: every key, value, model, hardware profile\n"
      "and data file. Prints a summary and exits 0, or prints the first error with its\n"
      "file, line and key and exits 2.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("validate", args, opts, about, scenario_path, vm, out, err)) return *done;
  const Scenario scenario = load_scenario(scenario_path, sets);
  // The checks `run` makes before it runs (refusing what cannot be served at all).
  const Servability servable = check_servability(scenario, sets);
  if (const std::string warning = long_run_warning(scenario); !warning.empty()) err << warning << "\n";
  out << describe_scenario(scenario);
  for (std::size_t i = 0; i < scenario.cluster.pools.size(); ++i)
    out << kv_cache_report(scenario.cluster.pools[i], "cluster.pools." + std::to_string(i)) << "\n";
  for (const std::string& w : servable.warnings) err << "servesim validate: warning: " << w << "\n";
  out << "ok: the scenario is valid\n";
  return 0;
}

}  // namespace servesim::cli
