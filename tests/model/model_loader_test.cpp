#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"

namespace model_loader_test {

using namespace servesim;

namespace {

// A private folder for files a test writes; removed at the end of the test.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("servesim-model-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file) << text;
    return (path / file).string();
  }
};

const char* kLlama3ConfigJson = R"({
  "architectures": ["LlamaForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 8192,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
})";

}  // namespace

TEST_CASE("model loader: every bundled model loads with its config.json figures", "[model]") {
  struct Expected {
    const char* name;
    int layers, hidden, heads, kv_heads, ffn, vocab;
    std::int64_t context;
  };
  const Expected expected[] = {
      {"llama-3-8b", 32, 4096, 32, 8, 14336, 128256, 8192},
      {"llama-3-70b", 80, 8192, 64, 8, 28672, 128256, 8192},
      {"llama-2-7b", 32, 4096, 32, 32, 11008, 32000, 4096},
      {"llama-2-70b", 80, 8192, 64, 8, 28672, 32000, 4096},
      {"mistral-7b", 32, 4096, 32, 8, 14336, 32000, 32768},
      {"yi-34b", 60, 7168, 56, 8, 20480, 64000, 4096},
      {"qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, 131072},
      {"llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256, 131072},
      {"qwen2.5-72b", 80, 8192, 64, 8, 29568, 152064, 131072},
  };
  for (const Expected& e : expected) {
    INFO(e.name);
    const ModelSpec m = load_model(e.name);
    CHECK(m.name == e.name);
    CHECK(m.source.find("huggingface.co") != std::string::npos);
    CHECK(m.num_layers == e.layers);
    CHECK(m.hidden_size == e.hidden);
    CHECK(m.num_attention_heads == e.heads);
    CHECK(m.num_kv_heads == e.kv_heads);
    CHECK(m.head_dim == 128);
    CHECK(m.intermediate_size == e.ffn);
    CHECK(m.vocab_size == e.vocab);
    CHECK(m.max_context_tokens == e.context);
    CHECK(m.gated_mlp);
    CHECK_FALSE(m.tied_embeddings);
  }
  // Published sizes: Llama-3-70B 70.6B parameters, Yi-34B 34.4B, Qwen2.5-7B 7.6B.
  CHECK(load_model("llama-3-70b").parameter_count() == Approx(70.55e9).epsilon(0.001));
  CHECK(load_model("yi-34b").parameter_count() == Approx(34.39e9).epsilon(0.001));
  CHECK(load_model("qwen2.5-7b").parameter_count() == Approx(7.615e9).epsilon(0.001));
  // Llama-3.1-405B 405.85B; Qwen2.5-72B 72.71B with its QKV biases (80 x 10240 of them).
  CHECK(load_model("llama-3.1-405b").parameter_count() == 405853388800.0);
  CHECK(load_model("qwen2.5-72b").parameter_count() == 72706203648.0);
  CHECK(load_model("qwen2.5-72b").attention_bias);
  CHECK_FALSE(load_model("llama-3-70b").attention_bias);
  // Llama-3.2: tied embeddings, 1.24B and 3.21B.
  CHECK(load_model("llama-3.2-1b").parameter_count() == 1235814400.0);
  CHECK(load_model("llama-3.2-3b").parameter_count() == 3212749824.0);
  CHECK(load_model("llama-3.2-3b").tied_embeddings);
}

TEST_CASE("model loader: a Hugging Face config.json gives the same model as the bundled YAML", "[model]") {
  ScratchDir dir("hf");
  std::filesystem::create_directories(dir.path / "Meta-Llama-3-8B");
  const std::string path = dir.write("Meta-Llama-3-8B/config.json", kLlama3ConfigJson);
  const ModelSpec hf = load_model(path);
  const ModelSpec yaml = load_model("llama-3-8b");
  CHECK(hf.name == "Meta-Llama-3-8B");
  CHECK(hf.num_layers == yaml.num_layers);
  CHECK(hf.num_kv_heads == yaml.num_kv_heads);
  CHECK(hf.head_dim == yaml.head_dim);
  CHECK(hf.max_context_tokens == yaml.max_context_tokens);
  CHECK(hf.parameter_count() == yaml.parameter_count());
}

TEST_CASE("model loader: a config.json without num_hidden_layers is refused naming the file and field", "[model]") {
  ScratchDir dir("hf-missing");
  std::string text = kLlama3ConfigJson;
  text.erase(text.find("  \"num_hidden_layers\": 32,\n"), std::string("  \"num_hidden_layers\": 32,\n").size());
  const std::string path = dir.write("config.json", text);
  try {
    load_model(path);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.key() == "num_hidden_layers");
    CHECK(std::string(e.what()).find("missing required field 'num_hidden_layers'") != std::string::npos);
  }
}

TEST_CASE("model loader: a config.json field of the wrong type is reported at its line", "[model]") {
  ScratchDir dir("hf-type");
  std::string text = kLlama3ConfigJson;
  text.replace(text.find("\"vocab_size\": 128256"), 20, "\"vocab_size\": \"big\"");
  const std::string path = dir.write("config.json", text);
  try {
    load_model(path);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "vocab_size");
    CHECK(e.line() == 14);
  }
}

