#pragma once
// The table of `servesim`'s subcommands and the one place their errors are handled.
#include <iosfwd>
#include <string>
#include <vector>

namespace servesim::cli {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*fn)(const std::vector<std::string>&, std::ostream&, std::ostream&);
};

// Every subcommand, in the order `servesim --help` lists them.
const std::vector<Subcommand>& subcommands();

// Runs the subcommand `command` with `args` and returns its exit code. A UsageError is
// printed as "servesim COMMAND: MESSAGE" and its help, a ConfigError or other exception as
// "servesim COMMAND: error: WHAT"; both exit 2. Returns -1, printing nothing, when no
// subcommand has that name.
int run_subcommand(const std::string& command, const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

}  // namespace servesim::cli
