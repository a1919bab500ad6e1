#pragma once
// inference-perf's figures for a set of requests, computed as inference_perf/reportgen/
// base.py computes them (summarize_requests, compute_request_latency_metrics):
//   - summarize(): mean, min, max and the percentiles 0.1, 1, 5, 10, 25, 50 (as "median"),
//     75, 90, 95, 99, 99.9 (the tool's default list) by numpy's linear interpolation; null
//     for no values;
//   - per successful request: request_latency = end - start; normalized_time_per_output_
//     token = latency / output tokens (0 without output); with two or more token times,
//     time_to_first_token = first - start, time_per_output_token = (last - first) /
//     (output - 1) and the gaps between token times;
//   - a stage's summary (stage_N_lifecycle_metrics.json): benchmark_time_seconds (last end
//     - first start), load_summary (count, schedule_delay, and with a rate send_duration,
//     requested_rate, achieved_rate, concurrency), successes (count, latency, throughput
//     over benchmark_time_seconds, prompt_tokens with the cached share, output_len,
//     output_tokens) and failures (count, request_latency, prompt_tokens, by_label).
// Media, request sizes, goodput and retries, which servesim has no figures for, are left
// out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace servesim {

// One request as inference-perf records it; times in seconds.
struct InferencePerfRequest {
  double start_s = 0;
  double end_s = 0;
  double scheduled_s = 0;           // when the load generator meant to send it
  bool failed = false;
  std::string error_type;           // failed only
  std::string error_msg;
  std::int64_t prompt_tokens = 0;
  std::int64_t cached_prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  std::vector<double> token_times_s;
};

nlohmann::ordered_json inference_perf_summarize(std::vector<double> values);

// The entry's computed_metrics (successful requests).
nlohmann::ordered_json inference_perf_computed_metrics(const InferencePerfRequest& request);

// A stage's summary; `rate_per_s` / `concurrency` as the stage was configured.
nlohmann::ordered_json inference_perf_stage_summary(const std::vector<InferencePerfRequest>& requests,
                                                    std::optional<double> rate_per_s,
                                                    std::optional<int> concurrency);

}  // namespace servesim
