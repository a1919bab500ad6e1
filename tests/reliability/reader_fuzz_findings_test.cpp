// What fuzzing the benchmark readers and the kernel tables found (docs/reliability.md,
// "Fuzzing"), each through the reader a user's file goes through: every one is now a
// ConfigError naming the file, the line and the key, where before it was undefined
// behaviour or an exception that ended the program.
#include <zlib.h>

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/benchmark_summary.h"
#include "sim/workload/benchmark/inference_perf_stages.h"

namespace servesim::reader_fuzz_findings_test {
namespace {

// Runs `read` and returns the ConfigError it throws; fails the test when it throws none.
template <typename Read>
ConfigError config_error_of(Read read) {
  try {
    read();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError");
  return ConfigError("", 0, "", "");  // not reached: FAIL ends the test
}

KernelTableQuery llama_8b() {
  KernelTableQuery q;
  q.head_dim = 128;
  q.q_heads = 32;
  q.kv_heads = 8;
  return q;
}

}  // namespace

TEST_CASE("kernel tables: a size beyond 32 bits is refused at its line and column - not cast",
          "[reliability][kernels]") {
  testing::TempDir dir("fuzz-finding-kernel-size");
  // Line 3's n is 6e76: converting it to int was undefined behaviour (UBSan:
  // "6e+76 is outside the range of representable values of type 'int'").
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,1,4096,4096,0.01\nbfloat16,2,6e76,4096,0.02\n");
  const ConfigError e = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(e.file() == (dir.path / "gemm_perf.csv.gz").string());
  CHECK(e.line() == 3);
  CHECK(e.key() == "n");
  CHECK(e.message().find("whole number") != std::string::npos);
  // So is a size with a fraction, which a cast to int would truncate silently.
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,1,4096,4096.5,0.01\n");
  const ConfigError fraction = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(fraction.line() == 2);
  CHECK(fraction.key() == "k");
}

TEST_CASE("kernel tables: nan and inf are refused at their line and column", "[reliability][kernels]") {
  testing::TempDir dir("fuzz-finding-kernel-nan");
  // from_chars reads "nan" and "inf"; a grid cannot sort or interpolate them.
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,1,4096,4096,0.01\nbfloat16,2,4096,4096,nan\n");
  const ConfigError nan = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(nan.line() == 3);
  CHECK(nan.key() == "latency");
  CHECK(nan.message().find("finite") != std::string::npos);
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,inf,4096,4096,0.01\n");
  const ConfigError inf = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(inf.line() == 2);
  CHECK(inf.key() == "m");
}

TEST_CASE("kernel tables: a negative time or size is refused at its line and column", "[reliability][kernels]") {
  testing::TempDir dir("fuzz-finding-kernel-negative");
  // A negative latency was kept in the grid and read back as a negative step time.
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,1,4096,4096,0.01\nbfloat16,2,4096,4096,-0.5\n");
  const ConfigError latency = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(latency.line() == 3);
  CHECK(latency.key() == "latency");
  CHECK(latency.message().find(">= 0") != std::string::npos);
  // A table's attention rows at a negative batch size.
  dir.write("gemm_perf.csv.gz", "gemm_dtype,m,n,k,latency\nbfloat16,1,4096,4096,0.01\n");
  dir.write("context_attention_perf.csv.gz",
            "batch_size,isl,num_heads,num_key_value_heads,head_dim,attn_dtype,kv_cache_dtype,step,latency\n"
            "1,128,32,8,128,bfloat16,bfloat16,0,0.02\n-4,128,32,8,128,bfloat16,bfloat16,0,0.03\n");
  const ConfigError batch = config_error_of([&] { load_kernel_tables(dir.path.string(), "t", llama_8b()); });
  CHECK(batch.file() == (dir.path / "context_attention_perf.csv.gz").string());
  CHECK(batch.line() == 3);
  CHECK(batch.key() == "batch_size");
}

TEST_CASE("benchmark files: a number beyond a double is a ConfigError at its line", "[reliability][benchmark]") {
  testing::TempDir dir("fuzz-finding-json-overflow");
  // nlohmann's parser throws out_of_range (406), not parse_error, for 1e400: it escaped
  // every benchmark reader and ended the program.
  const auto path = dir.write("result.json", "{\n \"backend\": \"vllm\",\n \"num_prompts\": 2,\n \"duration\": 1e400\n}\n");
  for (const char* format : {"auto", "vllm-bench", "guidellm", "inference-perf"}) {
    INFO(format);
    const ConfigError e = config_error_of([&] { read_benchmark(path.string(), format); });
    CHECK(e.file() == path.string());
    CHECK(e.line() == 4);
    CHECK(e.message().find("number overflow") != std::string::npos);
  }
  const ConfigError summary = config_error_of([&] { read_benchmark_summary(path.string()); });
  CHECK(summary.line() == 4);
}

TEST_CASE("GuideLLM: a benchmark whose metrics lack request_totals is read as a per-request report",
          "[reliability][benchmark]") {
  testing::TempDir dir("fuzz-finding-guidellm-totals");
  // Looking the totals up with a const operator[] on a missing key was undefined
  // behaviour (nlohmann asserts). Without totals nothing says requests are missing, so the
  // file is not a summary; as a per-request report it fails where its fields do.
  const auto path = dir.write("guidellm.json",
                              "{\"benchmarks\": [{\"metrics\": {}, \"config\": {},\n"
                              "  \"requests\": {\"successful\": []}}]}\n");
  CHECK_FALSE(is_benchmark_summary(path.string(), "guidellm"));
  CHECK_FALSE(is_benchmark_summary(path.string()));
  CHECK_THROWS_AS(read_benchmark(path.string(), "guidellm"), ConfigError);
}

TEST_CASE("inference-perf: a config.yaml whose load is not a map is refused at its line", "[reliability][benchmark]") {
  testing::TempDir dir("fuzz-finding-ip-config");
  // yaml-cpp threw BadSubscript ("operator[] call on a scalar") for `load: 5`, which
  // ended the program instead of naming the file.
  const auto per_request = dir.write("per_request_lifecycle_metrics.json", "[]\n");
  dir.write("config.yaml", "api:\n  type: completion\nload: 5\n");
  const ConfigError e = config_error_of([&] { read_inference_perf_load_type(per_request.string()); });
  CHECK(e.file() == (dir.path / "config.yaml").string());
  CHECK(e.line() == 3);
  CHECK(e.key() == "load");
  dir.write("config.yaml", "load:\n  - type\n");
  CHECK(config_error_of([&] { read_inference_perf_load_type(per_request.string()); }).line() == 2);
  // A map without a type is inference-perf's default, constant.
  dir.write("config.yaml", "load:\n  stages: []\n");
  CHECK(read_inference_perf_load_type(per_request.string()) == std::optional<std::string>("constant"));
}

TEST_CASE("rate curves and scales: times less than a nanosecond apart are refused at their line",
          "[reliability][workload]") {
  testing::TempDir dir("fuzz-finding-sub-ns");
  // rate_scale_fuzz, 59.6 min into its hour: 0.000001 and 0.0000010002 s rise as doubles but
  // are both 1,000 ns on the simulator's clock; the time warp then aborted on a repeated
  // point instead of the loader naming the row.
  dir.write("scale.csv", "time_s,scale\n0.000000,1\n0.000001,2\n0.0000010002,3\n007,029");
  dir.write("trace.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 08:00:00.0000000,100,10\n");
  const auto warped = dir.write(
      "warped.yaml",
      "name: warp\nworkload:\n  - class: c\n    trace: {format: azure, path: trace.csv, rate_scale: {path: scale.csv}}\n"
      "cluster:\n  pools:\n    - {name: main, model: llama-3-8b, hardware: h100-sxm}\n");
  const ConfigError scale = config_error_of([&] { load_scenario(warped.string()); });
  CHECK(scale.file() == (dir.path / "scale.csv").string());
  CHECK(scale.line() == 4);
  CHECK(scale.key() == "time_s");
  CHECK(std::string(scale.what()).find("at least 1 ns") != std::string::npos);
  // The same rule for an arrival rate curve; 2 ns apart is fine.
  dir.write("curve.csv", "time_s,rate\n0,1\n0.0000000004,2\n");
  const auto curved = dir.write(
      "curved.yaml",
      "name: curve\nworkload:\n  - class: c\n    arrival: {process: poisson, rate_curve: {path: curve.csv}}\n"
      "    input: {fixed: 100}\n    output: {fixed: 10}\n"
      "cluster:\n  pools:\n    - {name: main, model: llama-3-8b, hardware: h100-sxm}\n");
  CHECK(config_error_of([&] { load_scenario(curved.string()); }).line() == 3);
  dir.write("curve.csv", "time_s,rate\n0,1\n0.000000002,2\n1,0\n");
  CHECK_NOTHROW(load_scenario(curved.string()));
}

}  // namespace servesim::reader_fuzz_findings_test