TEST_CASE("model loader: Qwen2-MoE style expert configs are refused naming num_experts", "[model]") {
  ScratchDir dir("hf-moe");
  std::string text = kLlama3ConfigJson;
  text.insert(text.find("\"vocab_size\""), "\"num_experts\": 64,\n  ");
  try {
    load_model(dir.write("config.json", text));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "num_experts");
    CHECK(std::string(e.what()).find("Qwen2-MoE style configs are not supported") != std::string::npos);
  }
}

TEST_CASE("model loader: an unknown key in a model YAML is reported with its line and a suggestion", "[model]") {
  ScratchDir dir("yaml-unknown");
  const std::string path = dir.write("m.yaml",
                                     "name: m\n"
                                     "num_layers: 2\n"
                                     "hidden_size: 64\n"
                                     "num_attention_heads: 4\n"
                                     "intermediat_size: 256\n"
                                     "vocab_size: 100\n"
                                     "max_context_tokens: 512\n");
  try {
    load_model(path);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 5);
    CHECK(e.key() == "intermediat_size");
    CHECK(std::string(e.what()).find("did you mean 'intermediate_size'") != std::string::npos);
  }
}

TEST_CASE("model loader: a model YAML missing a field or with bad values is refused", "[model]") {
  ScratchDir dir("yaml-bad");
  const std::string base = "num_layers: 2\nhidden_size: 64\nnum_attention_heads: 4\nvocab_size: 100\nmax_context_tokens: 512\n";
  CHECK_THROWS_WITH(load_model(dir.write("a.yaml", base)), Catch::Contains("intermediate_size"));
  const ModelSpec ok = load_model(dir.write("b.yaml", base + "intermediate_size: 256\n"));
  CHECK(ok.name == "b");          // defaults to the file name
  CHECK(ok.head_dim == 16);       // hidden / heads
  CHECK(ok.num_kv_heads == 4);    // no GQA unless given
  try {
    load_model(dir.write("c.yaml", base + "intermediate_size: 256\nnum_kv_heads: 3\n"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "num_kv_heads");
    CHECK(e.line() == 7);
  }
  CHECK_THROWS_WITH(load_model(dir.write("d.yaml", base + "intermediate_size: -5\n")), Catch::Contains("must be >= 1"));
  CHECK_THROWS_AS(load_model(dir.write("e.yaml", "num_layers: [1\n")), ConfigError);
}

TEST_CASE("model loader: an unknown model name lists the closest bundled name", "[model]") {
  CHECK_THROWS_WITH(load_model("llama-3-8"), Catch::Contains("did you mean 'llama-3-8b'"));
}

}  // namespace model_loader_test
