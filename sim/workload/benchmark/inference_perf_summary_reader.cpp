// inference-perf's aggregate reports (inference_perf/reportgen/base.py, summarize_requests):
// summary_lifecycle_metrics.json (every stage's requests together) and, one per stage,
// stage_N_lifecycle_metrics.json, all of one shape:
//   load_summary  count (requests sent, failed ones included); in a stage file also
//                 send_duration, requested_rate, achieved_rate, and concurrency for the
//                 concurrent load type
//   successes     count; latency {request_latency, normalized_time_per_output_token,
//                 time_per_output_token, time_to_first_token, inter_token_latency}, each
//                 {mean, min, max, median, p<P> for report.request_lifecycle.percentiles}
//                 in seconds, or null without values; prompt_tokens {total, ...};
//                 output_tokens {total, ...} (newer releases; output_len's mean before)
// Given any of these files, the stages are the stage files in its folder (in stage order,
// inference_perf_stages.h), or the file itself as one stage when there are none. The load
// type of config.yaml beside them says how sends were spaced (constant: evenly; poisson;
// concurrent: a fixed number in flight). Read: mean, median, p90, p95 and p99 of each
// latency, in ms. The file names no model, so the deployment is not checked.
#include <memory>
#include <string>

#include "sim/workload/benchmark/benchmark_summary.h"
#include "sim/workload/benchmark/inference_perf_stages.h"
#include "sim/workload/benchmark/json_fields.h"

namespace servesim {
namespace {

using json = nlohmann::json;

// successes.latency's figures and the names servesim compares them under.
const std::pair<const char*, const char*> kLatencies[] = {{"time_to_first_token", "ttft"},
                                                          {"time_per_output_token", "tpot"},
                                                          {"inter_token_latency", "itl"},
                                                          {"request_latency", "e2el"},
                                                          {"normalized_time_per_output_token", "ntpot"}};
const std::pair<const char*, double> kStatistics[] = {{"mean", -1}, {"median", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}};

bool recognises_inference_perf_summary(const json& root) {
  return root.is_object() && root.contains("load_summary") && root.contains("successes");
}

SummaryStage read_stage(const JsonDocument& document, const std::string& name) {
  const JsonField root(document);
  SummaryStage stage;
  stage.name = name;
  stage.file = document.path();
  const InferencePerfLoadSummary load = read_inference_perf_load_summary(root.at("load_summary"));
  stage.requests = load.count;
  stage.rate_per_s = load.requested_rate_per_s;
  if (load.concurrency) {
    stage.concurrency = *load.concurrency;
    // The concurrent load type's requested_rate is one inference-perf derives, not one it
    // paced sends at (inference_perf_stages.h).
    stage.rate_per_s.reset();
  }
  const JsonField successes = root.at("successes");
  const JsonField count = successes.at("count");
  stage.completed = count.count(0);
  if (*stage.completed == 0) count.fail("is 0: no request of the stage succeeded, so there is nothing to fit");
  const double completed = static_cast<double>(*stage.completed);
  if (const auto prompt = successes.find("prompt_tokens")) {
    if (const auto total = prompt->find("total")) stage.mean_input_tokens = total->number() / completed;
  }
  if (const auto output = successes.find("output_tokens")) {
    if (const auto total = output->find("total")) stage.mean_output_tokens = total->number() / completed;
  } else if (const auto len = successes.find("output_len")) {
    if (const auto mean = len->find("mean")) stage.mean_output_tokens = mean->number();
  }
  const JsonField latency = successes.at("latency");
  for (const auto& [key, metric] : kLatencies) {
    const auto figures = latency.find(key);
    if (!figures) continue;  // null: no request had the figure (not streamed)
    for (const auto& [statistic, percent] : kStatistics) {
      const auto value = figures->find(statistic);
      if (!value) continue;
      const double seconds = value->number();
      if (seconds < 0) value->fail("must be >= 0 seconds");
      stage.figures.push_back({metric, percent, seconds * 1000, value->path()});
    }
  }
  if (stage.figures.empty()) latency.at("request_latency");  // fails naming the figure every run has
  return stage;
}

BenchmarkSummary read_inference_perf_summary(const JsonDocument& document) {
  BenchmarkSummary summary;
  const std::optional<std::string> load_type = read_inference_perf_load_type(document.path());
  const std::vector<InferencePerfStageFile> files = read_inference_perf_stage_files(document.path());
  for (const InferencePerfStageFile& file : files) {
    summary.stages.push_back(read_stage(*file.document, "stage " + std::to_string(file.stage_id)));
    summary.stages.back().stage_id = file.stage_id;
  }
  if (summary.stages.empty()) summary.stages.push_back(read_stage(document, "run"));
  for (SummaryStage& stage : summary.stages) {
    if (!load_type) continue;
    if (*load_type == "constant") stage.evenly_spaced = true;
    if (*load_type == "poisson") stage.burstiness = 1.0;
  }
  return summary;
}

}  // namespace

BenchmarkSummaryFormat inference_perf_summary_format() { return {"inference-perf", recognises_inference_perf_summary, read_inference_perf_summary,
          "inference-perf's summary_lifecycle_metrics.json or stage_N_lifecycle_metrics.json"}; }

}  // namespace servesim
