// `vllm bench serve --save-result` without --save-detailed (vllm/benchmarks/serve.py,
// benchmark()'s result dict and main()'s result_json): the run's settings, num_prompts
// (requests generated), request_rate (a number, or "inf": all sent at once), burstiness
// (the gamma shape of the gaps), max_concurrency (null: no cap), duration, completed,
// total_input_tokens and total_output_tokens (over the completed requests), and for each
// metric of --percentile-metrics (default ttft,tpot,itl; e2el on request) mean_<m>_ms,
// median_<m>_ms, std_<m>_ms and p<P>_<m>_ms for each P of --metric-percentiles (default
// 99; "p99.9" for a fractional one). Read here: mean, median (p50) and p90 / p95 / p99 of
// ttft, tpot, itl and e2el, whichever the file has; std and other percentiles are left.
// A file with the per-request arrays is read by vllm_bench_format.cpp instead.
#include <string>

#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/benchmark_summary.h"
#include "sim/workload/benchmark/json_fields.h"
#include "sim/workload/benchmark/vllm_bench_vocabulary.h"

namespace servesim {
namespace {

using json = nlohmann::json;

const char* const kVllmBenchMetrics[] = {"ttft", "tpot", "itl", "e2el"};
const double kPercents[] = {90, 95, 99};

bool recognises_summary(const json& root) {
  if (!root.is_object() || !root.contains("request_rate") || !root.contains("completed")) return false;
  if (!root.contains("backend") && !root.contains("endpoint_type") && !root.contains("model_id")) return false;
  for (const char* key : kVllmBenchDetailedArrays) {
    if (root.contains(key)) return false;
  }
  return true;
}

BenchmarkSummary read_summary(const JsonDocument& document) {
  const JsonField root(document);
  BenchmarkSummary summary;
  summary.deployment = vllm_bench_deployment(document);
  SummaryStage stage;
  stage.file = document.path();
  if (const auto n = root.find("num_prompts")) stage.requests = n->count(1);
  const JsonField completed = root.at("completed");
  stage.completed = completed.count(0);
  if (*stage.completed == 0) completed.fail("is 0: no request succeeded, so there is nothing to fit");
  const JsonField rate = root.at("request_rate");
  if (rate.value().is_string()) {
    if (rate.string() != "inf") rate.fail("must be a number > 0 or \"inf\"");
    stage.all_at_once = true;
  } else {
    stage.rate_per_s = rate.positive();
  }
  // Absent before vllm had --burstiness: its arrivals were Poisson, shape 1.
  stage.burstiness = 1.0;
  if (const auto b = root.find("burstiness")) stage.burstiness = b->positive();
  if (const auto c = root.find("max_concurrency")) {
    const std::int64_t users = c->count(1);
    if (users > 1'000'000'000) c->fail("must be at most 1000000000");
    stage.concurrency = static_cast<int>(users);
  }
  const double n_completed = static_cast<double>(*stage.completed);
  if (const auto t = root.find("total_input_tokens")) stage.mean_input_tokens = static_cast<double>(t->count(0)) / n_completed;
  if (const auto t = root.find("total_output_tokens")) stage.mean_output_tokens = static_cast<double>(t->count(0)) / n_completed;
  stage.name = "rate " + (stage.rate_per_s ? rate.value().dump() : std::string("inf"));
  if (stage.concurrency) stage.name += ", max concurrency " + std::to_string(*stage.concurrency);

  for (const char* metric : kVllmBenchMetrics) {
    const auto add = [&](const std::string& key, double percent) {
      const auto value = root.find(key);
      if (!value) return;
      const double ms = value->number();
      if (ms < 0) value->fail("must be >= 0 ms");
      stage.figures.push_back({metric, percent, ms, key});
    };
    add("mean_" + std::string(metric) + "_ms", -1);
    add("median_" + std::string(metric) + "_ms", 50);
    // Appended, not "p" + to_string(...): GCC 12 misreads that insert as an overlapping
    // memcpy (-Wrestrict, GCC bug 105329).
    for (double p : kPercents) {
      add(std::string("p").append(std::to_string(static_cast<int>(p))).append("_").append(metric).append("_ms"), p);
    }
  }
  if (stage.figures.empty()) {
    root.at("mean_ttft_ms");  // fails naming the first figure the tool always writes
  }
  summary.stages.push_back(std::move(stage));
  return summary;
}

}  // namespace

BenchmarkSummaryFormat vllm_bench_summary_format() { return {"vllm-bench", recognises_summary, read_summary,
          "vllm bench serve --save-result without --save-detailed"}; }

}  // namespace servesim
