// vLLM's KV capacity for a model with chunked local layers (Llama-4), worked by hand from
// vLLM's source: Worker.determine_available_memory (what the KV cache gets),
// _get_kv_cache_groups_uniform_page_size (the groups), get_num_blocks (num_blocks) and
// _report_kv_cache_config ("GPU KV cache size: N tokens" = num_blocks // groups x
// block_size), all in vllm/v1/core/kv_cache_utils.py.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

#include "sim/core/errors.h"
#include "sim/engine/kv_cache_groups.h"
#include "sim/engine/memory_plan.h"
#include "sim/model/shard.h"
#include "sim/scenario/model_loader.h"

namespace kv_cache_groups_test {

using namespace servesim;

namespace {

EngineConfig vllm_engine() {
  EngineConfig e;
  e.kv_memory_rule = KvMemoryRule::vllm;
  e.gpu_memory_utilization = 0.9;
  e.max_batched_tokens = 8192;
  e.max_num_seqs = 256;
  e.block_size = 16;
  return e;
}

// A model YAML in a private file; removed at the end.
struct ScratchModel {
  std::string path;
  explicit ScratchModel(const std::string& text)
      : path((std::filesystem::temp_directory_path() /
              ("servesim-kvgroups-" + std::to_string(::getpid()) + ".yaml")).string()) {
    std::ofstream(path) << text;
  }
  ~ScratchModel() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

const char* kToyModel =
    "name: toy\nnum_layers: 25\nhidden_size: 1024\nnum_attention_heads: 8\nnum_kv_heads: 8\n"
    "intermediate_size: 4096\nvocab_size: 32000\nmax_context_tokens: 65536\n";

}  // namespace

TEST_CASE("kv groups: Llama-4 Scout on four 80 GiB H100s logs 458016 tokens as vLLM computes them",
          "[hardware][kv_groups]") {
  const ModelSpec model = load_model("llama-4-scout");
  const HardwareSpec hw = load_hardware("h100-sxm");
  Deployment dep;
  dep.tp = 4;
  const MemoryPlan plan = plan_memory(model, hw, dep, vllm_engine());
  // Weights per GPU (vLLM's sharding): per layer, attention (5120 x 5120 x 2 + 5120 x 1024
  // x 2) / 4 = 15,728,640, 16 routed experts 16 x 3 x 5120 x 8192 / 4 = 503,316,480, the
  // shared expert 3 x 5120 x 8192 / 4 = 31,457,280, the router 5120 x 16 = 81,920 and two
  // norms 10,240 (replicated): 550,594,560; x 48 = 26,428,538,880; embedding and lm_head
  // 2 x 202,048 x 5120 / 4 = 517,242,880, final norm 5120: 26,945,786,880 parameters x 2
  // bytes = 53,891,573,760. Vision tower: 871,932,416 x 2 / 4 = 435,966,208.
  CHECK(plan.vision_weight_bytes_per_gpu == 435966208.0);
  CHECK(plan.weight_bytes_per_gpu == 53891573760.0 + 435966208.0);
  // Profile peak: forward 8192 x 2 x (2 x 5120 + 3 x (2048 + 2048)) = 369,098,752; sampler
  // 8192 x 5120 x 2 + 256 x 202,048 x (2 + 4) = 394,231,808, the larger; plus the encoder
  // outputs of 8192 // 2448 = 3 dummy images: 3 x 2448 x 5120 x 2 = 75,202,560.
  CHECK(plan.encoder_profile_bytes_per_gpu == 75202560.0);
  CHECK(plan.activation_reserve_bytes_per_gpu == 394231808.0 + 75202560.0);
  // KV bytes: 85,899,345,920 x 0.9 = 77,309,411,328 - 54,327,539,968 - 469,434,368 =
  // 22,512,436,992.
  CHECK(plan.kv_bytes_per_gpu == 22512436992.0);
  // 12 NoPE layers (3, 7, ..., 47) and 36 chunked ones: 4 groups of 12. A page is 16 tokens
  // x 2 KV heads x 128 x 2 (K, V) x 2 bytes = 16,384; num_blocks = 22,512,436,992 // 16,384
  // // 12 = 114,504; logged 114,504 // 4 x 16 = 458,016 tokens.
  const KvCacheGroups g = vllm_kv_cache_groups(model, 48);
  CHECK(g.full_layers == 12);
  CHECK(g.chunked_layers == 36);
  CHECK(g.group_size == 12);
  CHECK(g.full_groups == 1);
  CHECK(g.chunked_groups == 3);
  CHECK(g.stage_group_size == 12);
  CHECK(vllm_num_blocks(g, plan.kv_bytes_per_gpu, 1024.0, 16) == 114504);
  CHECK(plan.kv_capacity_tokens == 458016);
  CHECK(plan.explanation.find("114504 // 4 x 16 = 458016 tokens") != std::string::npos);
  CHECK(plan.explanation.find("vision tower") != std::string::npos);
  // Before the vision tower, the encoder outputs and the grouping were modelled, the same
  // pool had (77,309,411,328 - 53,891,573,760 - 394,231,808) // (48 x 1024) = 468,416.
  CHECK(plan.kv_capacity_tokens < 468416);
}

TEST_CASE("kv groups: with the hybrid manager off vLLM logs the same Scout figure", "[hardware][kv_groups]") {
  // unify_hybrid_kv_cache_specs turns the chunked layers into full attention: one group of
  // 48 layers, num_blocks = 22,512,436,992 // 16,384 // 48 = 28,626, logged x 16 = 458,016,
  // the hybrid figure: floor(floor(x / 12) / 4) = floor(x / 48).
  KvCacheGroups one;
  one.full_layers = 48;
  one.group_size = 48;
  one.full_groups = 1;
  one.stage_group_size = 48;
  const std::int64_t blocks = vllm_num_blocks(one, 22512436992.0, 1024.0, 16);
  CHECK(blocks == 28626);
  CHECK(vllm_logged_kv_tokens(one, blocks, 16) == 458016);
}

TEST_CASE("kv groups: maximum concurrency counts a chunked group's chunk plus one batch", "[hardware][kv_groups]") {
  const KvCacheGroups g = vllm_kv_cache_groups(load_model("llama-4-scout"), 48);
  // max_model_len 131,072: the full group needs 131,072 / 16 = 8192 blocks, each chunked
  // group ceil(min(8192 + 8192, 131,072) / 16) = 1024: 114,504 / (8192 + 3 x 1024) = 10.1655.
  CHECK(vllm_max_concurrency(g, 114504, 16, 131072, 8192, 8192) == Approx(114504.0 / 11264.0));
  // A request shorter than chunk + batch needs its whole length in every group.
  CHECK(vllm_max_concurrency(g, 114504, 16, 4096, 8192, 8192) == Approx(114504.0 / (4 * 256.0)));
}

TEST_CASE("kv groups: group size follows the fewer kind unless the other is under 1.5 times it",
          "[hardware][kv_groups]") {
  ScratchModel f(std::string(kToyModel) + "attention_chunk_size: 1024\nno_rope_layer_interval: 2\n");
  const ModelSpec toy = load_model(f.path);
  // 25 layers, every 2nd (1, 3, ..., 23) full: 12 full, 13 chunked; 13 < 1.5 x 12, so groups
  // of 13: the full kind padded to one group of 13, the chunked kind one group.
  const KvCacheGroups g = vllm_kv_cache_groups(toy, 25);
  CHECK(g.full_layers == 12);
  CHECK(g.chunked_layers == 13);
  CHECK(g.group_size == 13);
  CHECK(g.full_groups == 1);
  CHECK(g.chunked_groups == 1);
  CHECK(g.stage_group_size == 13);
  // Scout over 2 pipeline stages of 24 layers: the full group's layers 3, 7, ..., 23 are 6
  // in stage 0; the 18 chunked layers of stage 0 fall 6 in each of the groups layers[i::3].
  const KvCacheGroups pp2 = vllm_kv_cache_groups(load_model("llama-4-scout"), 24);
  CHECK(pp2.stage_group_size == 6);
  CHECK(pp2.groups() == 4);
}

TEST_CASE("kv groups: a dense model keeps its figure and has no groups or encoder reserve", "[hardware][kv_groups]") {
  const ModelSpec model = load_model("llama-3-8b");
  CHECK_FALSE(model.has_chunked_attention());
  CHECK_FALSE(model.has_vision());
  EngineConfig e = vllm_engine();
  e.max_num_seqs = 1024;
  const MemoryPlan plan = plan_memory(model, load_hardware("h100-sxm"), Deployment{}, e);
  // As before (memory plan test): (77,309,411,328 - 16,060,522,496 - 855,113,728) / 131,072.
  CHECK(plan.kv_capacity_tokens == 460767);
  CHECK(plan.encoder_profile_bytes_per_gpu == 0.0);
  CHECK(plan.vision_weight_bytes_per_gpu == 0.0);
  CHECK(plan.explanation.find("groups") == std::string::npos);
}

TEST_CASE("kv groups: the Scout config.json gives the bundled YAML's chunking and vision figures",
          "[model][kv_groups]") {
  const ModelSpec json =
      load_model(std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/Llama-4-Scout-17B-16E-Instruct/config.json");
  const ModelSpec yaml = load_model("llama-4-scout");
  for (const ModelSpec* m : {&json, &yaml}) {
    CHECK(m->attention_chunk_size == 8192);
    CHECK(m->no_rope_layer_interval == 4);
    // Encoder layer: 4 x 1408^2 + 4 x 1408 + 2 x 1408 x 5632 + 5632 + 1408 + 4 x 1408 =
    // 23,807,872; x 34 = 809,467,648; patch embedding 588 x 1408 = 827,904; class and
    // positional embeddings 1408 + 577 x 1408 = 813,824; pre/post LayerNorms 5,632; adapter
    // 5632 x 4096 + 4096 x 4096 = 39,845,888; projector 4096 x 5120 = 20,971,520.
    CHECK(m->vision_params == 871932416.0);
    // (16 + 1) tiles x (336 / 14)^2 / 4 = 17 x 144.
    CHECK(m->vision_image_tokens == 2448);
    CHECK_FALSE(m->is_chunked_local_layer(3));
    CHECK(m->is_chunked_local_layer(4));
    CHECK_FALSE(m->is_chunked_local_layer(47));
  }
}

TEST_CASE("kv groups: chunking and vision keys come in pairs", "[model][kv_groups]") {
  ScratchModel lone_chunk(std::string(kToyModel) + "attention_chunk_size: 1024\n");
  CHECK_THROWS_WITH(load_model(lone_chunk.path), Catch::Contains("no_rope_layer_interval"));
  ScratchModel lone_tokens(std::string(kToyModel) + "vision_image_tokens: 100\n");
  CHECK_THROWS_WITH(load_model(lone_tokens.path), Catch::Contains("vision_params"));
  ScratchModel zero(std::string(kToyModel) + "attention_chunk_size: 0\nno_rope_layer_interval: 4\n");
  CHECK_THROWS_AS(load_model(zero.path), ConfigError);
}

TEST_CASE("kv groups: an explicit no_rope_layers list must mark every fourth layer", "[model][kv_groups]") {
  const std::string folder = std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/Llama-4-Scout-17B-16E-Instruct/";
  std::ifstream in(folder + "config.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto with_list = [&](const std::string& list) {
    std::string t = text;
    const std::string key = "\"attention_chunk_size\": 8192,";
    t.replace(t.find(key), key.size(), key + " \"no_rope_layers\": [" + list + "],");
    return t;
  };
  std::string pattern;
  std::string all_rope;
  for (int i = 0; i < 48; ++i) {
    pattern += std::string(i ? "," : "") + ((i + 1) % 4 == 0 ? "0" : "1");
    all_rope += std::string(i ? "," : "") + "1";
  }
  const auto dir = std::filesystem::temp_directory_path() / ("servesim-kvgroups-json-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "config.json").string();
  std::ofstream(path) << with_list(pattern);
  CHECK(load_model(path).no_rope_layer_interval == 4);
  std::ofstream(path) << with_list(all_rope);
  CHECK_THROWS_WITH(load_model(path), Catch::Contains("no_rope_layers"));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST_CASE("kv groups: a batch budget under one image still profiles one dummy image", "[hardware][kv_groups]") {
  EngineConfig e = vllm_engine();
  e.max_batched_tokens = 2048;  // below the 2448 embeddings of one image
  Deployment dep;
  dep.tp = 4;
  const MemoryPlan plan = plan_memory(load_model("llama-4-scout"), load_hardware("h100-sxm"), dep, e);
  // Budget max(2048, 2448) = 2448: one image, 2448 x 5120 x 2 bytes = 25,067,520.
  CHECK(plan.encoder_profile_bytes_per_gpu == 25067520.0);
  // A model without a vision tower reserves nothing for it.
  CHECK(plan_memory(load_model("llama-3-8b"), load_hardware("h100-sxm"), Deployment{}, e).encoder_profile_bytes_per_gpu == 0.0);
}

}  // namespace kv_cache_groups_test
