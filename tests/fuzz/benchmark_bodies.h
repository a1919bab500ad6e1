#pragma once
// What the libFuzzer targets of the benchmark tools' result files do with one input (see
// fuzz_bodies.h for why they are plain functions): vLLM's `vllm bench serve` JSON,
// inference-perf's report folder, GuideLLM's report. Each file is read both ways a user
// hands it in: replayed as a trace (`trace: {format: F, path: P}`, benchmark_source.h) and
// read as aggregates (`calibrate --from-benchmark`, benchmark_summary.h).
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_summary.h"
#include "tests/fuzz/fuzz_util.h"

namespace servesim::fuzz {

// Replays `path` as `format` and as "benchmark" (the format detected), every stage and
// stage 0 alone, at speedup 1 and 3.7; requests held back by a max_concurrency are let go
// as the ones in flight finish.
inline void replay_benchmark_file(const std::string& path, const char* format) {
  for (const char* as : {format, "benchmark"}) {
    for (const std::optional<int> stage : {std::optional<int>{}, std::optional<int>{0}}) {
      for (const double speedup : {1.0, 3.7}) {
        ClassSpec spec;
        spec.name = "fuzz";
        TraceSpec trace;
        trace.format = as;
        trace.path = path;
        trace.speedup = speedup;
        trace.stage = stage;
        spec.trace = trace;
        try {
          auto source = make_source(spec, 0, 1);
          drain_with_finishes(*source);
        } catch (const ConfigError&) {
          // rejected with file:line: the outcome the contract allows
        }
      }
    }
  }
}

// Reads `path` as a summary of `format`; one that loads has what calibration relies on.
inline void read_summary_file(const std::string& path, const char* format) {
  try {
    if (!is_benchmark_summary(path, format)) return;
    const BenchmarkSummary s = read_benchmark_summary(path, format);
    if (s.stages.empty()) finding("a summary without a stage");
    for (const SummaryStage& stage : s.stages) {
      for (const SummaryFigure& f : stage.figures) {
        if (!std::isfinite(f.measured_ms) || f.measured_ms < 0) finding("a summary figure that is not a finite time >= 0");
      }
      if (stage.rate_per_s && !(*stage.rate_per_s > 0 && std::isfinite(*stage.rate_per_s)))
        finding("a summary stage rate that is not positive and finite");
      if (stage.concurrency && *stage.concurrency < 1) finding("a summary stage concurrency below 1");
    }
  } catch (const ConfigError&) {
  }
}

// One JSON file of vLLM's `vllm bench serve --save-result` (--save-detailed or not) or of
// GuideLLM (format "vllm-bench" or "guidellm").
inline void benchmark_file_input(const char* format, const std::uint8_t* data, std::size_t size) {
  static const TempFile file("result.json");
  file.write(data, size);
  replay_benchmark_file(file.path(), format);
  read_summary_file(file.path(), format);
}

// An inference-perf report folder, as one input: per_request_lifecycle_metrics.json, then
// optionally, each after a line "#### NAME", the stage files stage_0_lifecycle_metrics.json
// and stage_1_lifecycle_metrics.json, summary_lifecycle_metrics.json and config.yaml
// (fuzz_util.h split_files). The per-request file is replayed with its stages; every JSON
// file is read as a summary.
inline void inference_perf_input(const std::uint8_t* data, std::size_t size) {
  static const TempFolder folder;
  static const std::vector<std::string> names = {"stage_0_lifecycle_metrics.json", "stage_1_lifecycle_metrics.json",
                                                 "summary_lifecycle_metrics.json", "config.yaml"};
  folder.clear();
  std::vector<std::string> written;
  for (const auto& [name, text] : split_files(data, size, "per_request_lifecycle_metrics.json", names)) {
    written.push_back(folder.write(name, text));
  }
  replay_benchmark_file(written.front(), "inference-perf");
  for (const std::string& path : written) {
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) read_summary_file(path, "inference-perf");
  }
}

}  // namespace servesim::fuzz
