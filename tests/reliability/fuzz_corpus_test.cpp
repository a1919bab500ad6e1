// Replays every seed input of the fuzz targets (tests/fuzz/corpus/NAME/) through the same
// bodies the libFuzzer targets run, in the ordinary test binary, so the corpora guard
// against regressions on every machine, with or without clang. Inputs that once were
// findings stay in the corpora for that reason.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/benchmark_bodies.h"
#include "tests/fuzz/curve_bodies.h"
#include "tests/fuzz/fuzz_bodies.h"
#include "tests/fuzz/kernel_table_bodies.h"

namespace fuzz_corpus_test {

namespace fs = std::filesystem;
using namespace servesim::fuzz;

namespace {

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `body` on every file of the corpus; returns how many there were.
template <typename Body>
int replay(const std::string& name, Body body) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SERVESIM_SOURCE_DIR) / "tests/fuzz/corpus" / name)) {
    const std::vector<std::uint8_t> data = bytes_of(entry.path());
    INFO("input " << entry.path().string());
    CHECK_NOTHROW(body(data.data(), data.size()));
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("fuzz corpora: every seed scenario loads or is rejected with ConfigError", "[reliability]") {
  CHECK(replay("scenario", scenario_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed trace is read to the end or rejected with ConfigError", "[reliability]") {
  CHECK(replay("azure_trace", [](const std::uint8_t* d, std::size_t n) { trace_input("azure", d, n); }) >= 5);
  CHECK(replay("vidur_trace", [](const std::uint8_t* d, std::size_t n) { trace_input("vidur", d, n); }) >= 5);
  CHECK(replay("lengths_trace", [](const std::uint8_t* d, std::size_t n) { trace_input("lengths", d, n); }) >= 5);
  CHECK(replay("mooncake_trace", [](const std::uint8_t* d, std::size_t n) { trace_input("mooncake", d, n); }) >= 5);
  CHECK(replay("csv_trace", [](const std::uint8_t* d, std::size_t n) { trace_input("csv", d, n); }) >= 5);
}

TEST_CASE("fuzz corpora: every seed config.json loads or is rejected with ConfigError", "[reliability]") {
  CHECK(replay("hf_config", hf_config_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed measurement CSV loads or is rejected with ConfigError", "[reliability]") {
  CHECK(replay("measurements", measurements_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed compare input is compared or rejected with ConfigError", "[reliability]") {
  CHECK(replay("compare", compare_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed benchmark result is replayed and summarised or rejected with ConfigError",
          "[reliability]") {
  CHECK(replay("vllm_bench", [](const std::uint8_t* d, std::size_t n) { benchmark_file_input("vllm-bench", d, n); }) >= 5);
  CHECK(replay("guidellm", [](const std::uint8_t* d, std::size_t n) { benchmark_file_input("guidellm", d, n); }) >= 5);
  CHECK(replay("inference_perf", inference_perf_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed rate curve and rate scale loads or is rejected with ConfigError", "[reliability]") {
  CHECK(replay("rate_curve", rate_curve_input) >= 5);
  CHECK(replay("rate_scale", rate_scale_input) >= 5);
}

TEST_CASE("fuzz corpora: every seed kernel table set loads or is rejected with ConfigError", "[reliability]") {
  CHECK(replay("kernel_table", kernel_table_input) >= 5);
}

}  // namespace fuzz_corpus_test
