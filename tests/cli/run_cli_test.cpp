// `servesim run` end to end through the real binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"

namespace run_cli_test {

using namespace servesim::testing;

namespace {

const char* kSmallScenario = R"(name: small
seed: 3
stop: {requests: 300}
workload:
  - class: chat
    arrival: {process: poisson, rate: 20}
    input: {lognormal: {median: 800, sigma: 0.5}, max: 3000}
    output: {uniform: [20, 200]}
  - class: embed
    arrival: {process: constant, rate: 5}
    input: {fixed: 300}
    output: {fixed: 0}
cluster:
  pools:
    - name: main
      replicas: 2
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 2048}
  router: round-robin
)";

}  // namespace

TEST_CASE("run: the same scenario and seed give byte-identical summary.json", "[cli]") {
  TempDir dir("determinism");
  const auto scenario = dir.write("small.yaml", kSmallScenario);
  const auto a = run_cli("run " + scenario.string() + " --quiet --out " + (dir.path / "a").string());
  const auto b = run_cli("run " + scenario.string() + " --quiet --out " + (dir.path / "b").string());
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const std::string sa = read_file(dir.path / "a" / "summary.json");
  CHECK(!sa.empty());
  CHECK(sa == read_file(dir.path / "b" / "summary.json"));
  CHECK(read_file(dir.path / "a" / "requests.csv") == read_file(dir.path / "b" / "requests.csv"));
  // Another seed gives another run.
  const auto c = run_cli("run " + scenario.string() + " --quiet --seed 4 --out " + (dir.path / "c").string());
  REQUIRE(c.exit_code == 0);
  CHECK(sa != read_file(dir.path / "c" / "summary.json"));
}

TEST_CASE("run: summary.json has the vLLM benchmark fields and conserves requests", "[cli]") {
  TempDir dir("fields");
  const auto scenario = dir.write("small.yaml", kSmallScenario);
  const auto r = run_cli("run " + scenario.string() + " --quiet --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  for (const char* f : {"completed", "total_input_tokens", "total_output_tokens", "duration", "request_throughput",
                        "output_throughput", "total_token_throughput", "mean_ttft_ms", "median_ttft_ms",
                        "std_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
                        "mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms",
                        "p99_e2el_ms", "p50_ttft_ms", "p90_ttft_ms", "p95_ttft_ms", "p999_ttft_ms",
                        "p99_queue_ms", "p999_e2el_ms", "prefix_cache_hit_rate", "rejected", "classes", "pools"})
    CHECK(j.contains(f));
  CHECK(j["completed"].get<long>() + j["rejected"].get<long>() == 300);
  CHECK(j["classes"].contains("chat"));
  CHECK(j["classes"].contains("embed"));
  CHECK(j["classes"]["embed"]["total_output_tokens"].get<long>() == 0);
  CHECK(j["pools"].contains("main"));
  // Conservation holds per class too.
  CHECK(j["classes"]["chat"]["completed"].get<long>() + j["classes"]["embed"]["completed"].get<long>() ==
        j["completed"].get<long>());
}

TEST_CASE("run: a KV cache far too small forces preemptions and still completes every request", "[cli]") {
  TempDir dir("preempt");
  const auto scenario = dir.write("small.yaml", kSmallScenario);
  // 4096 tokens of KV per replica: a few long chats fill it, yet the longest request
  // (3000 prompt + 199 outputs in KV) fits alone, so none is rejected.
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string() +
                         " --set cluster.pools.0.engine.kv_cache_tokens=4096");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  CHECK(j["completed"].get<long>() == 300);
  CHECK(j["rejected"].get<long>() == 0);
  // The console line reports the preemptions the run needed.
  const auto pos = r.output.find(" preemptions");
  REQUIRE(pos != std::string::npos);
  const auto start = r.output.rfind(' ', pos - 1);
  CHECK(std::stol(r.output.substr(start + 1, pos - start - 1)) > 0);
}

TEST_CASE("run: bad input exits 2 with the file - line and key - and writes no summary", "[cli]") {
  TempDir dir("bad");
  const auto scenario = dir.write("bad.yaml", std::string(kSmallScenario).replace(
                                                   std::string(kSmallScenario).find("rate: 20"), 8, "rate: -3"));
  const auto r = run_cli("run " + scenario.string() + " --out " + (dir.path / "out").string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("bad.yaml:6") != std::string::npos);
  CHECK(r.output.find("workload.0.arrival.rate") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "out" / "summary.json"));
  CHECK(run_cli("run").exit_code == 2);
  CHECK(run_cli("run --no-such-flag x.yaml").exit_code == 2);
  CHECK(run_cli("run /nonexistent/scenario.yaml").exit_code == 2);
  CHECK(run_cli("frobnicate").exit_code == 2);
}

TEST_CASE("run: a prefix cache larger than the block pool can track exits 2 naming the key", "[cli][prefix]") {
  TempDir dir("huge-kv");
  std::string text(kSmallScenario);
  text.replace(text.find("max_batched_tokens: 2048}"), 25,
               "max_batched_tokens: 2048, prefix_cache: true, kv_cache_tokens: 100000000000}");
  const auto scenario = dir.write("huge.yaml", text);
  const auto r = run_cli("run " + scenario.string() + " --out " + (dir.path / "out").string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("cluster.pools.0.engine.kv_cache_tokens") != std::string::npos);
  CHECK(r.output.find("at most 1073741824 KV blocks") != std::string::npos);
  CHECK(r.output.find("internal invariant") == std::string::npos);
}

TEST_CASE("run - validate and step answer --help with exit 0", "[cli]") {
  for (const char* c : {"run", "validate", "step"}) {
    const auto r = run_cli(std::string(c) + " --help");
    INFO(c << ": " << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("--") != std::string::npos);
  }
}

TEST_CASE("run: a rerun into the same folder removes outputs of the earlier run it does not write", "[cli]") {
  TempDir dir("stale-outputs");
  const auto scenario = dir.write("small.yaml", kSmallScenario);
  const std::string out = (dir.path / "out").string();
  const auto first = run_cli("run " + scenario.string() + " --quiet --out " + out);
  REQUIRE(first.exit_code == 0);
  REQUIRE(std::filesystem::exists(dir.path / "out" / "requests.csv"));
  // Without requests.csv the old one would sit beside the new summary.json as if it were
  // this run's.
  const auto second = run_cli("run " + scenario.string() + " --quiet --seed 9 --set outputs.requests_csv=false --out " + out);
  REQUIRE(second.exit_code == 0);
  CHECK(!std::filesystem::exists(dir.path / "out" / "requests.csv"));
  CHECK(second.output.find("removed") != std::string::npos);
  CHECK(second.output.find("requests.csv") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path / "out" / "summary.json"));
  // A file the run does write is simply replaced, with no note.
  const auto third = run_cli("run " + scenario.string() + " --quiet --out " + out);
  REQUIRE(third.exit_code == 0);
  CHECK(third.output.find("removed") == std::string::npos);
  CHECK(std::filesystem::exists(dir.path / "out" / "requests.csv"));
}

}  // namespace run_cli_test
