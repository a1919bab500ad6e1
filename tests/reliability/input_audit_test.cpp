// Input audit, every path but traces (traces are in trace_audit_test.cpp): the
// scenario YAML, --set, a Hugging Face config.json, hardware and model YAML, the
// measurement CSV, compare's JSON files and the sweep / capacity arguments. Each row feeds
// one bad input to the real CLI and states where the message must point: exit 2, FILE:LINE
// (or the option) and the field, no crash and no result file left behind.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace input_audit_test {

using namespace servesim::testing;
namespace fs = std::filesystem;

namespace {

const char* kScenario = R"(name: audit
stop: {requests: 20}
workload:
  - arrival: {process: poisson, rate: 5}
    input: {fixed: 100}
    output: {fixed: 10}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      replicas: 1
)";

const char* kConfigJson = R"({
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "intermediate_size": 14336,
  "vocab_size": 128256,
  "max_position_embeddings": 8192
})";

const char* kMeasurements = "kind,model,prefill_tokens,past_tokens,decode_batch,decode_context,gemm_m,gemm_k,gemm_n,dtype,ms\n"
                            "prefill,llama-3-8b,512,0,,,,,,bf16,15.8\n"
                            "decode,llama-3-8b,,,4,1024,,,,bf16,6.2\n";

const std::string kGarbage("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe\x00\x13:\n\x89PNG\r\n\x1a\n{[", 26);

// `text` with line `line` (1-based) replaced by `replacement`.
std::string with_line(const std::string& text, int line, const std::string& replacement) {
  std::string out;
  std::size_t start = 0;
  for (int i = 1; start <= text.size(); ++i) {
    const std::size_t end = text.find('\n', start);
    const std::string current = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += (i == line ? replacement : current);
    if (end == std::string::npos) break;
    out += "\n";
    start = end + 1;
  }
  return out;
}

std::string repo_text(const std::string& relative) { return read_file(fs::path(SERVESIM_SOURCE_DIR) / relative); }

struct Row {
  const char* what;
  std::string file;     // written into the test folder as `in` (or "" for none)
  std::string command;  // {D}: the test folder
  std::string where;    // must follow "error: " in the output ({D} replaced); "" = anywhere
  std::string key;      // must appear in the message
  std::string no_output = "{D}/out";  // must not exist afterwards (a folder or a file)
};

std::string fill(std::string s, const std::string& dir) {
  for (std::size_t at; (at = s.find("{D}")) != std::string::npos;) s.replace(at, 3, dir);
  return s;
}

