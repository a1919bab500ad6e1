// `servesim step` on every model in models/: each must load, shard and price a step, and a
// one-token decode can never beat streaming the weights it touches at the HBM peak.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/subcommands.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/scenario/model_loader.h"

namespace bundled_models_step_test {

using namespace servesim;

namespace {

nlohmann::json step_json(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run_subcommand("step", args, out, err);
  INFO(err.str());
  REQUIRE(code == 0);
  return nlohmann::json::parse(out.str());
}

bool has_op(const nlohmann::json& j, const std::string& name) {
  for (const auto& op : j["ops"])
    if (op["name"] == name) return true;
  return false;
}

}  // namespace

TEST_CASE("bundled models: servesim step prices a decode and a prefill for every model in models", "[model][step]") {
  const HardwareSpec h200 = load_hardware("h200");
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SERVESIM_SOURCE_DIR) / "models")) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  // The 8 models of the foundation plus llama-3.1-405b, llama-3.2-3b, mixtral-8x7b,
  // qwen2.5-72b and deepseek-v3.
  REQUIRE(names.size() >= 13);
  for (const std::string& name : names) {
    INFO(name);
    const ModelSpec m = load_model(name);
    const nlohmann::json decode =
        step_json({"--model", name, "--hardware", "h200", "--decode", "1:1024", "--json"});
    // Weights one token passes through, less the embedding table (one row of it is read).
    const double touched_bytes = (m.active_parameter_count() - double(m.vocab_size) * m.hidden_size) * 2.0;
    const double floor_ms = touched_bytes / h200.memory_bandwidth_bytes_per_s * 1e3;
    CHECK(decode["ms"].get<double>() > floor_ms);
    CHECK(has_op(decode, "attn_decode"));
    CHECK(has_op(decode, "lm_head"));
    CHECK(has_op(decode, "expert_gate_up") == m.is_moe());
    CHECK(has_op(decode, "kv_b_proj") == m.is_mla());
    const nlohmann::json prefill =
        step_json({"--model", name, "--hardware", "h200", "--prefill", "2048:512", "--weights", "fp8",
                   "--kv", "fp8", "--json"});
    CHECK(prefill["ms"].get<double>() > decode["ms"].get<double>());
  }
}

TEST_CASE("bundled models: expert parallelism on Mixtral slows a one-token decode and not a 256-token one", "[model][step]") {
  const auto ms = [](const std::string& ep, const std::string& decode) {
    // The roofline's weight-byte arithmetic (the kernel tables time routing as measured).
    return step_json({"--model", "mixtral-8x7b", "--hardware", "h200", "--tp", "8", "--ep", ep,
                      "--decode", decode, "--cost-model", "roofline", "--json"})["ms"]
        .get<double>();
  };
  // One token: tp=8 reads 2 expert slices of 1/8 per GPU, ep=8 one whole expert (4x).
  CHECK(ms("8", "1:1024") > ms("1", "1:1024"));
  // 256 tokens touch every expert: the same weight bytes either way (within the 2-3% that
  // tp=8's larger routed-activation traffic adds: 9.82 against 9.61 ms).
  CHECK(ms("8", "256:1024") == Approx(ms("1", "256:1024")).epsilon(0.03));
  std::ostringstream out, err;
  CHECK(cli::run_subcommand("step", {"--model", "mixtral-8x7b", "--hardware", "h200", "--tp", "8", "--ep", "3",
                           "--decode", "1:1"},
                          out, err) == 2);
  CHECK(err.str().find("ep=3 must divide tp=8") != std::string::npos);
}

TEST_CASE("bundled models: fp8 activations halve the activation bytes and speed up a compute-bound prefill", "[model][step]") {
  const auto run = [](const std::string& a) {
    // The roofline at the fp8 peak, at the profile's fp8 GEMM efficiency.
    return step_json({"--model", "llama-3-8b", "--hardware", "h200", "--prefill", "4096",
                      "--activations", a, "--cost-model", "roofline", "--json"});
  };
  const auto bf16 = run("bf16");
  const auto fp8 = run("fp8");
  CHECK(fp8["activations"] == "fp8");
  const auto qkv_bytes = [](const nlohmann::json& j) {
    for (const auto& op : j["ops"])
      if (op["name"] == "qkv_proj") return op["bytes"].get<double>();
    return -1.0;
  };
  // bf16 weights 4096 x 6144 x 2 bytes; input 4096 x 4096 and output 4096 x 6144 at 1 byte.
  CHECK(qkv_bytes(fp8) == (4096.0 * 6144 * 2 + 4096.0 * 4096 + 4096.0 * 6144) * 32);
  CHECK(qkv_bytes(bf16) == (4096.0 * 6144 * 2 + 4096.0 * 4096 * 2 + 4096.0 * 6144 * 2) * 32);
  // A compute-bound GEMM runs at efficiency x peak: H200 bf16 0.8241 x 989.5 TFLOP/s,
  // fp8 0.51 x 1979 (configs/hardware/h200.yaml), so fp8 takes 0.808 of bf16's time.
  const auto qkv_ms = [](const nlohmann::json& j) {
    for (const auto& op : j["ops"])
      if (op["name"] == "qkv_proj") return op["ms"].get<double>();
    return -1.0;
  };
  CHECK(qkv_ms(fp8) / qkv_ms(bf16) == Approx((0.8241 * 989.5) / (0.51 * 1979)).epsilon(0.01));
  CHECK(fp8["ms"].get<double>() < 0.9 * bf16["ms"].get<double>());
}

}  // namespace bundled_models_step_test
