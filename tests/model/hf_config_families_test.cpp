// Hugging Face config.json files of each supported family, with the keys and values of the
// published configs (trimmed to the keys the loader reads plus a few it ignores), read
// into the same ModelSpec as the bundled YAML.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"

namespace hf_config_families_test {

using namespace servesim;

namespace {

struct ScratchFile {
  std::filesystem::path dir;
  std::string path;
  ScratchFile(const std::string& name, const std::string& text)
      : dir(std::filesystem::temp_directory_path() /
            ("servesim-hf-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir / name);
    path = (dir / name / "config.json").string();
    std::ofstream(path) << text;
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

// https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
const char* kMixtral = R"({
  "architectures": ["MixtralForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mixtral",
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "rope_theta": 1e6,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "vocab_size": 32000
})";

// https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
const char* kDeepSeekV3 = R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "first_k_dense_replace": 3,
  "hidden_act": "silu",
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_group": 8,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "tie_word_embeddings": false,
  "v_head_dim": 128,
  "vocab_size": 129280
})";

// https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json
const char* kQwen72 = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 8192,
  "intermediate_size": 29568,
  "max_position_embeddings": 131072,
  "model_type": "qwen2",
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "tie_word_embeddings": false,
  "vocab_size": 152064
})";

void same_architecture(const ModelSpec& a, const ModelSpec& b) {
  CHECK(a.num_layers == b.num_layers);
  CHECK(a.hidden_size == b.hidden_size);
  CHECK(a.num_attention_heads == b.num_attention_heads);
  CHECK(a.num_kv_heads == b.num_kv_heads);
  CHECK(a.head_dim == b.head_dim);
  CHECK(a.intermediate_size == b.intermediate_size);
  CHECK(a.vocab_size == b.vocab_size);
  CHECK(a.max_context_tokens == b.max_context_tokens);
  CHECK(a.attention_bias == b.attention_bias);
  CHECK(a.num_experts == b.num_experts);
  CHECK(a.experts_per_token == b.experts_per_token);
  CHECK(a.moe_intermediate_size == b.moe_intermediate_size);
  CHECK(a.num_shared_experts == b.num_shared_experts);
  CHECK(a.first_dense_layers == b.first_dense_layers);
  CHECK(a.q_lora_rank == b.q_lora_rank);
  CHECK(a.kv_lora_rank == b.kv_lora_rank);
  CHECK(a.qk_nope_head_dim == b.qk_nope_head_dim);
  CHECK(a.qk_rope_head_dim == b.qk_rope_head_dim);
  CHECK(a.v_head_dim == b.v_head_dim);
  CHECK(a.parameter_count() == b.parameter_count());
  CHECK(a.active_parameter_count() == b.active_parameter_count());
}

// Removes the line of `key` from a config's text.
std::string without(std::string text, const std::string& key) {
  const auto at = text.find("\"" + key + "\"");
  REQUIRE(at != std::string::npos);
  const auto start = text.rfind('\n', at) + 1;
  return text.erase(start, text.find('\n', at) - start + 1);
}

}  // namespace

TEST_CASE("hf config: Mixtral DeepSeek-V3 and Qwen2.5 configs read as the bundled YAMLs", "[model]") {
  {
    ScratchFile f("Mixtral-8x7B-v0.1", kMixtral);
    const ModelSpec m = load_model(f.path);
    CHECK(m.name == "Mixtral-8x7B-v0.1");
    same_architecture(m, load_model("mixtral-8x7b"));
  }
  {
    ScratchFile f("DeepSeek-V3", kDeepSeekV3);
    same_architecture(load_model(f.path), load_model("deepseek-v3"));
  }
  {
    // Qwen2 configs carry no attention_bias key: the model type implies the biases.
    ScratchFile f("Qwen2.5-72B", kQwen72);
    const ModelSpec m = load_model(f.path);
    CHECK(m.attention_bias);
    same_architecture(m, load_model("qwen2.5-72b"));
  }
}

TEST_CASE("hf config: a missing expert or latent-attention field is an error naming it", "[model]") {
  struct Case {
    const char* config;
    const char* key;
    const char* family;
  };
  const Case cases[] = {
      {kMixtral, "num_experts_per_tok", "Mixtral-style"},
      {kDeepSeekV3, "moe_intermediate_size", "DeepSeek-style"},
      {kDeepSeekV3, "qk_rope_head_dim", "DeepSeek-style"},
      {kDeepSeekV3, "v_head_dim", "DeepSeek-style"},
      {kDeepSeekV3, "num_hidden_layers", "DeepSeek-style"},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    ScratchFile f("missing", without(c.config, c.key));
    try {
      load_model(f.path);
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      CHECK(e.file() == f.path);
      CHECK(e.key() == c.key);
      CHECK(std::string(e.what()).find(std::string("missing required field '") + c.key + "' (a " +
                                       c.family) != std::string::npos);
    }
  }
}

TEST_CASE("hf config: a DeepSeek config without q_lora_rank projects queries directly as V2-Lite does", "[model]") {
  std::string text = kDeepSeekV3;
  text.replace(text.find("\"q_lora_rank\": 1536"), 19, "\"q_lora_rank\": null");
  ScratchFile f("lite", text);
  const ModelSpec m = load_model(f.path);
  CHECK(m.q_lora_rank == 0);
  // Per layer, q_a (7168 x 1536) + q_b (1536 x 24576) + its norm (1536) become one
  // 7168 x 24576 projection: 61 x (176,160,768 - 11,010,048 - 37,748,736 - 1,536) fewer.
  CHECK(load_model("deepseek-v3").parameter_count() - m.parameter_count() ==
        61.0 * (11010048.0 + 37748736.0 + 1536.0 - 176160768.0));
}

TEST_CASE("hf config: a DeepSeek config with every other layer MoE is refused", "[model]") {
  std::string text = kDeepSeekV3;
  text.replace(text.find("\"moe_layer_freq\": 1"), 19, "\"moe_layer_freq\": 2");
  ScratchFile f("freq", text);
  CHECK_THROWS_WITH(load_model(f.path), Catch::Contains("moe_layer_freq") && Catch::Contains("only 1"));
}

}  // namespace hf_config_families_test
