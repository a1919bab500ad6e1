#pragma once
// Reading a benchmark tool's per-request results (benchmark_run.h). Each tool's schema is
// one file defining one BenchmarkFormat, registered in benchmark_reader.cpp.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/workload/benchmark/benchmark_run.h"
#include "sim/workload/benchmark/json_document.h"

namespace servesim {

struct BenchmarkFormat {
  const char* name;  // vllm-bench | inference-perf | guidellm
  // Whether a parsed file looks like this tool's output (used by format "auto"); cheap,
  // top-level keys only.
  bool (*recognises)(const nlohmann::json& root);
  // Reads the whole run. Throws ConfigError(file, line, field, ...) for a missing or bad
  // field (JsonDocument::fail), never drops a request it cannot read.
  BenchmarkRun (*read)(const JsonDocument& document);
  const char* about;  // the tool's output it reads, for `replay --format` with no name
};

// Every registered format, in the order format "auto" tries them.
const std::vector<BenchmarkFormat>& benchmark_formats();

// Reads `path` as `format` ("auto": the first format that recognises the file). Throws
// ConfigError naming the file for an unknown format name or a file no format recognises.
BenchmarkRun read_benchmark(const std::string& path, const std::string& format = "auto");

// The formats, one per tool (each in its own file).
BenchmarkFormat vllm_bench_format();
BenchmarkFormat inference_perf_format();
BenchmarkFormat guidellm_format();

// The deployment a vllm bench serve result states (model_id, tokenizer_id, the server its
// backend names, --metadata tp / pp, seed), without its stages or requests; the summary
// reader (benchmark_summary.h) shares it.
BenchmarkRun vllm_bench_deployment(const JsonDocument& document);

}  // namespace servesim
