#pragma once
// Writing a simulated run's per-request results as a real benchmark tool writes its own
// (vllm bench serve --save-detailed, inference-perf, GuideLLM), so a simulated and a real
// run diff with the same scripts, and `servesim replay` reads servesim's own output.
//
// servesim keeps no per-token times, so the per-token lists these schemas hold (vLLM's
// itls, inference-perf's token times) are each request's decode time spread evenly over
// its gaps: sums, means and TPOT are exact; the spread of one request's gaps is not.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/metrics/request_record.h"

namespace servesim {

// What the run was, for the schema's header fields.
struct BenchmarkRunInfo {
  std::string scenario_name;
  std::string model;               // the first pool's model name
  std::uint64_t seed = 0;
  Tick duration_ns = 0;            // the run's simulated span
  std::optional<double> request_rate_per_s;  // single open-loop class: its rate
  double burstiness = 1.0;         // gamma shape 1/cv^2 of that class (1: Poisson)
  std::optional<int> max_concurrency;        // single closed-loop class: its users
};

class BenchmarkWriter {
 public:
  virtual ~BenchmarkWriter() = default;
  // Every request of the run, whatever its outcome, in the order they leave the system.
  virtual void add(const RequestRecord& record) = 0;
  // Writes the file (atomically). Throws ConfigError naming the path if it cannot.
  virtual void finish(const BenchmarkRunInfo& info) = 0;
};

// A writer whose file needs every request before it can be written (its header holds
// figures over the run): it keeps the records until finish().
class RecordingBenchmarkWriter : public BenchmarkWriter {
 public:
  explicit RecordingBenchmarkWriter(std::string path) : path_(std::move(path)) {}
  void add(const RequestRecord& record) override { records_.push_back(record); }

 protected:
  std::string path_;
  std::vector<RequestRecord> records_;  // in the order they left the system
};

struct BenchmarkWriterFormat {
  const char* name;           // vllm | inference-perf | guidellm (the --bench-format values)
  const char* file_name;      // written into the run's output folder
  std::unique_ptr<BenchmarkWriter> (*make)(const std::string& path);
};

// The format whose writer is a `Writer` made from the file's path.
template <typename Writer>
BenchmarkWriterFormat benchmark_writer_format_of(const char* name, const char* file_name) {
  return {name, file_name,
          [](const std::string& path) -> std::unique_ptr<BenchmarkWriter> { return std::make_unique<Writer>(path); }};
}

// Every registered writer (registered in benchmark_writer.cpp, one file per tool).
const std::vector<BenchmarkWriterFormat>& benchmark_writer_formats();
// The writer named `name`, or nullptr.
const BenchmarkWriterFormat* find_benchmark_writer(const std::string& name);

BenchmarkWriterFormat vllm_bench_writer_format();
BenchmarkWriterFormat inference_perf_writer_format();
BenchmarkWriterFormat guidellm_writer_format();

}  // namespace servesim
