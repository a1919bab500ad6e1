// The registry of benchmark summary formats and the reader that picks one.
#include "sim/workload/benchmark/benchmark_summary.h"

#include <cstdio>

#include "sim/core/errors.h"

namespace servesim {

std::string SummaryFigure::name() const {
  if (percent < 0) return metric + "_mean_ms";
  char text[32];
  std::snprintf(text, sizeof text, "%g", percent);
  return metric + "_p" + text + "_ms";
}

const std::vector<BenchmarkSummaryFormat>& benchmark_summary_formats() {
  static const std::vector<BenchmarkSummaryFormat> formats = {
      vllm_bench_summary_format(),
      inference_perf_summary_format(),
      guidellm_summary_format(),
  };
  return formats;
}

namespace {

const BenchmarkSummaryFormat* recognising(const JsonDocument& document, const std::string& format) {
  for (const BenchmarkSummaryFormat& f : benchmark_summary_formats()) {
    if ((format == "auto" || format == f.name) && f.recognises(document.root())) return &f;
  }
  return nullptr;
}

}  // namespace

bool is_benchmark_summary(const std::string& path, const std::string& format) {
  const JsonDocument document(path);
  return recognising(document, format) != nullptr;
}

BenchmarkSummary read_benchmark_summary(const std::string& path, const std::string& format) {
  const JsonDocument document(path);
  const BenchmarkSummaryFormat* chosen = recognising(document, format);
  if (chosen == nullptr) {
    throw ConfigError(path, 0, "format",
                      "not the aggregate results of vllm bench serve, inference-perf or GuideLLM" +
                          (format == "auto" ? std::string() : " (as " + format + ")"));
  }
  BenchmarkSummary summary = chosen->read(document);
  summary.format = chosen->name;
  summary.path = path;
  summary.deployment.format = chosen->name;
  summary.deployment.path = path;
  if (summary.stages.empty()) throw ConfigError(path, 0, "", "states no load stage with results");
  return summary;
}

}  // namespace servesim
