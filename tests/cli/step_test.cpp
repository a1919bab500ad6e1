#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/cli/subcommands.h"

namespace step_test {

using servesim::cli::run_subcommand;

namespace {

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome step(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_subcommand("step", args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("step: --json gives the total - its four parts and one entry per operator", "[step]") {
  const Outcome r = step({"--model", "llama-3-8b", "--hardware", "h200", "--prefill", "1024",
                          "--decode", "32:1024", "--json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double parts = j["compute_ms"].get<double>() + j["memory_ms"].get<double>() +
                       j["comm_ms"].get<double>() + j["overhead_ms"].get<double>();
  CHECK(j["ms"].get<double>() == Approx(parts).margin(1e-6));
  CHECK(j["tokens"] == 1056);
  CHECK(j["comm_ms"].get<double>() == 0.0);
  double ops_ms = 0;
  bool saw_qkv = false;
  for (const auto& op : j["ops"]) {
    ops_ms += op["ms"].get<double>();
    if (op["name"] == "qkv_proj") {
      saw_qkv = true;
      // 2 x 1056 rows x 4096 x 6144 x 32 layers.
      CHECK(op["flops"].get<double>() == 2.0 * 1056 * 4096 * 6144 * 32);
      CHECK(op["bound"] == "compute");
    }
    CHECK(op.contains("bytes"));
    CHECK(op.contains("comm_bytes"));
  }
  CHECK(saw_qkv);
  CHECK(ops_ms == Approx(j["ms"].get<double>()).epsilon(1e-6));
}

TEST_CASE("step: tensor parallelism shows its all-reduces and prefill with past tokens is accepted", "[step]") {
  const Outcome r = step({"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "4",
                          "--prefill", "512:2048", "--prefill", "100", "--json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["comm_ms"].get<double>() > 0);
  CHECK(j["tokens"] == 612);
}

TEST_CASE("step: the plain output is a table of operators ending in the total", "[step]") {
  const Outcome r = step({"--model", "llama-3-8b", "--hardware", "h200", "--decode", "8:4000"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("attn_decode") != std::string::npos);
  CHECK(r.out.find("bound") != std::string::npos);
  CHECK(r.out.find("total ") != std::string::npos);
  CHECK(r.out.find(" ms") != std::string::npos);
}

TEST_CASE("step: bad usage and bad input exit 2 with a message", "[step]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--hardware", "h200", "--decode", "1:1"},                                   // no model
      {"--model", "llama-3-8b", "--hardware", "h200"},                             // empty batch
      {"--model", "llama-3-8b", "--hardware", "h200", "--decode", "8"},            // no CTX
      {"--model", "llama-3-8b", "--hardware", "h200", "--prefill", "-3"},          // negative
      {"--model", "llama-3-8b", "--hardware", "h200", "--prefill", "1x"},          // junk
      {"--model", "llama-3-8b", "--hardware", "h200", "--decode", "1:1", "--tp", "3"},
      {"--model", "llama-3-8b", "--hardware", "h200", "--decode", "1:1", "--tp", "two"},
      {"--model", "llama-3-8b", "--hardware", "h200", "--decode", "1:1", "--weights", "fp4"},
      {"--model", "nope", "--hardware", "h200", "--decode", "1:1"},
      {"--model", "llama-3-8b", "--hardware", "h200", "--decode", "1:1", "--bogus"},
  };
  for (const auto& args : bad) {
    std::string line;
    for (const auto& a : args) line += a + " ";
    INFO(line);
    const Outcome r = step(args);
    CHECK(r.code == 2);
    CHECK_FALSE(r.err.empty());
    CHECK(r.out.empty());
  }
  CHECK(step({"--model", "llama-3-8b", "--hardware", "h200", "--decode", "1:1", "--tp", "3"})
            .err.find("tp=3") != std::string::npos);
}

TEST_CASE("step: --help prints the options and exits 0", "[step]") {
  const Outcome r = step({"--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("--prefill") != std::string::npos);
  CHECK(r.out.find("--decode") != std::string::npos);
}

TEST_CASE("step: the servesim binary runs the step command and exits 2 on bad input", "[step]") {
  const auto ok = servesim::testing::run_cli("step --model llama-3-8b --hardware h200 --decode 1:1024 --json");
  CHECK(ok.exit_code == 0);
  CHECK(ok.output.find("\"ms\"") != std::string::npos);
  const auto bad = servesim::testing::run_cli("step --model llama-3-8b --hardware h201 --decode 1:1024");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("did you mean 'h200'") != std::string::npos);
}

TEST_CASE("step: a missing model file and absurd counts are refused - not crashed on", "[step]") {
  const Outcome missing = step({"--model", "/no/such/config.json", "--hardware", "h200", "--decode", "1:1"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/no/such/config.json") != std::string::npos);
  CHECK(missing.err.find("no such file") != std::string::npos);
  const Outcome huge = step({"--model", "llama-3-8b", "--hardware", "h200", "--decode", "99999999999:99999999999"});
  CHECK(huge.code == 2);
  const Outcome typo = step({"--model", "qwen2.5-7c", "--hardware", "h200", "--decode", "1:1"});
  CHECK(typo.code == 2);
  CHECK(typo.err.find("did you mean 'qwen2.5-7b'") != std::string::npos);
}

TEST_CASE("step: an unknown cost model or engine or a negative CUDA-graph size is exit 2 naming it", "[step]") {
  const char* base = "step --model llama-3-8b --hardware h100-sxm --decode 8:1024 ";
  using servesim::testing::run_cli;
  auto r = run_cli(std::string(base) + "--cost-model vidur");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("cost_model: must be roofline or kernels, got 'vidur'") != std::string::npos);
  r = run_cli(std::string(base) + "--engine tgi");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("engine: must be vllm, sglang or trtllm, got 'tgi'") != std::string::npos);
  r = run_cli(std::string(base) + "--cuda-graphs -1");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("cuda_graphs: must be 0 or more") != std::string::npos);
}

}  // namespace step_test
