// A 2 GB trace must be streamed, not loaded. Replaying a whole file through
// `servesim run` twice, once with N rows and once with 20 N, the peak resident memory of the
// second run may grow by far less than the file did: a reader that kept the file (or one
// record per row) would grow by at least the extra bytes. The cluster keeps up with the
// arrivals, so what is in flight stays small whatever the file's length.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_test_util.h"

namespace trace_streaming_test {

using namespace servesim::testing;
namespace fs = std::filesystem;

namespace {

struct ChildRun {
  int exit_code = -1;
  long peak_rss_kib = 0;
};

// Runs `servesim run SCENARIO --quiet --out OUT` as a child and returns its own peak RSS
// (wait4's rusage covers that child only). ASan's quarantine keeps freed memory for a while
// and would make RSS grow with the number of requests in the sanitizer build, so it is off.
ChildRun run_measured(const fs::path& scenario, const fs::path& out) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const char* old = std::getenv("ASAN_OPTIONS");
    const std::string asan = std::string("quarantine_size_mb=0:thread_local_quarantine_size_kb=0:") + (old ? old : "");
    ::setenv("ASAN_OPTIONS", asan.c_str(), 1);
    std::FILE* devnull = std::fopen("/dev/null", "w");
    if (devnull) ::dup2(::fileno(devnull), 1);
    ::execl(SERVESIM_BINARY, SERVESIM_BINARY, "run", scenario.c_str(), "--quiet", "--out", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ChildRun result;
  int status = 0;
  struct rusage usage {};
  if (pid > 0 && ::wait4(pid, &status, 0, &usage) == pid) {
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.peak_rss_kib = usage.ru_maxrss;
  }
  return result;
}

// A vidur trace of `rows` requests, one every millisecond, 10 prompt tokens and 1 output.
fs::path write_trace(const fs::path& path, int rows) {
  std::ofstream out(path);
  out << "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  char line[64];
  for (int i = 0; i < rows; ++i) {
    std::snprintf(line, sizeof line, "%.3f,10,1\n", i * 0.001);
    out << line;
  }
  return path;
}

fs::path write_scenario(const TempDir& dir, const std::string& name, const fs::path& trace) {
  return dir.write(name + ".yaml", "name: " + name + R"(
workload:
  - trace: {format: vidur, path: )" + trace.string() + R"(}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: continuous}
      cost_model: {constant: {step: 200us}}
outputs: {requests_csv: false}
)");
}

}  // namespace

TEST_CASE("streaming: a trace 20 times longer does not raise the run's peak memory by its size",
          "[reliability][streaming]") {
  TempDir dir("streaming");
  const int small_rows = 15'000, large_rows = 300'000;
  const auto small_trace = write_trace(dir.path / "small.csv", small_rows);
  const auto large_trace = write_trace(dir.path / "large.csv", large_rows);
  const double extra_kib = double(fs::file_size(large_trace) - fs::file_size(small_trace)) / 1024;
  REQUIRE(extra_kib > 3400);  // 285,000 rows of 12-13 bytes: about 3.5 MiB more file

  const ChildRun small = run_measured(write_scenario(dir, "small", small_trace), dir.path / "small-out");
  const ChildRun large = run_measured(write_scenario(dir, "large", large_trace), dir.path / "large-out");
  REQUIRE(small.exit_code == 0);
  REQUIRE(large.exit_code == 0);
  const std::string summary = read_file(dir.path / "large-out" / "summary.json");
  CHECK(summary.find("\"completed\": 300000") != std::string::npos);

  const double growth_kib = double(large.peak_rss_kib - small.peak_rss_kib);
  INFO("peak RSS " << small.peak_rss_kib << " KiB for " << small_rows << " rows, " << large.peak_rss_kib << " KiB for "
                   << large_rows << " rows; the file grew by " << extra_kib << " KiB");
  // Holding the text would cost extra_kib; holding a 40-byte record per row 11 MiB. The
  // bound leaves room for allocator noise only.
  CHECK(growth_kib < extra_kib / 4);
}

}  // namespace trace_streaming_test
