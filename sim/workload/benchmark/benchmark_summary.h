#pragma once
// The aggregate results of a real serving benchmark, for a run saved without its
// per-request entries: `vllm bench serve --save-result` without --save-detailed,
// inference-perf's summary_lifecycle_metrics.json and stage_N_lifecycle_metrics.json,
// a GuideLLM report without request lists. Such a file cannot be replayed (the requests
// are not in it), but it states the load it was run at and the means and percentiles the
// tool measured, which `calibrate --from-benchmark` fits overheads to
// (sim/study/summary_calibration.h). Each tool's schema is one file defining one
// BenchmarkSummaryFormat, registered in benchmark_summary.cpp.
//
// A figure's meaning is the tool's own (what the simulated side must compute to compare):
//   ttft   send to first token, per request
//   e2el   send to last token (vLLM e2el, inference-perf request_latency, GuideLLM
//          request_latency), per request
//   tpot   vLLM and inference-perf: (e2el - ttft) / (output tokens - 1), per request of 2
//          tokens or more; GuideLLM: e2el / output tokens, each request weighted by its
//          output tokens (its time_per_output_token_ms)
//   itl    vLLM and inference-perf: every gap between consecutive tokens; GuideLLM: per
//          request (e2el - ttft) / (output - 1), weighted by output - 1
//   ntpot  inference-perf's normalized_time_per_output_token: e2el / output tokens (0
//          without output), per request
// Percentiles are numpy's linear interpolation for vLLM and inference-perf, GuideLLM's
// weighted nearest rank for GuideLLM (sim/metrics/guidellm_distribution.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/workload/benchmark/benchmark_run.h"
#include "sim/workload/benchmark/json_document.h"

namespace servesim {

struct SummaryFigure {
  std::string metric;     // ttft | tpot | itl | e2el | ntpot
  double percent = -1;    // -1: the mean; otherwise the percentile (50: the median)
  double measured_ms = 0;
  std::string key;        // where the file holds it ("p99_ttft_ms", "successes.latency...")
  // "ttft_mean_ms", "ttft_p50_ms", "itl_p99_ms" (the names replay's figures use).
  std::string name() const;
};

// One load level and what the file states of the workload it ran.
struct SummaryStage {
  std::string name;                        // "rate 8", "stage 1", "constant@5.00"
  std::string file;                        // the file the stage was read from
  std::optional<int> stage_id;             // the tool's own stage number (inference-perf's N)
  std::optional<std::int64_t> requests;    // sent, whatever their outcome
  std::optional<std::int64_t> completed;   // succeeded
  std::optional<double> rate_per_s;        // the rate the tool aimed at; absent: none stated
  bool all_at_once = false;                // the tool sent every request at the start (rate inf)
  std::optional<double> burstiness;        // gamma shape of the gaps (vLLM; 1: Poisson)
  bool evenly_spaced = false;              // constant gaps (GuideLLM constant, inference-perf constant)
  std::optional<int> concurrency;          // requests kept in flight (closed loop)
  // Tokens per completed request (the file's totals over its completed count).
  std::optional<double> mean_input_tokens;
  std::optional<double> mean_output_tokens;
  std::vector<SummaryFigure> figures;
};

struct BenchmarkSummary {
  std::string format;  // vllm-bench | inference-perf | guidellm
  std::string path;
  // The deployment the file states (model, tokenizer, engine, tp, pp), for
  // match_benchmark; its stages and requests are empty.
  BenchmarkRun deployment;
  std::vector<SummaryStage> stages;  // at least one
};

struct BenchmarkSummaryFormat {
  const char* name;  // the BenchmarkFormat it goes with: vllm-bench | inference-perf | guidellm
  // Whether a parsed file is this tool's aggregate results with no per-request entries.
  bool (*recognises)(const nlohmann::json& root);
  // Throws ConfigError(file, line, field, ...) for a missing or bad field.
  BenchmarkSummary (*read)(const JsonDocument& document);
  const char* about;  // the tool's output it reads, for `calibrate --format` with no name
};

const std::vector<BenchmarkSummaryFormat>& benchmark_summary_formats();

// Whether `path` holds a tool's aggregate results only (`format` "auto" or a format name);
// false for a file with per-request entries, which read_benchmark reads. Throws
// ConfigError for a file that cannot be read or parsed.
bool is_benchmark_summary(const std::string& path, const std::string& format = "auto");

// Reads `path`. Throws ConfigError naming the file when no summary format recognises it.
BenchmarkSummary read_benchmark_summary(const std::string& path, const std::string& format = "auto");

BenchmarkSummaryFormat vllm_bench_summary_format();
BenchmarkSummaryFormat inference_perf_summary_format();
BenchmarkSummaryFormat guidellm_summary_format();

}  // namespace servesim
