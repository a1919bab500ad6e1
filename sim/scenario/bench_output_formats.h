#pragma once
// The benchmark tools whose result schema a run can also be written in (`outputs.bench_format`,
// `run --bench-format`), as the scenario layer validates them. The writers themselves are the
// report layer's (sim/report/benchmark/benchmark_writer.h), registered under these names;
// tests/report/bench_output_formats_test.cpp keeps the two lists equal.
#include <string>
#include <vector>

namespace servesim {

inline const std::vector<std::string>& bench_output_format_names() {
  static const std::vector<std::string> names = {"vllm", "inference-perf", "guidellm"};
  return names;
}

}  // namespace servesim
