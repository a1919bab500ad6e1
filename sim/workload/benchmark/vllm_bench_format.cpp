// Placeholder until the vllm-bench schema is implemented: recognises nothing.
#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace servesim {

BenchmarkFormat vllm_bench_format() {
  return {"vllm-bench", [](const nlohmann::json&) { return false; },
          [](const JsonDocument& d) -> BenchmarkRun { throw ConfigError(d.path(), 0, "format", "vllm-bench is not read yet"); }};
}

}  // namespace servesim