std::vector<Row> rows() {
  const std::string hw = repo_text("configs/hardware/h100-sxm.yaml");
  const std::string model = repo_text("models/llama-3-8b.yaml");
  const int hw_line = 7;     // memory_bandwidth_tb_s
  const int model_line = 5;  // num_layers
  const std::string run = "run {D}/in --quiet --out {D}/out";
  const std::string step_hf = "step --model {D}/config.json --hardware h100-sxm --decode 1:100";
  const std::string step_hw = "step --model llama-3-8b --hardware {D}/in --decode 1:100";
  const std::string step_model = "step --model {D}/in --hardware h100-sxm --decode 1:100";
  const std::string calibrate = "calibrate --hardware h100-sxm --model llama-3-8b --measurements {D}/in -o {D}/out";
  const std::string compare = "compare {D}/in {D}/in";
  return {
      // Scenario YAML.
      {"scenario: missing file", "", "run {D}/nothing.yaml --out {D}/out", "{D}/nothing.yaml", "not found"},
      {"scenario: empty file", "", "run {D}/empty.yaml --out {D}/out", "", "workload"},
      {"scenario: binary garbage", kGarbage, run, "{D}/in", ""},
      {"scenario: wrong type", with_line(kScenario, 12, "      replicas: many"), run, "{D}/in:12", "cluster.pools.0.replicas"},
      {"scenario: NaN", with_line(kScenario, 4, "  - arrival: {process: poisson, rate: .nan}"), run, "{D}/in:4",
       "workload.0.arrival.rate"},
      {"scenario: infinity", with_line(kScenario, 4, "  - arrival: {process: poisson, rate: .inf}"), run, "{D}/in:4",
       "workload.0.arrival.rate"},
      {"scenario: negative", with_line(kScenario, 12, "      replicas: -1"), run, "{D}/in:12", "cluster.pools.0.replicas"},
      {"scenario: zero-length prompt", with_line(kScenario, 5, "    input: {fixed: 0}"), run, "{D}/in:5", "workload.0.input"},
      {"scenario: absurd replica count", with_line(kScenario, 12, "      replicas: 1000000000000"), run, "{D}/in:12",
       "cluster.pools.0.replicas"},
      {"scenario: absurd request count", with_line(kScenario, 2, "stop: {requests: 1e30}"), run, "{D}/in:2", "stop.requests"},
      // An autoscaled pool (line 12 replaces `replicas`).
      {"scenario: unknown autoscale policy",
       with_line(kScenario, 12, "      autoscale: {policy: in_flihgt, target: 4, max_replicas: 2, cold_start: 1s}"), run,
       "{D}/in:12", "cluster.pools.0.autoscale.policy"},
      {"scenario: autoscale min above max",
       with_line(kScenario, 12, "      autoscale: {policy: in_flight, target: 4, min_replicas: 3, max_replicas: 2}"), run,
       "{D}/in:12", "cluster.pools.0.autoscale.max_replicas"},
      {"scenario: negative cold start",
       with_line(kScenario, 12, "      autoscale: {policy: in_flight, target: 4, max_replicas: 2, cold_start: -1s}"), run,
       "{D}/in:12", "cluster.pools.0.autoscale.cold_start"},
      {"scenario: unknown autoscale key",
       with_line(kScenario, 12, "      autoscale: {policy: in_flight, target: 4, max_replicas: 2, intervl: 5s}"), run,
       "{D}/in:12", "cluster.pools.0.autoscale.intervl"},
      // --set.
      {"--set: wrong type", kScenario, run + " --set cluster.pools.0.replicas=many", "--set", "cluster.pools.0.replicas"},
      {"--set: NaN", kScenario, run + " --set workload.0.arrival.rate=.nan", "--set", "workload.0.arrival.rate"},
      {"--set: negative", kScenario, run + " --set cluster.pools.0.engine.max_num_seqs=-4", "--set",
       "cluster.pools.0.engine.max_num_seqs"},
      {"--set: no value", kScenario, run + " --set cluster.pools.0.replicas", "--set", "cluster.pools.0.replicas"},
      // Hugging Face config.json (through --model, as a scenario's model: does too).
      {"config.json: missing file", "", step_hf, "{D}/config.json", ""},
      {"config.json: empty file", "", "step --model {D}/empty.json --hardware h100-sxm --decode 1:100", "{D}/empty.json", ""},
      {"config.json: wrong type", with_line(kConfigJson, 3, R"(  "num_hidden_layers": "32",)"), step_hf, "{D}/config.json:3",
       "num_hidden_layers"},
      {"config.json: NaN", with_line(kConfigJson, 2, R"(  "hidden_size": NaN,)"), step_hf, "{D}/config.json:2", ""},
      {"config.json: negative", with_line(kConfigJson, 4, R"(  "num_attention_heads": -32,)"), step_hf, "{D}/config.json:4",
       "num_attention_heads"},
      {"config.json: absurd size", with_line(kConfigJson, 7, R"(  "vocab_size": 1e300,)"), step_hf, "{D}/config.json:7",
       "vocab_size"},
      {"config.json: binary garbage", kGarbage, step_hf, "{D}/config.json:1", ""},
      // Hardware YAML.
      {"hardware: missing file", "", "step --model llama-3-8b --hardware {D}/none.yaml --decode 1:100", "{D}/none.yaml", ""},
      {"hardware: empty file", "", "step --model llama-3-8b --hardware {D}/empty.yaml --decode 1:100", "{D}/empty.yaml", ""},
      {"hardware: wrong type", with_line(hw, hw_line, "memory_bandwidth_tb_s: fast"), step_hw, "{D}/in:7",
       "memory_bandwidth_tb_s"},
      {"hardware: NaN", with_line(hw, hw_line, "memory_bandwidth_tb_s: .nan"), step_hw, "{D}/in:7", "memory_bandwidth_tb_s"},
      {"hardware: infinity", with_line(hw, hw_line, "memory_bandwidth_tb_s: .inf"), step_hw, "{D}/in:7", "memory_bandwidth_tb_s"},
      {"hardware: negative", with_line(hw, hw_line, "memory_bandwidth_tb_s: -3.35"), step_hw, "{D}/in:7", "memory_bandwidth_tb_s"},
      {"hardware: binary garbage", kGarbage, step_hw, "{D}/in", ""},
      // Model YAML.
      {"model: wrong type", with_line(model, model_line, "num_layers: many"), step_model, "{D}/in:5", "num_layers"},
      {"model: negative", with_line(model, model_line, "num_layers: -32"), step_model, "{D}/in:5", "num_layers"},
      {"model: absurd size", with_line(model, model_line, "num_layers: 1e30"), step_model, "{D}/in:5", "num_layers"},
      {"model: binary garbage", kGarbage, step_model, "{D}/in", ""},
      // Measurement CSV (calibrate writes nothing when its input is bad).
      {"measurements: missing file", "", "calibrate --hardware h100-sxm --model llama-3-8b --measurements {D}/none.csv -o {D}/out",
       "{D}/none.csv", ""},
      {"measurements: empty file", "", "calibrate --hardware h100-sxm --model llama-3-8b --measurements {D}/empty.csv -o {D}/out",
       "{D}/empty.csv", ""},
      {"measurements: wrong type", with_line(kMeasurements, 2, "prefill,llama-3-8b,many,0,,,,,,bf16,15.8"), calibrate,
       "{D}/in:2", "prefill_tokens"},
      {"measurements: NaN", with_line(kMeasurements, 3, "decode,llama-3-8b,,,4,1024,,,,bf16,nan"), calibrate, "{D}/in:3", "ms"},
      {"measurements: negative", with_line(kMeasurements, 3, "decode,llama-3-8b,,,-4,1024,,,,bf16,6.2"), calibrate, "{D}/in:3",
       "decode_batch"},
      {"measurements: binary garbage", kGarbage, calibrate, "{D}/in:1", ""},
      // compare's JSON inputs.
      {"compare: missing file", "", "compare {D}/none.json {D}/none.json", "{D}/none.json", ""},
      {"compare: empty file", "", "compare {D}/empty.json {D}/empty.json", "{D}/empty.json", ""},
      {"compare: wrong type", R"({"completed": "ten", "p99_ttft_ms": 5})", compare, "{D}/in", "completed"},
      {"compare: binary garbage", kGarbage, compare, "{D}/in:1", ""},
      // Sweep and capacity-search inputs: bad before any point runs, nothing written.
      {"sweep: wrong type in an axis", kScenario, "sweep {D}/in --axis cluster.pools.0.replicas=1,many --out {D}/out",
       "", "cluster.pools.0.replicas"},
      {"sweep: NaN in an axis", kScenario, "sweep {D}/in --axis workload.0.arrival.rate=1,.nan --out {D}/out", "",
       "workload.0.arrival.rate"},
      {"sweep: axis without values", kScenario, "sweep {D}/in --axis workload.0.arrival.rate= --out {D}/out", "",
       "workload.0.arrival.rate"},
      {"capacity: SLO of the wrong type", kScenario, "capacity {D}/in --slo ttft_p99=soon", "", "ttft_p99"},
      {"capacity: negative SLO", kScenario, "capacity {D}/in --slo ttft_p99=-2s", "", "ttft_p99"},
      {"capacity: unknown SLO field", kScenario, "capacity {D}/in --slo speed_p99=2s", "", "speed_p99"},
  };
}

}  // namespace

TEST_CASE("input audit: every input path rejects bad input with exit 2 naming file:line and the field",
          "[reliability][audit]") {
  const std::vector<Row> all = rows();
  CHECK(all.size() == 52);
  int n = 0;
  for (const Row& row : all) {
    TempDir dir("audit-" + std::to_string(n++));
    const std::string d = dir.path.string();
    dir.write("empty.yaml", "");
    dir.write("empty.json", "");
    dir.write("empty.csv", "");
    if (!row.file.empty()) {
      std::ofstream(dir.path / "in", std::ios::binary) << row.file;
      std::ofstream(dir.path / "config.json", std::ios::binary) << row.file;
    }
    const CliResult r = run_cli(fill(row.command, d));
    INFO(row.what << "\n$ servesim " << fill(row.command, d) << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("error: " + fill(row.where, d)) != std::string::npos);
    CHECK(r.output.find(row.key) != std::string::npos);
    CHECK(r.output.find("Sanitizer") == std::string::npos);
    CHECK(r.output.find("terminate") == std::string::npos);
    CHECK(r.output.find("Assertion") == std::string::npos);
    CHECK_FALSE(fs::exists(fill(row.no_output, d)));
  }
}

}  // namespace input_audit_test
