#include <catch2/catch.hpp>

#include "sim/engine/memory_plan.h"
#include "sim/scenario/model_loader.h"

namespace memory_plan_test {

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

// The engines' own KV rules (engine.kv_memory_rule) on Llama-3-8B, bf16, one 80 GiB H100:
// total 85,899,345,920 bytes, weights 16,060,522,496, KV 131,072 bytes per token.
TEST_CASE("memory plan: vLLM's rule subtracts the profile run's peak (the sampler's here)", "[hardware]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  EngineConfig e;
  e.kv_memory_rule = KvMemoryRule::vllm;
  e.gpu_memory_utilization = 0.9;
  e.max_batched_tokens = 8192;
  e.max_num_seqs = 1024;
  const MemoryPlan plan = plan_memory(model, hw, Deployment{}, e);
  // Forward peak: 8192 x 2 x (2 x 4096 + 3 x 14336) = 838,860,800. Sampler: hidden states
  // 8192 x 4096 x 2 = 67,108,864 + logits 1024 rows x 128,256 x (2 + 4) = 788,004,864,
  // = 855,113,728, the larger.
  CHECK(plan.activation_reserve_bytes_per_gpu == 855113728.0);
  // 77,309,411,328 - 16,060,522,496 - 855,113,728 = 60,393,775,104 / 131,072 = 460,767.9.
  CHECK(plan.kv_capacity_tokens == 460767);
  CHECK(plan.fits);
}

TEST_CASE("memory plan: SGLang's rule is mem_fraction_static x memory - weights", "[hardware]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  // Reserved MiB: 512 + 8192 x 1.5 + 256 x 2 + 1 x 1 / 8 x 1024 = 13,440 (above the 10,240
  // floor); (81,920 - 13,440) / 81,920 = 0.8359 -> 0.836.
  CHECK(sglang_default_mem_fraction(hw.memory_bytes, 8192, 256, 1, 1) == 0.836);
  EngineConfig e;
  e.kv_memory_rule = KvMemoryRule::sglang;
  e.gpu_memory_utilization = 0;  // auto
  e.prefill_chunk_tokens = 8192;
  e.cuda_graph_max_batch = 256;
  const MemoryPlan plan = plan_memory(model, hw, Deployment{}, e);
  CHECK(plan.fraction == 0.836);
  // 85,899,345,920 x 0.836 - 16,060,522,496 = 55,751,330,693 / 131,072 = 425,348.9.
  CHECK(plan.kv_capacity_tokens == 425348);
}

TEST_CASE("memory plan: TensorRT-LLM's rule takes its fraction of what weights and activations leave",
          "[hardware]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  EngineConfig e;
  e.kv_memory_rule = KvMemoryRule::trtllm;
  e.gpu_memory_utilization = 0.9;
  e.max_batched_tokens = 8192;
  const MemoryPlan plan = plan_memory(model, hw, Deployment{}, e);
  // 0.9 x (85,899,345,920 - 16,060,522,496 - 838,860,800) = 62,099,966,361.6 / 131,072
  // = 473,785.1.
  CHECK(plan.kv_capacity_tokens == 473785);
  CHECK(kv_cache_line(473785 / 32, 32) == "KV cache: 473760 tokens (14805 blocks of 32)");
}

}  // namespace memory_plan_test
