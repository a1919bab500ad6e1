#pragma once
// Shared Program_options plumbing for the subcommands.
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace servesim::cli {

// Parses `args` into `vm`; on a usage error prints it with the help text and returns false.
bool parse_options(const std::vector<std::string>& args, const boost::program_options::options_description& visible,
                   const boost::program_options::options_description& hidden,
                   const boost::program_options::positional_options_description& positional,
                   boost::program_options::variables_map& vm, std::ostream& err);

}  // namespace servesim::cli
