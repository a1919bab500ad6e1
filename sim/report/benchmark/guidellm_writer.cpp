// Placeholder until the guidellm writer is implemented.
#include "sim/core/errors.h"
#include "sim/report/benchmark/benchmark_writer.h"

namespace servesim {

BenchmarkWriterFormat guidellm_writer_format() {
  return {"guidellm", "guidellm.json", [](const std::string& path) -> std::unique_ptr<BenchmarkWriter> {
            throw ConfigError(path, 0, "bench_format", "guidellm is not written yet");
          }};
}

}  // namespace servesim
