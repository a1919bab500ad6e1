// The progress line of `servesim run`: shown on a terminal, never in a pipe. A terminal is
// made with util-linux `script`, which runs the command under a pseudo-terminal.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "cli/cli_test_util.h"

namespace progress_line_test {

using namespace servesim::testing;

TEST_CASE("run shows a progress line on a terminal and erases it before the report", "[cli][progress]") {
  if (std::system("script --version > /dev/null 2>&1") != 0) {
    WARN("util-linux script not found: no pseudo-terminal to test the progress line on");
    return;
  }
  TempDir dir("progress");
  // About a second of wall time on the development machine (docs/performance.md): several
  // lines at 4 per second, and still more than the first line's 250 ms on a machine four
  // times faster. (12,000 requests were a second once; speed-ups brought them under 250 ms.)
  const std::string run = std::string("'") + SERVESIM_BINARY + "' run scenarios/prefix-caching.yaml --set stop.requests=60000 --out '" +
                          dir.path.string() + "'";
  const std::string command = std::string("cd '") + SERVESIM_SOURCE_DIR + "' && script -qec \"" + run + "\" /dev/null 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) output += buf;
  REQUIRE(pclose(pipe) == 0);
  const auto first = output.find("requests done");
  REQUIRE(first != std::string::npos);
  CHECK(output.find("servesim: simulated ") != std::string::npos);
  // The line is rewritten in place ("\r" + erase to end of line), then erased for the report.
  CHECK(output.find("\r\033[K") != std::string::npos);
  CHECK(output.find("servesim run: prefix-caching") > first);
}

}  // namespace progress_line_test
