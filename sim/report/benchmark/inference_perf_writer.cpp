// Placeholder until the inference-perf writer is implemented.
#include "sim/core/errors.h"
#include "sim/report/benchmark/benchmark_writer.h"

namespace servesim {

BenchmarkWriterFormat inference_perf_writer_format() {
  return {"inference-perf", "inference_perf.json", [](const std::string& path) -> std::unique_ptr<BenchmarkWriter> {
            throw ConfigError(path, 0, "bench_format", "inference-perf is not written yet");
          }};
}

}  // namespace servesim
