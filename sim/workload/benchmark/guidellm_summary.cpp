// A GuideLLM 0.3+ report whose benchmarks do not list every request (no `requests`, or a
// sample of them: sample_requests), read for its aggregates (vllm-project/guidellm:
// benchmark/schemas/metrics.py GenerativeMetrics, schemas/statistics.py
// DistributionSummary): each of benchmarks[] is one stage, with
//   config.strategy        {type_: synchronous | concurrent (streams) | throughput
//                          (max_concurrency) | constant | poisson (rate)}; servesim's own
//                          files add burstiness beside a poisson rate
//   metrics.request_totals {successful, incomplete, errored, total}
//   metrics.<figure>.successful {mean, median, percentiles {p50, p90, p95, p99, ...}} for
//     time_to_first_token_ms, time_per_output_token_ms, inter_token_latency_ms (ms) and
//     request_latency (seconds)
//   metrics.prompt_token_count / output_token_count .successful.total_sum
// args.model (and args.processor, the tokenizer) name the model. A report that lists
// every request is read by guidellm_format.cpp instead.
#include <cstdio>
#include <string>

#include "sim/workload/benchmark/benchmark_summary.h"
#include "sim/workload/benchmark/json_fields.h"
#include "sim/workload/benchmark/guidellm_vocabulary.h"

namespace servesim {
namespace {

using json = nlohmann::json;

// metrics' figures, the names servesim compares them under, and their unit in ms.
struct Metric {
  const char* key;
  const char* metric;
  double to_ms;
};
const Metric kGuidellmMetrics[] = {{"time_to_first_token_ms", "ttft", 1},
                           {"time_per_output_token_ms", "tpot", 1},
                           {"inter_token_latency_ms", "itl", 1},
                           {"request_latency", "e2el", 1000}};
const std::pair<const char*, double> kGuidellmPercentiles[] = {{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}};

// Whether a benchmark lists fewer requests of some status than it counted.
bool lists_fewer(const json& benchmark) {
  const auto requests = benchmark.find("requests");
  if (requests == benchmark.end() || requests->is_null()) return true;
  // find, not operator[]: a const json's operator[] on a missing key is undefined
  // behaviour (an assertion in nlohmann's debug builds).
  const json& metrics = benchmark["metrics"];  // recognises() checked it is an object
  const auto totals_it = metrics.find("request_totals");
  if (!requests->is_object() || totals_it == metrics.end() || !totals_it->is_object()) return false;
  const json& totals = *totals_it;
  for (const char* status : kGuidellmStatuses) {
    const auto listed = requests->find(status);
    const auto counted = totals.find(status);
    if (counted == totals.end() || !counted->is_number()) continue;
    const double n = listed == requests->end() || !listed->is_array() ? 0 : static_cast<double>(listed->size());
    if (n < counted->get<double>()) return true;
  }
  return false;
}

bool recognises(const json& root) {
  if (!root.is_object() || !root.contains("benchmarks") || !root["benchmarks"].is_array()) return false;
  const json& benchmarks = root["benchmarks"];
  if (benchmarks.empty()) return false;
  for (const json& b : benchmarks) {
    if (!b.is_object() || !b.contains("metrics") || !b["metrics"].is_object() || !b.contains("config")) return false;
  }
  for (const json& b : benchmarks) {
    if (lists_fewer(b)) return true;
  }
  return false;
}

void read_strategy(const JsonField& strategy, SummaryStage& stage) {
  const JsonField type_field = strategy.at("type_");
  const std::string type = type_field.string();
  stage.name = type;
  const auto users = [](const JsonField& f) {
    const std::int64_t n = f.count(1);
    if (n > 1'000'000'000) f.fail("is more than 1e9 requests in flight");
    return static_cast<int>(n);
  };
  if (type == "synchronous") {
    stage.concurrency = 1;
  } else if (type == "concurrent") {
    stage.concurrency = users(strategy.at("streams"));
    stage.name = "concurrent@" + std::to_string(*stage.concurrency);
  } else if (type == "throughput") {
    stage.all_at_once = true;
    if (const auto cap = strategy.find("max_concurrency")) stage.concurrency = users(*cap);
  } else if (type == "constant" || type == "poisson") {
    stage.rate_per_s = strategy.at("rate").positive();
    stage.name = type + "@" + guidellm_rate_text(*stage.rate_per_s);
    if (type == "constant") {
      stage.evenly_spaced = true;
    } else {
      stage.burstiness = 1.0;
      if (const auto shape = strategy.find("burstiness")) stage.burstiness = shape->positive();
    }
  } else {
    type_field.fail("unknown strategy '" + type + "' (valid: synchronous, concurrent, throughput, constant, poisson)");
  }
}

SummaryStage read_stage(const JsonField& benchmark, const std::string& path) {
  SummaryStage stage;
  stage.file = path;
  read_strategy(benchmark.at("config").at("strategy"), stage);
  const JsonField metrics = benchmark.at("metrics");
  const JsonField totals = metrics.at("request_totals");
  stage.requests = totals.at("total").count(0);
  const JsonField successful = totals.at("successful");
  stage.completed = successful.count(0);
  if (*stage.completed == 0) successful.fail("is 0: no request of the benchmark succeeded, so there is nothing to fit");
  const double completed = static_cast<double>(*stage.completed);
  const auto tokens = [&](const char* key) -> std::optional<double> {
    const auto m = metrics.find(key);
    if (!m) return std::nullopt;
    const auto ok = m->find("successful");
    if (!ok) return std::nullopt;
    const auto sum = ok->find("total_sum");
    if (!sum) return std::nullopt;
    return sum->number() / completed;
  };
  stage.mean_input_tokens = tokens("prompt_token_count");
  stage.mean_output_tokens = tokens("output_token_count");
  for (const Metric& m : kGuidellmMetrics) {
    const auto figure = metrics.find(m.key);
    if (!figure) continue;
    const auto ok = figure->find("successful");
    if (!ok) continue;
    const auto add = [&](const JsonField& value, double percent) {
      const double x = value.number();
      if (x < 0) value.fail("must be >= 0");
      stage.figures.push_back({m.metric, percent, x * m.to_ms, value.path()});
    };
    if (const auto mean = ok->find("mean")) add(*mean, -1);
    if (const auto percentiles = ok->find("percentiles")) {
      for (const auto& [key, percent] : kGuidellmPercentiles) {
        if (const auto value = percentiles->find(key)) add(*value, percent);
      }
    }
  }
  if (stage.figures.empty()) metrics.at("request_latency");  // fails naming the figure every run has
  return stage;
}

BenchmarkSummary read(const JsonDocument& document) {
  const JsonField root(document);
  BenchmarkSummary summary;
  if (const auto args = root.find("args")) {
    if (const auto processor = args->find("processor"); processor && processor->value().is_string()) {
      summary.deployment.tokenizer = processor->string();
      summary.deployment.tokenizer_key = "args.processor";
    }
    if (const auto model = args->find("model"); model && model->value().is_string()) {
      summary.deployment.model = model->string();
      summary.deployment.model_key = "args.model";
      if (summary.deployment.tokenizer.empty()) summary.deployment.tokenizer = summary.deployment.model;
    }
  }
  const JsonField benchmarks = root.at("benchmarks");
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    summary.stages.push_back(read_stage(benchmarks.at(i), document.path()));
  }
  return summary;
}

}  // namespace

BenchmarkSummaryFormat guidellm_summary_format() { return {"guidellm", recognises, read,
          "a GuideLLM report without its requests (or with a sample of them)"}; }

}  // namespace servesim
