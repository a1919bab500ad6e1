// `vllm_bench_serve:` through `servesim run`: the prefix-cache hits of a small
// prefix_repetition run worked out by hand from the tool's prompt structure
// (vllm/benchmarks/datasets/prefix_repetition.py), and a bad option refused with exit 2.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace vllm_bench_serve_cli_test {

using namespace servesim::testing;

namespace {

std::string scenario(const std::string& options) {
  return "name: bench\n"
         "seed: 1\n"
         "workload:\n"
         "  - class: bench\n"
         "    vllm_bench_serve:\n"
         "      special_tokens: 1\n"
         "      args: \"" + options + "\"\n"
         "cluster:\n"
         "  pools:\n"
         "    - name: main\n"
         "      model: llama-3-8b\n"
         "      hardware: h100-sxm\n"
         "      tp: 1\n"
         "      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 8192, block_size: 16, "
         "prefix_cache: true}\n"
         "outputs: {requests_csv: true}\n";
}

// 4 prefixes x 20 requests, sent one at a time (max concurrency 1), so each request sees
// the cache every earlier one left.
const std::string kOptions =
    "--dataset-name prefix_repetition --prefix-repetition-prefix-len 512 --prefix-repetition-suffix-len 128 "
    "--prefix-repetition-num-prefixes 4 --prefix-repetition-output-len 16 --num-prompts 80 --max-concurrency 1";

}  // namespace

TEST_CASE("vllm bench serve cli: prefix_repetition misses once per prefix and then hits its blocks",
          "[cli][prefix]") {
  TempDir dir("vllm-bench-serve");
  const auto path = dir.write("s.yaml", scenario(kOptions));
  const CliResult r = run_cli("run " + path.string() + " --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  REQUIRE(rows.size() == 80);
  // Each prompt: 1 BOS + 512 prefix + 128 suffix = 641 tokens. The BOS and the prefix fill
  // floor(513 / 16) = 32 whole blocks, 512 tokens; the 33rd mixes in the suffix.
  int misses = 0, hits = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i].prompt_tokens == 641);
    if (rows[i].cached_prompt_tokens == 0) ++misses;
    if (rows[i].cached_prompt_tokens == 512) ++hits;
    // One in flight at a time: each request goes when the one before has finished.
    if (i > 0) CHECK(rows[i].arrival_ns >= rows[i - 1].arrival_ns + rows[i - 1].e2el_ns);
  }
  CHECK(misses == 4);
  CHECK(hits == 76);
  const nlohmann::json s = nlohmann::json::parse(read_file(dir.path / "out" / "summary.json"));
  CHECK(s["cached_input_tokens"] == 76 * 512);
  CHECK(s["prefix_cache_hit_rate"].get<double>() == Approx(76.0 * 512 / (80 * 641)).epsilon(1e-12));
}

TEST_CASE("vllm bench serve cli: the ready check sends the first prompt before the run", "[cli][prefix]") {
  TempDir dir("vllm-bench-serve-ready");
  const auto path = dir.write("s.yaml", scenario(kOptions + " --ready-check-timeout-sec 600"));
  const CliResult r = run_cli("run " + path.string() + " --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  REQUIRE(rows.size() == 81);
  // The check computes the first prompt; the run's first request is the same prompt, and
  // hits all of it but the last token's block: (641 - 1) / 16 = 40 blocks, 640 tokens. Its
  // prefix is then known, so only the other 3 prefixes miss once.
  CHECK(rows[0].cached_prompt_tokens == 0);
  CHECK(rows[1].cached_prompt_tokens == 640);
  CHECK(rows[1].arrival_ns >= rows[0].arrival_ns + rows[0].e2el_ns);
  int misses = 0, hits = 0;
  for (std::size_t i = 2; i < rows.size(); ++i) {
    if (rows[i].cached_prompt_tokens == 0) ++misses;
    if (rows[i].cached_prompt_tokens == 512) ++hits;
  }
  CHECK(misses == 3);
  CHECK(hits == 76);
  const nlohmann::json s = nlohmann::json::parse(read_file(dir.path / "out" / "summary.json"));
  CHECK(s["cached_input_tokens"] == 640 + 76 * 512);
}

TEST_CASE("vllm bench serve cli: an unknown option exits 2 naming file line and key", "[cli]") {
  TempDir dir("vllm-bench-serve-bad");
  const auto path = dir.write("s.yaml", scenario("--dataset-name random --random-prefix-length 256"));
  const CliResult r = run_cli("validate " + path.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(path.string() + ":7:"));
  CHECK_THAT(r.output, Catch::Contains("workload.0.vllm_bench_serve.args"));
  CHECK_THAT(r.output, Catch::Contains("--random-prefix-length"));
  CHECK_THAT(r.output, Catch::Contains("did you mean '--random-prefix-len'?"));
}

TEST_CASE("vllm bench serve cli: prompts longer than the context are refused at the class", "[cli]") {
  TempDir dir("vllm-bench-serve-long");
  // 1 + 256 + 9000 tokens: above Llama-3-8B's 8192-token context for every request.
  const auto path = dir.write(
      "s.yaml", scenario("--dataset-name prefix_repetition --prefix-repetition-suffix-len 9000 --num-prompts 20"));
  const CliResult r = run_cli("validate " + path.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("workload.0.vllm_bench_serve: class 'bench' cannot be served"));
  CHECK_THAT(r.output, Catch::Contains("every one of the 20 requests of the vllm bench serve load"));
}

}  // namespace vllm_bench_serve_cli_test
