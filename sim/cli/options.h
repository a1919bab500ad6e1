#pragma once
// Shared Program_options plumbing for the subcommands.
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace servesim::cli {

// Parses `args` into `vm`; on a usage error prints it with the help text and returns false.
bool parse_options(const std::vector<std::string>& args, const boost::program_options::options_description& visible,
                   const boost::program_options::options_description& hidden,
                   const boost::program_options::positional_options_description& positional,
                   boost::program_options::variables_map& vm, std::ostream& err);

// The shared front of every `servesim COMMAND SCENARIO.yaml [options]`: parses `args` with
// the scenario file as the one positional argument. Returns the exit code when the command
// is already done: 0 after printing `about` and the options for --help, 2 after a usage
// error or when no scenario file is given. Returns nullopt when the command should go on.
std::optional<int> parse_scenario_command(const std::string& command, const std::vector<std::string>& args,
                                          const boost::program_options::options_description& opts,
                                          const std::string& about, std::string& scenario_path,
                                          boost::program_options::variables_map& vm, std::ostream& out,
                                          std::ostream& err);

}  // namespace servesim::cli
