// The registry of benchmark formats and the auto-detecting reader.
#include "sim/workload/benchmark/benchmark_reader.h"

#include "sim/core/errors.h"

namespace servesim {

const std::vector<BenchmarkFormat>& benchmark_formats() {
  static const std::vector<BenchmarkFormat> formats = {
      vllm_bench_format(),
      inference_perf_format(),
      guidellm_format(),
  };
  return formats;
}

BenchmarkRun read_benchmark(const std::string& path, const std::string& format) {
  std::string names;
  for (const BenchmarkFormat& f : benchmark_formats()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  const BenchmarkFormat* chosen = nullptr;
  if (format != "auto") {
    for (const BenchmarkFormat& f : benchmark_formats()) {
      if (format == f.name) chosen = &f;
    }
    if (chosen == nullptr) {
      throw ConfigError(path, 0, "format", "unknown benchmark format '" + format + "' (valid: auto, " + names + ")");
    }
  }
  const JsonDocument document(path);
  if (chosen == nullptr) {
    for (const BenchmarkFormat& f : benchmark_formats()) {
      if (f.recognises(document.root())) {
        chosen = &f;
        break;
      }
    }
    if (chosen == nullptr) {
      throw ConfigError(path, 0, "format",
                        "not the results of a benchmark tool servesim reads (" + names +
                            "); name the format if the file is one of them");
    }
  }
  BenchmarkRun run = chosen->read(document);
  run.format = chosen->name;
  run.path = path;
  if (run.stages.empty()) run.stages.push_back(BenchmarkStage{"run", std::nullopt, 1.0, std::nullopt, std::nullopt});
  return run;
}

}  // namespace servesim
