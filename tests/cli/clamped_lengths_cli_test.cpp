// Lengths the workload changed on the way from the written distribution are counted per
// class in summary.json (clamped_input, clamped_output) and printed, through the binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/cli_test_util.h"
#include "sim/core/rng.h"
#include "sim/workload/distribution.h"

namespace clamped_lengths_cli_test {

using namespace servesim;
using namespace servesim::testing;

namespace {

// "wide" draws prompts from normal(10, 50), of which about 42% fall below one token;
// "plain" draws nothing that needs a clamp. 1 ms steps keep every request short.
const char* kTwoClasses = R"(name: clamped
seed: 3
stop: {requests: 2400}
workload:
  - class: wide
    arrival: {process: poisson, rate: 20}
    input: {normal: {mean: 10, std: 50}}
    output: {fixed: 4}
  - class: plain
    arrival: {process: poisson, rate: 4}
    input: {fixed: 100}
    output: {fixed: 4}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 2048, block_size: 16}
      cost_model: {constant: {step: 1ms}}
)";

}  // namespace

TEST_CASE("clamped prompt lengths are counted per class in summary.json and printed", "[cli][workload]") {
  TempDir dir("clamped");
  const auto scenario = dir.write("clamped.yaml", kTwoClasses);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  const auto& wide = summary["classes"]["wide"];
  const auto& plain = summary["classes"]["plain"];
  const long requests = wide["completed"].get<long>() + wide["rejected"].get<long>() + wide["unfinished"].get<long>();
  REQUIRE(requests > 1500);

  // The class's prompt draws, taken again from its input stream (docs/workload.md): those
  // below 0.5 round below one token and are raised to 1.
  Rng input(3, "workload/wide/input");
  DistSpec normal;
  normal.kind = DistSpec::Kind::normal;
  normal.a = 10;
  normal.b = 50;
  const auto distribution = make_distribution(normal);
  long below = 0;
  for (long i = 0; i < requests; ++i) below += distribution->sample(input) < 0.5;
  CHECK(wide["clamped_input"].get<long>() == below);
  // And by the normal CDF: P(X < 0.5) = Phi(-0.19) = 0.424655, within five sigma.
  const double p = 0.424655;
  CHECK(std::abs(below - requests * p) < 5 * std::sqrt(requests * p * (1 - p)));
  CHECK(wide["clamped_output"] == 0);
  CHECK(plain["clamped_input"] == 0);
  CHECK(plain["clamped_output"] == 0);
  CHECK(summary["clamped_input"].get<long>() == below);
  CHECK(summary["clamped_output"] == 0);
  CHECK(summary["clamped_input"].is_number_integer());

  const std::string line = "  wide: " + std::to_string(below) + " of " + std::to_string(requests) +
                           " prompt lengths, 0 of " + std::to_string(requests) + " output lengths\n";
  CHECK(r.output.find(line) != std::string::npos);
  CHECK(r.output.find("  plain: ") == std::string::npos);  // nothing to report for it
}

TEST_CASE("a run whose lengths need no clamp prints no clamp line", "[cli][workload]") {
  TempDir dir("unclamped");
  std::string text = kTwoClasses;
  text.replace(text.find("{normal: {mean: 10, std: 50}}"), 29, "{normal: {mean: 500, std: 50}}");
  const auto scenario = dir.write("unclamped.yaml", text);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("lengths clamped") == std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  CHECK(summary["clamped_input"] == 0);
  CHECK(summary["classes"]["wide"]["clamped_input"] == 0);
}

}  // namespace clamped_lengths_cli_test
