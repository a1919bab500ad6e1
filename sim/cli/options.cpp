#include "sim/cli/options.h"

#include <fstream>

#include "sim/core/errors.h"

namespace po = boost::program_options;

namespace servesim::cli {

bool parse_options(const std::vector<std::string>& args, const po::options_description& visible,
                   const po::options_description& hidden, const po::positional_options_description& positional,
                   po::variables_map& vm, std::ostream& err) {
  po::options_description all;
  all.add(visible).add(hidden);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "usage error: " << e.what() << "\n\n" << visible;
    return false;
  }
  return true;
}

std::optional<int> parse_scenario_command(const std::string& command, const std::vector<std::string>& args,
                                          const po::options_description& opts, const std::string& about,
                                          std::string& scenario_path, po::variables_map& vm, std::ostream& out,
                                          std::ostream& err) {
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&scenario_path));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  if (!parse_options(args, opts, hidden, pos, vm, err)) return 2;
  if (vm.count("help")) {
    out << about << "\n" << opts;
    return 0;
  }
  if (scenario_path.empty()) {
    err << "servesim " << command << ": a scenario file is required\n\n" << opts;
    return 2;
  }
  return std::nullopt;
}

int emit_fitted_profile(const std::string& yaml, const std::string& output,
                        const std::function<void(std::ostream&)>& report, std::ostream& out, std::ostream& err) {
  if (output.empty()) {
    out << yaml;
    report(err);
    return 0;
  }
  std::ofstream file(output);
  file << yaml;
  file.close();
  if (!file) {
    err << "servesim calibrate: error: cannot write " << output << "\n";
    return 2;
  }
  report(out);
  out << "wrote " << output << "\n";
  return 0;
}

}  // namespace servesim::cli
