// The `servesim` command: dispatches to one subcommand per file in sim/cli/
// (sim/cli/subcommands.h, which also handles their errors).
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/subcommands.h"

namespace {

void print_usage(std::ostream& os) {
  os << "servesim " << SERVESIM_VERSION << " - discrete-event simulator of LLM serving clusters\n\n"
     << "usage: servesim <command> [options]   (servesim <command> --help for details)\n\ncommands:\n";
  for (const auto& c : servesim::cli::subcommands())
    os << "  " << c.name << std::string(12 - std::string(c.name).size(), ' ') << c.summary << "\n";
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
  const int code = servesim::cli::run_subcommand(command, args, std::cout, std::cerr);
  if (code >= 0) return code;
  std::cerr << "servesim: unknown command '" << command << "'\n\n";
  print_usage(std::cerr);
  return 2;
}
