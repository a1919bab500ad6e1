#pragma once
// Shared Program_options plumbing for the subcommands.
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/errors.h"  // option_error, for a command's own checks
#include "sim/study/replicates.h"  // check_replicates

namespace servesim::cli {

// A command's own check of its options failed. run_subcommand (sim/cli/subcommands.h), the
// one place that handles it, prints "servesim COMMAND: MESSAGE", a newline, then `help` (the
// options, or where to find them), and exits 2.
struct UsageError {
  std::string message;
  std::string help;
};

// The options' help text, as `err << opts` prints it.
std::string options_text(const boost::program_options::options_description& opts);

// Whether `args` hold --help or -h: a command asked for its help prints it and exits 0 even
// when another option's value is missing or bad (`calibrate --from-benchmark --help`).
bool asks_for_help(const std::vector<std::string>& args);

// `--format` with no name after it (the last word, or another option next): the user asks
// which benchmark formats there are (replay, calibrate --from-benchmark).
bool asks_for_formats(const std::vector<std::string>& args);

// Parses `args` into `vm`; on a usage error prints it with the help text and returns false,
// unless `args` ask for the help (then `vm` holds only "help"). A negative value for an
// unsigned option (--seed -1) is a usage error, not a wrapped-around number.
bool parse_options(const std::vector<std::string>& args, const boost::program_options::options_description& visible,
                   const boost::program_options::options_description& hidden,
                   const boost::program_options::positional_options_description& positional,
                   boost::program_options::variables_map& vm, std::ostream& err);

// The words of a command line that are not options (the scenario file, the files to
// compare), bound to the hidden option `name` so that Program_options stores them: at most
// one for a string, any number for a vector. Default-constructed: the command takes none.
struct Operands {
  Operands() = default;
  Operands(const char* name, std::string& one);
  Operands(const char* name, std::vector<std::string>& many);
  boost::program_options::options_description hidden;
  boost::program_options::positional_options_description positional;
};

// The shared front of every command: parses `args` into `vm`. Returns the exit code when the
// command is already done: 0 after printing `about`, a blank line and the options for
// --help; 2 after a usage error. Returns nullopt when the command should go on.
std::optional<int> parse_command(const std::vector<std::string>& args,
                                 const boost::program_options::options_description& opts, const std::string& about,
                                 const Operands& operands, boost::program_options::variables_map& vm,
                                 std::ostream& out, std::ostream& err);

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
