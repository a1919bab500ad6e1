// Placeholder until the vllm writer is implemented.
#include "sim/core/errors.h"
#include "sim/report/benchmark/benchmark_writer.h"

namespace servesim {

BenchmarkWriterFormat vllm_bench_writer_format() {
  return {"vllm", "vllm_bench.json", [](const std::string& path) -> std::unique_ptr<BenchmarkWriter> {
            throw ConfigError(path, 0, "bench_format", "vllm is not written yet");
          }};
}

}  // namespace servesim
