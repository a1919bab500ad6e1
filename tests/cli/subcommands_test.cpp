// The one place subcommands' errors are handled: a usage error with its help, a ConfigError
// with "error:", exit 2; an unknown name left to main.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/cli/options.h"
#include "sim/cli/subcommands.h"

namespace subcommands_test {

using servesim::cli::run_subcommand;

TEST_CASE("subcommands: a usage error is printed with the command's help and exits 2", "[cli]") {
  std::ostringstream out, err;
  CHECK(run_subcommand("step", {"--model", "llama-3-8b"}, out, err) == 2);
  CHECK(out.str().empty());
  CHECK(err.str() == "servesim step: --model and --hardware are required\n(servesim step --help lists the options)\n");
}

TEST_CASE("subcommands: a usage error of cache-curve is followed by a blank line and its options", "[cli]") {
  std::ostringstream out, err;
  CHECK(run_subcommand("cache-curve", {"--trace", "t.jsonl"}, out, err) == 2);
  CHECK(err.str().rfind("servesim cache-curve: --trace, --format and --sizes are required\n\n"
                        "servesim cache-curve --trace FILE --format FMT --sizes S1,S2,...|inf [options]:\n",
                        0) == 0);
  CHECK(err.str().find("--disk-tokens") != std::string::npos);
}

TEST_CASE("subcommands: a ConfigError is printed after error: and exits 2", "[cli]") {
  std::ostringstream out, err;
  CHECK(run_subcommand("search", {"s.yaml", "--space", "p.yaml", "--jobs", "0"}, out, err) == 2);
  CHECK(err.str() == "servesim search: error: jobs: must be at least 1, got 0\n");
}

TEST_CASE("subcommands: an unknown name returns -1 and prints nothing", "[cli]") {
  std::ostringstream out, err;
  CHECK(run_subcommand("nope", {}, out, err) == -1);
  CHECK(out.str().empty());
  CHECK(err.str().empty());
}

TEST_CASE("subcommands: an option's bad value is a ConfigError with the option as its key and no file", "[cli]") {
  const servesim::ConfigError e = servesim::option_error("--top", "0", "must be at least 1");
  CHECK(e.file().empty());
  CHECK(e.key() == "--top");
  CHECK(std::string(e.what()) == "--top: 0: must be at least 1");
}

}  // namespace subcommands_test
