#pragma once
// A validated scenario: everything a run needs, with every path resolved and every model
// and hardware file loaded. Produced by load_scenario(); consumed by the Simulation.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/core/time.h"
#include "sim/workload/workload_config.h"

namespace servesim {

struct OutputsSpec {
  bool requests_csv = true;
  bool chrome_trace = false;                     // trace.json
  bool timeseries = false;                       // timeseries.csv
  Tick timeseries_interval_ns = 1'000'000'000;   // one row per replica per this much simulated time
  // The run's requests written as these benchmark tools write theirs (vllm, inference-perf,
  // guidellm; sim/report/benchmark/benchmark_writer.h), one file each. `bench_format: vllm`
  // or a list; `servesim run --bench-format` adds to it.
  std::vector<std::string> bench_formats;
  bool html = false;                             // report.html (sim/report/html_report.h)
};

struct Scenario {
  std::string name = "scenario";
  std::string source_file;  // the YAML it came from
  std::uint64_t seed = 0;
  StopSpec stop;
  std::vector<ClassSpec> workload;
  ClusterConfig cluster;
  OutputsSpec outputs;
};

}  // namespace servesim
