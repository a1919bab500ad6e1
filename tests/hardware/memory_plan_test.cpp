#include <catch2/catch.hpp>

#include "sim/hardware/memory_plan.h"
#include "sim/io/model_loader.h"

using namespace servesim;

TEST_CASE("memory plan: Llama-3-8B on an 80 GB H100 at 0.9 leaves 452 - 699 KV tokens", "[hardware]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const MemoryPlan plan = plan_memory(model, hw, Deployment{}, 0.9, 8192);
  // 80 GiB = 85,899,345,920 bytes; x 0.9 = 77,309,411,328 usable.
  // Weights: 8,030,261,248 parameters x 2 bytes = 16,060,522,496.
  CHECK(plan.weight_bytes_per_gpu == 16060522496.0);
  // Reserve: 1 GiB + 8192 tokens x 2 bytes x (2 x 4096 + 3 x 14336) = 1,073,741,824 +
  // 838,860,800 = 1,912,602,624.
  CHECK(plan.activation_reserve_bytes_per_gpu == 1912602624.0);
  // KV: 2 x 32 layers x 8 heads x 128 x 2 bytes = 131,072 per token.
  CHECK(plan.kv_bytes_per_token_per_gpu == 131072.0);
  // (77,309,411,328 - 16,060,522,496 - 1,912,602,624) / 131,072 = 452,699.94.
  CHECK(plan.kv_capacity_tokens == 452699);
  CHECK(plan.fits);
  CHECK(plan.explanation.find("452699 tokens") != std::string::npos);
}

TEST_CASE("memory plan: Llama-3-70B does not fit one 80 GB GPU but fits four", "[hardware]") {
  const ModelSpec model = load_model("llama-3-70b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const MemoryPlan one = plan_memory(model, hw, Deployment{}, 0.9, 8192);
  CHECK_FALSE(one.fits);
  CHECK(one.kv_capacity_tokens == 0);
  CHECK(one.explanation.find("does not fit") != std::string::npos);

  Deployment tp4;
  tp4.tp = 4;
  const MemoryPlan four = plan_memory(model, hw, tp4, 0.9, 8192);
  CHECK(four.fits);
  // Per GPU: 80 layers x 2 KV heads x 128 x 2 (K, V) x 2 bytes = 81,920 bytes per token.
  CHECK(four.kv_bytes_per_token_per_gpu == 81920.0);
  // Weights per GPU are a quarter of the model's linear layers and vocabulary matrices
  // plus the replicated norm weights: about 35.3 GB.
  CHECK(four.weight_bytes_per_gpu == Approx(model.weight_bytes(Dtype::bf16) / 4).epsilon(0.001));
}
