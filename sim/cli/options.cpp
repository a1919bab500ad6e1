#include "sim/cli/options.h"

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

}  // namespace servesim::cli
