// Placeholder until the guidellm schema is implemented: recognises nothing.
#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace servesim {

BenchmarkFormat guidellm_format() {
  return {"guidellm", [](const nlohmann::json&) { return false; },
          [](const JsonDocument& d) -> BenchmarkRun { throw ConfigError(d.path(), 0, "format", "guidellm is not read yet"); }};
}

}  // namespace servesim
