// The registry of benchmark writers.
#include "sim/report/benchmark/benchmark_writer.h"

namespace servesim {

const std::vector<BenchmarkWriterFormat>& benchmark_writer_formats() {
  static const std::vector<BenchmarkWriterFormat> formats = {
      vllm_bench_writer_format(),
      inference_perf_writer_format(),
      guidellm_writer_format(),
  };
  return formats;
}

const BenchmarkWriterFormat* find_benchmark_writer(const std::string& name) {
  for (const BenchmarkWriterFormat& f : benchmark_writer_formats()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace servesim
