#pragma once
// What an inference-perf run says about its stages, from the files it writes into the same
// report folder as per_request_lifecycle_metrics.json (inference_perf/reportgen/base.py):
//   - stage_N_lifecycle_metrics.json, one per stage that sent requests, whose load_summary
//     holds count (requests of the stage, failed ones included), send_duration (seconds
//     from its first send to its last), requested_rate (the stage's rate; for the
//     concurrent load type a rate inference-perf derives) and concurrency (concurrent
//     load type only);
//   - config.yaml, the run's configuration, whose load.type (constant, the default;
//     poisson; concurrent; trace_replay; trace_session_replay) says how sends were spaced.
// The per-request entries carry no stage id; stages run one after another, each waiting
// for its requests to finish, so the stages are consecutive runs of the requests in send
// order, of the lengths the stage files give.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/benchmark/json_document.h"
#include "sim/workload/benchmark/json_fields.h"

namespace servesim {

// A stage file's load_summary: count (>= 1), requested_rate (> 0), concurrency (1 .. 1e9),
// send_duration (>= 0), each optional but count. Throws ConfigError naming a bad key.
struct InferencePerfLoadSummary {
  std::int64_t count = 0;
  std::optional<double> requested_rate_per_s;
  std::optional<int> concurrency;
  std::optional<double> send_duration_s;
};
InferencePerfLoadSummary read_inference_perf_load_summary(const JsonField& load_summary);

struct InferencePerfStageFile {
  int stage_id = 0;  // N of stage_N_lifecycle_metrics.json
  std::shared_ptr<const JsonDocument> document;
  std::int64_t count = 0;
  std::optional<double> requested_rate_per_s;
  std::optional<int> concurrency;
  std::optional<double> send_duration_s;
};

// The stage files in the folder of `per_request_path`, by stage id; none if there are none.
// Throws ConfigError naming a stage file whose load_summary is missing or malformed.
std::vector<InferencePerfStageFile> read_inference_perf_stage_files(const std::string& per_request_path);

// load.type of the config.yaml in the folder of `per_request_path` ("constant" when the
// file has no load.type, as inference-perf defaults); nothing if there is no config.yaml.
// Throws ConfigError(config.yaml, line, "load.type", ...) for an unknown type.
std::optional<std::string> read_inference_perf_load_type(const std::string& per_request_path);

}  // namespace servesim
