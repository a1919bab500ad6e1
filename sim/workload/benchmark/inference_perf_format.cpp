// Placeholder until the inference-perf schema is implemented: recognises nothing.
#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace servesim {

BenchmarkFormat inference_perf_format() {
  return {"inference-perf", [](const nlohmann::json&) { return false; },
          [](const JsonDocument& d) -> BenchmarkRun { throw ConfigError(d.path(), 0, "format", "inference-perf is not read yet"); }};
}

}  // namespace servesim
