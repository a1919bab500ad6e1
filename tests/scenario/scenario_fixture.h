#pragma once
// Test helper: a private temporary folder holding a scenario YAML plus a small model, a
// hardware profile and a trace, so loader tests depend on nothing but the code under test.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace servesim::testing {

// A grouped-query-attention model with 48 attention heads in 8 KV groups, so that tensor
// parallelism can fail on either count: tp 5 splits neither, tp 3 splits the attention
// heads but not the KV heads, tp 12 is above 8 but not a multiple of it.
inline constexpr const char* kTinyModelYaml = R"(name: test-gqa
source: test fixture
num_layers: 32
hidden_size: 6144
num_attention_heads: 48
num_kv_heads: 8
intermediate_size: 14336
vocab_size: 128256
max_context_tokens: 8192
)";

inline constexpr const char* kTinyGpuYaml = R"(name: tiny-gpu
source: test fixture
memory_gib: 80
memory_bandwidth_tb_s: 3.35
peak_tflops_bf16: 989
interconnect_bandwidth_gb_s: 450
)";

// Meta-Llama-3-70B's and Meta-Llama-3-8B's Hugging Face config.json shapes (70B: 80 layers,
// hidden 8192; 8B: 32 layers, hidden 4096), without _name_or_path, so the file names the
// model: tests write them under one file name in two folders.
inline constexpr const char* kLlama70bShape = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8192,
  "intermediate_size": 28672, "max_position_embeddings": 8192, "model_type": "llama",
  "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256})";
inline constexpr const char* kLlama8bShape = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256})";

inline constexpr const char* kAzureTraceCsv =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:50.9951690,396,109\n";

class ScenarioDir {
 public:
  ScenarioDir() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("servesim-scenario-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    write("tiny-model.yaml", kTinyModelYaml);
    write("tiny-gpu.yaml", kTinyGpuYaml);
    write("conv.csv", kAzureTraceCsv);
  }
  ~ScenarioDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScenarioDir(const ScenarioDir&) = delete;
  ScenarioDir& operator=(const ScenarioDir&) = delete;

  // Writes `text` to dir/name and returns the full path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

// A small valid scenario; the line numbers matter to the error-table tests.
//  1 workload:
//  2   - class: chat
//  3     arrival: {process: poisson, rate: 4}
//  4     input: {fixed: 100}
//  5     output: {fixed: 10}
//  6 cluster:
//  7   pools:
//  8     - model: tiny-model.yaml
//  9       hardware: tiny-gpu.yaml
// 10       tp: 1
// 11       engine: {policy: continuous}
// 12   router: round-robin
inline constexpr const char* kMinimalScenario = R"(workload:
  - class: chat
    arrival: {process: poisson, rate: 4}
    input: {fixed: 100}
    output: {fixed: 10}
cluster:
  pools:
    - model: tiny-model.yaml
      hardware: tiny-gpu.yaml
      tp: 1
      engine: {policy: continuous}
  router: round-robin
stop: {requests: 100}
)";

// kMinimalScenario with its 1-based line `line` replaced by `text` (which may hold several
// lines, or be empty to delete the line).
inline std::string edit_line(const std::string& yaml, int line, const std::string& text) {
  std::string out;
  int current = 1;
  std::size_t start = 0;
  while (start < yaml.size()) {
    const std::size_t end = yaml.find('\n', start);
    const std::string original = yaml.substr(start, end - start);
    if (current == line) {
      if (!text.empty()) out += text + "\n";
    } else {
      out += original + "\n";
    }
    ++current;
    start = end == std::string::npos ? yaml.size() : end + 1;
  }
  return out;
}

}  // namespace servesim::testing
