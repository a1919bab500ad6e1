// Llama-4 Scout and Maverick: the config.json reader (text_config, a shared expert per MoE
// layer, Maverick's dense layers interleaved with MoE ones), the bundled YAMLs, parameter
// counts and layer splits worked out by hand, and experts stored in their own format.
// The fixtures under tests/model/data/ copy the published configs' text_config
// (https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct/blob/main/config.json,
// https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct/blob/main/config.json),
// trimmed of the vision model's details.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "sim/cli/subcommands.h"
#include "sim/core/errors.h"
#include "sim/model/op_graph.h"
#include "sim/model/shard.h"
#include "sim/scenario/model_loader.h"

namespace llama4_test {

using namespace servesim;

namespace {

std::string fixture(const std::string& folder) {
  return std::string(SERVESIM_SOURCE_DIR) + "/tests/model/data/" + folder + "/config.json";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A config.json in a private folder named after the model; removed at the end.
struct ScratchConfig {
  std::filesystem::path dir;
  std::string path;
  ScratchConfig(const std::string& name, const std::string& text)
      : dir(std::filesystem::temp_directory_path() /
            ("servesim-llama4-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir / name);
    path = (dir / name / "config.json").string();
    std::ofstream(path) << text;
  }
  ~ScratchConfig() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Per layer of Llama-4 (hidden 5120, 40 query heads and 8 KV heads of 128):
constexpr double kAttention = 5120.0 * 40 * 128 * 2 + 5120.0 * 8 * 128 * 2;  // q, o; k, v: 62,914,560
constexpr double kNorms = 2 * 5120.0;
constexpr double kExpert = 3 * 5120.0 * 8192;       // one SwiGLU expert: 125,829,120
constexpr double kDenseMlp = 3 * 5120.0 * 16384;    // intermediate_size_mlp: 251,658,240
constexpr double kVocab = 2 * 202048.0 * 5120 + 5120;  // embedding, lm_head, final norm

}  // namespace

TEST_CASE("llama4: the Scout and Maverick config.json read as the bundled YAMLs", "[model][llama4]") {
  struct Case {
    const char* folder;
    const char* bundled;
    int experts;
    int step;
    std::int64_t context;
  };
  for (const Case& c : {Case{"Llama-4-Scout-17B-16E-Instruct", "llama-4-scout", 16, 1, 10485760},
                        Case{"Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick", 128, 2, 1048576}}) {
    INFO(c.folder);
    const ModelSpec m = load_model(fixture(c.folder));
    const ModelSpec y = load_model(c.bundled);
    CHECK(m.name == c.folder);
    for (const ModelSpec* s : {&m, &y}) {
      CHECK(s->num_layers == 48);
      CHECK(s->hidden_size == 5120);
      CHECK(s->num_attention_heads == 40);
      CHECK(s->num_kv_heads == 8);
      CHECK(s->head_dim == 128);
      CHECK(s->intermediate_size == 16384);     // intermediate_size_mlp
      CHECK(s->moe_intermediate_size == 8192);  // intermediate_size
      CHECK(s->num_experts == c.experts);
      CHECK(s->experts_per_token == 1);
      CHECK(s->num_shared_experts == 1);
      CHECK(s->first_dense_layers == 0);
      CHECK(s->moe_layer_step == c.step);
      CHECK(s->vocab_size == 202048);
      CHECK(s->max_context_tokens == c.context);
      CHECK_FALSE(s->tied_embeddings);
      CHECK_FALSE(s->attention_bias);
      CHECK_FALSE(s->is_mla());
    }
    CHECK(m.parameter_count() == y.parameter_count());
    CHECK(m.active_parameter_count() == y.active_parameter_count());
    CHECK(m.kv_bytes_per_token(Dtype::bf16) == 48 * 2 * 8 * 128 * 2.0);
  }
}

TEST_CASE("llama4: Scout has 107.8B parameters (109B with vision) and 17.2B active", "[model][llama4]") {
  const ModelSpec m = load_model("llama-4-scout");
  CHECK(m.moe_layers() == 48);
  // Every layer: attention, 16 routed experts, the shared one, a 5120 x 16 router.
  const double layer = kAttention + kNorms + 16 * kExpert + kExpert + 5120.0 * 16;
  CHECK(m.parameter_count() == 48 * layer + kVocab);
  CHECK(m.parameter_count() == 107769861120.0);
  const double active_layer = kAttention + kNorms + kExpert + kExpert + 5120.0 * 16;
  CHECK(m.active_parameter_count() == 48 * active_layer + kVocab);
  CHECK(m.active_parameter_count() == 17172894720.0);
  // Meta's figures: 109B total (the vision encoder's ~1B is not modelled), 17B active.
  CHECK(m.parameter_count() == Approx(109e9).epsilon(0.02));
  CHECK(m.active_parameter_count() == Approx(17e9).epsilon(0.02));
}

TEST_CASE("llama4: Maverick has 24 dense and 24 MoE layers with 400.7B parameters and 17.2B active", "[model][llama4]") {
  const ModelSpec m = load_model("llama-4-maverick");
  CHECK(m.moe_layers() == 24);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  CHECK_FALSE(m.is_moe_layer(46));
  CHECK(m.is_moe_layer(47));
  const double dense_layer = kAttention + kNorms + kDenseMlp;
  const double moe_layer = kAttention + kNorms + 128 * kExpert + kExpert + 5120.0 * 128;
  CHECK(m.parameter_count() == 24 * dense_layer + 24 * moe_layer + kVocab);
  CHECK(m.parameter_count() == 400711848960.0);
  const double active_moe_layer = kAttention + kNorms + kExpert + kExpert + 5120.0 * 128;
  CHECK(m.active_parameter_count() == 24 * dense_layer + 24 * active_moe_layer + kVocab);
  CHECK(m.active_parameter_count() == 17184691200.0);
  // Meta's figures: 400B total, 17B active.
  CHECK(m.parameter_count() == Approx(400e9).epsilon(0.01));
  CHECK(m.active_parameter_count() == Approx(17e9).epsilon(0.02));
  // Were every layer MoE (the interleave ignored) it would be 780B.
  ModelSpec every = m;
  every.moe_layer_step = 1;
  CHECK(every.parameter_count() == 48 * moe_layer + kVocab);
}

TEST_CASE("llama4: Maverick's pipeline stages hold the MoE layers that fall in them", "[model][llama4]") {
  const ModelSpec m = load_model("llama-4-maverick");
  Deployment dep;
  dep.tp = 8;
  // One stage: all 48 layers, MoE the odd ones.
  ShardShape s = shard_shape(m, dep);
  CHECK(s.layers == 48);
  CHECK(s.moe_layers == 24);
  CHECK(s.dense_layers == 24);
  CHECK(s.intermediate == 2048);        // 16384 / 8
  CHECK(s.expert_intermediate == 1024);  // 8192 / 8, ep 1
  CHECK(s.shared_intermediate == 1024);
  // pp 7: 7 layers a stage; the modelled last one is layers 41..47: 41, 43, 45, 47 MoE.
  dep.pp = 7;
  s = shard_shape(m, dep);
  CHECK(s.layers == 7);
  CHECK(s.moe_layers == 4);
  CHECK(s.dense_layers == 3);
  // pp 2: layers 24..47, 12 of each.
  dep.pp = 2;
  s = shard_shape(m, dep);
  CHECK(s.moe_layers == 12);
  CHECK(s.dense_layers == 12);
  // Scout's stages are all MoE.
  s = shard_shape(load_model("llama-4-scout"), dep);
  CHECK(s.moe_layers == 24);
  CHECK(s.dense_layers == 0);
}

TEST_CASE("llama4: the step lists dense MLPs for Maverick's dense layers and experts for the others", "[model][llama4]") {
  BatchShape batch;
  batch.decode_seqs = 1;
  batch.decode_context_sum = 1000;
  const auto count_of = [](const std::vector<OpCost>& ops, const std::string& name) {
    for (const OpCost& op : ops)
      if (op.name == name) return op.count;
    return 0;
  };
  const std::vector<OpCost> maverick = step_ops(load_model("llama-4-maverick"), Deployment{}, batch);
  CHECK(count_of(maverick, "gate_up_proj") == 24);
  CHECK(count_of(maverick, "expert_gate_up") == 24);
  CHECK(count_of(maverick, "shared_gate_up") == 24);
  const std::vector<OpCost> scout = step_ops(load_model("llama-4-scout"), Deployment{}, batch);
  CHECK(count_of(scout, "gate_up_proj") == 0);
  CHECK(count_of(scout, "expert_gate_up") == 48);
}

TEST_CASE("llama4: fp8 experts beside bf16 attention store and read the experts in one byte", "[model][llama4]") {
  const ModelSpec m = load_model("llama-4-maverick");
  // Whole model: the 24 MoE layers' 128 routed + 1 shared experts drop from 2 bytes to 1.
  CHECK(m.weight_bytes(Dtype::bf16) - m.weight_bytes(Dtype::bf16, Dtype::fp8) == 24 * 129 * kExpert);
  CHECK(m.weight_bytes(Dtype::bf16, Dtype::fp8) - m.weight_bytes(Dtype::fp8) ==
        24 * (kAttention + kDenseMlp) + 24 * kAttention);

  // Per GPU at tp 8, ep 8: 16 whole experts and 1/8 of the shared one a GPU; attention of
  // 5 query heads and 1 KV head; the dense MLP 2048 wide.
  Deployment dep;
  dep.tp = 8;
  dep.ep = 8;
  const double attention = 5120.0 * (5 + 2) * 128 + 5 * 128 * 5120.0;  // 7,864,320
  const double dense_layer = (attention + 3 * 5120.0 * 2048) * 2 + kNorms * 2;
  const double experts = 16 * 3 * 5120.0 * 8192 + 3 * 5120.0 * 1024;
  const double router_norms = (5120.0 * 128 + kNorms) * 2;
  const double vocab = 2 * (202048.0 / 8) * 5120 * 2 + 5120 * 2;
  CHECK(weight_bytes_per_gpu(m, dep) == 24 * (dense_layer + attention * 2 + experts * 2 + router_norms) + vocab);
  dep.expert_weights = Dtype::fp8;
  CHECK(weight_bytes_per_gpu(m, dep) == 24 * (dense_layer + attention * 2 + experts * 1 + router_norms) + vocab);
  CHECK(weight_bytes_per_gpu(m, dep) == 51510487040.0);

  // The expert GEMMs read their weights in fp8; attention and the dense MLP stay bf16.
  BatchShape batch;
  batch.decode_seqs = 1;
  batch.decode_context_sum = 1000;
  const auto bytes_of = [&](const Deployment& d, const std::string& name) {
    for (const OpCost& op : step_ops(m, d, batch))
      if (op.name == name) return op.bytes_read;
    return -1.0;
  };
  Deployment bf16;
  Deployment fp8_experts;
  fp8_experts.expert_weights = Dtype::fp8;
  // One token touches one routed expert per layer: 5120 x 16384 gate/up weights, 24 layers.
  CHECK(bytes_of(bf16, "expert_gate_up") - bytes_of(fp8_experts, "expert_gate_up") == 5120.0 * 16384 * 24);
  CHECK(bytes_of(bf16, "expert_down") - bytes_of(fp8_experts, "expert_down") == 8192.0 * 5120 * 24);
  CHECK(bytes_of(bf16, "shared_gate_up") - bytes_of(fp8_experts, "shared_gate_up") == 5120.0 * 16384 * 24);
  CHECK(bytes_of(bf16, "gate_up_proj") == bytes_of(fp8_experts, "gate_up_proj"));
  CHECK(bytes_of(bf16, "qkv_proj") == bytes_of(fp8_experts, "qkv_proj"));
}

TEST_CASE("llama4: expert weights on a dense model are refused", "[model][llama4]") {
  Deployment dep;
  dep.expert_weights = Dtype::fp8;
  CHECK_THAT(deployment_problem(load_model("llama-3-8b"), dep),
             Catch::Contains("need a mixture-of-experts model") && Catch::Contains("dense"));
  CHECK(deployment_problem(load_model("llama-4-scout"), dep).empty());
}

TEST_CASE("llama4: a moe_layers list must match interleave_moe_layer_step", "[model][llama4]") {
  const std::string text = read_text(fixture("Llama-4-Maverick-17B-128E-Instruct"));
  std::string odd = "[1";
  std::string even = "[0";
  for (int i = 3; i < 48; i += 2) odd += ", " + std::to_string(i);
  for (int i = 2; i < 48; i += 2) even += ", " + std::to_string(i);
  odd += "]";
  even += "]";
  {
    ScratchConfig f("listed", replaced(text, "\"num_attention_heads\"", "\"moe_layers\": " + odd + ",\n    \"num_attention_heads\""));
    CHECK(load_model(f.path).moe_layers() == 24);
  }
  {
    ScratchConfig f("shifted", replaced(text, "\"num_attention_heads\"", "\"moe_layers\": " + even + ",\n    \"num_attention_heads\""));
    try {
      load_model(f.path);
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      CHECK(e.key() == "moe_layers");
      CHECK(e.line() > 0);
      CHECK_THAT(std::string(e.what()), Catch::Contains("interleave_moe_layer_step"));
    }
  }
  {
    // The interleave must leave some MoE layer.
    ScratchConfig f("step", replaced(text, "\"interleave_moe_layer_step\": 2", "\"interleave_moe_layer_step\": 49"));
    CHECK_THROWS_WITH(load_model(f.path), Catch::Contains("interleave_moe_layer_step") && Catch::Contains("no MoE layer"));
  }
  {
    // A missing dense width names the field and the family.
    std::string without = text;
    const auto at = without.find("    \"intermediate_size_mlp\"");
    without.erase(at, without.find('\n', at) - at + 1);
    ScratchConfig f("mlp", without);
    CHECK_THROWS_WITH(load_model(f.path), Catch::Contains("missing required field 'intermediate_size_mlp' (a Llama-4-style"));
  }
}

TEST_CASE("llama4: an unknown model_type is refused naming it and the supported ones with exit 2 from step", "[model][llama4]") {
  // https://huggingface.co/google/gemma-2-9b/blob/main/config.json (trimmed): Llama-like
  // keys, but soft-capping and alternating sliding windows this simulator does not model.
  const std::string gemma2 = R"({
  "architectures": ["Gemma2ForCausalLM"],
  "head_dim": 256,
  "hidden_size": 3584,
  "intermediate_size": 14336,
  "max_position_embeddings": 8192,
  "model_type": "gemma2",
  "num_attention_heads": 16,
  "num_hidden_layers": 42,
  "num_key_value_heads": 8,
  "vocab_size": 256000
})";
  ScratchConfig f("gemma-2-9b", gemma2);
  try {
    load_model(f.path);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.file() == f.path);
    CHECK(e.key() == "model_type");
    CHECK(e.line() == 7);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("'gemma2' is not supported"));
    for (const char* t : {"llama", "mistral", "qwen2", "mixtral", "deepseek_v2", "deepseek_v3", "llama4"}) {
      CHECK_THAT(what, Catch::Contains(t));
    }
  }
  std::ostringstream out, err;
  CHECK(cli::run_subcommand("step", {"--model", f.path, "--hardware", "h200", "--decode", "1:100"}, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("gemma2") && Catch::Contains("llama4"));

  // A wrapper whose text model is a supported family reads as that family.
  ScratchConfig wrapped("wrapped", replaced(read_text(fixture("Llama-4-Scout-17B-16E-Instruct")),
                                            "\"model_type\": \"llama4\"", "\"model_type\": \"llava\""));
  CHECK(load_model(wrapped.path).num_shared_experts == 1);
  // A non-string model_type is an error at its line.
  ScratchConfig number("number", replaced(gemma2, "\"gemma2\"", "2"));
  CHECK_THROWS_WITH(load_model(number.path), Catch::Contains("model_type") && Catch::Contains("expected a string"));
}

}  // namespace llama4_test
