// Qwen3-MoE from its config.json: routed experts spelled num_experts, no shared expert,
// every layer MoE, and the kernel tables' measured expert shape (128 x (2048, 768), top 8).
// The fixture copies the published config
// (https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "sim/core/errors.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/model/shard.h"
#include "sim/scenario/model_loader.h"

namespace qwen3_test {

using namespace servesim;

TEST_CASE("qwen3: Qwen3-30B-A3B reads as 48 MoE layers of 128 experts with 30.5B parameters and 3.3B active",
          "[model]") {
  const ModelSpec m = load_model(std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/Qwen3-30B-A3B/config.json");
  CHECK(m.num_layers == 48);
  CHECK(m.num_experts == 128);
  CHECK(m.experts_per_token == 8);
  CHECK(m.moe_intermediate_size == 768);
  CHECK(m.num_shared_experts == 0);
  CHECK(m.moe_layers() == 48);
  CHECK(m.head_dim == 128);
  CHECK_FALSE(m.attention_bias);
  // By hand, per layer: attention 2048 x (32 + 2 x 4) x 128 + 4096 x 2048 = 18,874,368;
  // experts 128 x 3 x 2048 x 768 = 603,979,776; router 2048 x 128 = 262,144; two norms
  // 2 x 2048. Embedding and lm_head 2 x 151,936 x 2048 = 622,329,856, final norm 2048.
  const double layer = 18874368.0 + 603979776.0 + 262144.0 + 4096.0;
  CHECK(m.parameter_count() == Approx(48 * layer + 622329856.0 + 2048.0).epsilon(1e-9));
  // Active: 8 of 128 experts per token.
  const double active_layer = 18874368.0 + 8 * 3 * 2048.0 * 768 + 262144.0 + 4096.0;
  CHECK(m.active_parameter_count() == Approx(48 * active_layer + 622329856.0 + 2048.0).epsilon(1e-9));
  CHECK(m.parameter_count() == Approx(30.53e9).epsilon(0.001));
  CHECK(m.active_parameter_count() == Approx(3.35e9).epsilon(0.01));
}

TEST_CASE("qwen3: the MoE layer of Qwen3-30B-A3B is priced from the measured moe_perf rows", "[model][kernels]") {
  const ModelSpec m = load_model(std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/Qwen3-30B-A3B/config.json");
  const HardwareSpec hw = load_hardware("h100-sxm");
  Deployment dep;
  CostModelSpec spec;
  resolve_kernel_cost_model(spec, true, std::string(SERVESIM_SOURCE_DIR) + "/data/kernels", m, hw, dep, "vllm", "", 0);
  REQUIRE(spec.kernel_tables->moe);
  CHECK(spec.kernel_tables->moe_distribution == "power_law_1.2");
  const auto model = make_cost_model(spec, m, hw, dep);
  BatchShape batch;
  batch.decode_seqs = 16;
  batch.decode_context_sum = 16 * 1000;
  bool priced = false;
  for (const OpTiming& op : model->breakdown(batch)) {
    if (op.name == "expert_gate_up") {
      CHECK(op.source == "table (moe_perf)");
      priced = true;
    }
  }
  CHECK(priced);
}

TEST_CASE("qwen3: dense layers listed in mlp_only_layers are refused naming the key", "[model]") {
  std::ifstream in(std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/Qwen3-30B-A3B/config.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  config.replace(config.find("\"mlp_only_layers\": []"), 21, "\"mlp_only_layers\": [0]");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("servesim-qwen3-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "config.json").string();
  std::ofstream(path) << config;
  try {
    load_model(path);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "mlp_only_layers");
    CHECK(e.line() == 15);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace qwen3_test
