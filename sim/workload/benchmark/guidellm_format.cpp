// GuideLLM's report, `guidellm benchmark --output-path report.json` (GenerativeBenchmarks
// Report: one JSON object, written by json.dumps on one line). Two schemas are read:
//
// GuideLLM 0.3 and later (vllm-project/guidellm: schemas/request_stats.py, schemas/info.py,
// benchmark/schemas/generative/benchmark.py, scheduler/strategies.py):
//   args.model, args.random_seed
//   benchmarks[]: config.strategy {type_, rate, streams, max_concurrency},
//     start_time, end_time, duration (seconds), metrics.request_totals {successful,
//     incomplete, errored}, requests {successful, incomplete, errored}: lists of
//     GenerativeRequestStats:
//       info.timings: request_start, request_end (resolve_start / resolve_end when the
//         backend did not set them), first_token_iteration / last_token_iteration
//         (first_iteration / last_iteration in 0.3.0): Unix timestamps in seconds
//       info.error: the error text of an errored request
//       prompt_tokens, output_tokens (computed from input_metrics / output_metrics, null
//         when 0 or unknown; input_metrics.text_tokens / output_metrics.text_tokens then)
// GuideLLM 0.2 (neuralmagic/guidellm: benchmark/benchmark.py):
//   benchmarks[]: args.strategy, worker.backend_model, start_time, end_time, total_count
//     {successful, incomplete, errored}, requests {...}: start_time, end_time,
//     first_token_time, last_token_time (Unix seconds), prompt_tokens, output_tokens, error
//
// Each benchmark is one stage: synchronous = 1 request in flight; concurrent@N = N;
// throughput = all at once (at most max_concurrency in flight where the file has one);
// constant / poisson = the rate (constant: evenly spaced, burstiness infinite). Requests
// are in send order within their benchmark, start_ns from the earliest send in the file.
// Errored and incomplete requests (those still running when the benchmark ended) are read
// as failed, never dropped; a request that never started has no start_ns. GuideLLM can
// keep only a sample of the requests (sample_requests); such a file is refused, as a
// replay of a sample would not load the server as the benchmark did.
#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/json_fields.h"
#include "sim/workload/benchmark/guidellm_vocabulary.h"
#include "sim/core/text.h"

namespace servesim {
namespace {

using json = nlohmann::json;

struct Request {
  std::optional<double> start_s;
  BenchmarkRequest request;
};

// GuideLLM's own names for its strategies ("constant@5.00", "concurrent@8").
BenchmarkStage stage_of(const JsonField& strategy) {
  const JsonField type_field = strategy.at("type_");
  const std::string type = type_field.string();
  BenchmarkStage stage;
  stage.name = type;
  if (const auto cap = strategy.find("max_concurrency")) {
    const std::int64_t n = cap->count(1);
    if (n > 1'000'000'000) cap->fail("is more than 1e9 requests in flight");
    stage.max_concurrency = static_cast<int>(n);
  }
  if (type == "synchronous") {
    stage.max_concurrency = 1;
  } else if (type == "concurrent") {
    const JsonField streams = strategy.at("streams");
    const std::int64_t n = streams.count(1);
    if (n > 1'000'000'000) streams.fail("is more than 1e9 streams");
    stage.max_concurrency = static_cast<int>(n);
    stage.name = "concurrent@" + std::to_string(n);
  } else if (type == "constant" || type == "poisson") {
    stage.rate_per_s = strategy.at("rate").positive();
    stage.name = type + "@" + guidellm_rate_text(*stage.rate_per_s);
    if (type == "constant") {
      stage.burstiness = std::numeric_limits<double>::infinity();
    } else if (const auto shape = strategy.find("burstiness")) {
      stage.burstiness = shape->positive();  // servesim's own key: the gamma shape of its gaps
    }
  } else if (type != "throughput") {
    type_field.fail("unknown strategy '" + type + "' (valid: synchronous, concurrent, throughput, constant, poisson)");
  }
  return stage;
}

// The first of `keys` present in `parent` (a time in seconds), with the field it came from.
std::optional<std::pair<double, JsonField>> time_of(const JsonField& parent, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (const auto f = parent.find(key)) return std::make_pair(f->seconds(), *f);
  }
  return std::nullopt;
}

// A token count: `key` in `q`, or else "text_tokens" under `fallback_object`. A successful
// request must have one, of at least `lowest_if_required`; a failed one without any has 0.
std::int64_t tokens_of(const JsonField& q, const char* key, const char* fallback_object, bool required,
                       std::int64_t lowest_if_required = 0) {
  std::optional<JsonField> field = q.find(key);
  if (!field && fallback_object != nullptr) {
    if (const auto metrics = q.find(fallback_object)) field = metrics->find("text_tokens");
  }
  if (!field) {
    if (required) q.at(key);  // fails: missing
    return 0;
  }
  const std::int64_t n = field->count();
  if (required && n < lowest_if_required) {
    field->fail("is " + std::to_string(n) + " for a request that succeeded: a replayed request needs at least " +
                std::to_string(lowest_if_required) + " of these tokens");
  }
  return n;
}

// Reads one request of either schema: `timings` holds its times, `q` its tokens.
Request read_request(const JsonField& q, bool new_schema, const std::string& status) {
  q.expect_object();
  const bool succeeded = status == "successful";
  Request out;
  BenchmarkRequest& r = out.request;
  r.succeeded = succeeded;

  const std::optional<JsonField> info = new_schema ? std::optional<JsonField>(q.at("info")) : std::nullopt;
  const JsonField timings = new_schema ? info->at("timings") : q;
  const auto start = new_schema ? time_of(timings, {"request_start", "resolve_start"}) : time_of(timings, {"start_time"});
  const auto end = new_schema ? time_of(timings, {"request_end", "resolve_end"}) : time_of(timings, {"end_time"});
  const auto first = new_schema ? time_of(timings, {"first_token_iteration", "first_iteration"})
                                : time_of(timings, {"first_token_time"});
  const auto last = new_schema ? time_of(timings, {"last_token_iteration", "last_iteration"})
                               : time_of(timings, {"last_token_time"});
  if (succeeded || !new_schema) {
    if (!start) timings.at(new_schema ? "request_start" : "start_time");  // fails: missing
    if (!end) timings.at(new_schema ? "request_end" : "end_time");
  }
  if (start && end && end->first < start->first) end->second.fail("is before the request's start (" + exact_number_text(start->first) + ")");
  if (first && start && first->first < start->first) first->second.fail("is before the request's start (" + exact_number_text(start->first) + ")");
  if (first && end && first->first > end->first) first->second.fail("is after the request's end (" + exact_number_text(end->first) + ")");
  if (last && first && last->first < first->first) last->second.fail("is before the first token (" + exact_number_text(first->first) + ")");
  if (last && end && last->first > end->first) last->second.fail("is after the request's end (" + exact_number_text(end->first) + ")");

  // A successful request was sent a prompt; one of 0 tokens cannot be replayed (every
  // simulated request prefills at least one token; inference-perf and vllm-bench refuse it too).
  r.prompt_tokens = tokens_of(q, "prompt_tokens", new_schema ? "input_metrics" : nullptr, succeeded, 1);
  r.output_tokens = tokens_of(q, "output_tokens", new_schema ? "output_metrics" : nullptr, succeeded);
  if (start) out.start_s = start->first;
  if (succeeded) {
    r.e2el_ns = ns_between(start->first, end->first);
    if (first) r.ttft_ns = ns_between(start->first, first->first);
    return out;
  }
  const auto error = new_schema ? info->find("error") : q.find("error");
  const std::string text = error ? error->string() : "";
  if (status == "incomplete") {
    r.error = "incomplete: the benchmark ended before it finished" + (text.empty() ? "" : ": " + text);
  } else {
    r.error = text.empty() ? "errored (GuideLLM recorded no error text)" : text;
  }
  return out;
}

// A file that kept a sample of a benchmark's requests: fewer listed than it counted.
void refuse_samples(const JsonField& benchmark, const JsonField& requests, bool new_schema) {
  std::optional<JsonField> totals;
  if (new_schema) {
    if (const auto metrics = benchmark.find("metrics")) totals = metrics->find("request_totals");
  } else {
    totals = benchmark.find("total_count");
  }
  if (!totals) return;
  for (const char* status : kGuidellmStatuses) {
    const auto total = totals->find(status);
    if (!total) continue;
    const std::int64_t made = total->count();
    const JsonField listed = requests.at(status);
    if (static_cast<std::int64_t>(listed.size()) < made) {
      listed.fail("lists " + std::to_string(listed.size()) + " of the " + std::to_string(made) + " " + status +
                  " requests of the benchmark: GuideLLM kept a sample (sample_requests); a replay needs every "
                  "request, so run GuideLLM without request sampling");
    }
  }
}

void read_benchmark_entry(const JsonField& benchmark, BenchmarkRun& run, std::vector<std::vector<Request>>& by_stage) {
  benchmark.expect_object();
  const bool new_schema = benchmark.find("config").has_value();
  if (!new_schema && !benchmark.find("args")) {
    benchmark.fail("has neither config (GuideLLM 0.3 and later) nor args (GuideLLM 0.2)");
  }
  BenchmarkStage stage = stage_of(new_schema ? benchmark.at("config").at("strategy") : benchmark.at("args").at("strategy"));
  const JsonField requests = benchmark.at("requests");
  refuse_samples(benchmark, requests, new_schema);
  std::vector<Request> listed;
  for (const char* status : kGuidellmStatuses) {
    const JsonField list = requests.at(status);
    for (std::size_t i = 0; i < list.size(); ++i) listed.push_back(read_request(list.at(i), new_schema, status));
  }
  if (const auto duration = benchmark.find("duration")) {
    stage.duration_s = duration->number();
    if (*stage.duration_s < 0) duration->fail("must be >= 0");
  } else if (const auto start = benchmark.find("start_time")) {
    const double start_s = start->seconds();
    const JsonField end = benchmark.at("end_time");
    const double end_s = end.seconds();
    if (end_s < start_s) end.fail("is before start_time (" + exact_number_text(start_s) + ")");
    stage.duration_s = end_s - start_s;
  }
  run.stages.push_back(stage);
  by_stage.push_back(std::move(listed));
}

// The model the run was pointed at, and the field that named it.
void read_model(const JsonField& root, BenchmarkRun& run) {
  if (const auto args = root.find("args")) {
    if (args->value().is_object()) {
      // GuideLLM counts tokens with its `processor` (a tokenizer id or path; args.model's when absent).
      if (const auto processor = args->find("processor"); processor && processor->value().is_string()) {
        run.tokenizer = processor->string();
        run.tokenizer_key = "args.processor";
      }
      if (const auto model = args->find("model"); model && model->value().is_string()) {
        run.model = model->string();
        run.model_key = "args.model";
        return;
      }
    }
  }
  const JsonField benchmarks = root.at("benchmarks");
  if (benchmarks.size() > 0 && benchmarks.at(0).value().is_object()) {
    if (const auto worker = benchmarks.at(0).find("worker"); worker && worker->value().is_object()) {
      if (const auto model = worker->find("backend_model"); model && model->value().is_string()) {
        run.model = model->string();
        run.model_key = "benchmarks[0].worker.backend_model";
      }
    }
  }
}

BenchmarkRun read_guidellm(const JsonDocument& document) {
  const JsonField root(document);
  root.expect_object();
  const JsonField benchmarks = root.at("benchmarks");
  if (benchmarks.size() == 0) benchmarks.fail("holds no benchmarks");
  BenchmarkRun run;
  read_model(root, run);
  if (const auto args = root.find("args"); args && args->value().is_object()) {
    if (const auto seed = args->find("random_seed")) run.seed = static_cast<std::uint64_t>(seed->count());
  }
  std::vector<std::vector<Request>> by_stage;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) read_benchmark_entry(benchmarks.at(i), run, by_stage);

  std::optional<double> first_s;
  for (const auto& stage : by_stage) {
    for (const Request& q : stage) {
      if (q.start_s && (!first_s || *q.start_s < *first_s)) first_s = q.start_s;
    }
  }
  if (!first_s) benchmarks.fail("no request has a start time");
  for (std::size_t s = 0; s < by_stage.size(); ++s) {
    std::vector<Request>& listed = by_stage[s];
    // Send order; requests that never started come last, in file order.
    std::stable_sort(listed.begin(), listed.end(), [](const Request& a, const Request& b) {
      if (a.start_s.has_value() != b.start_s.has_value()) return a.start_s.has_value();
      return a.start_s && *a.start_s < *b.start_s;
    });
    for (Request& q : listed) {
      if (q.start_s) q.request.start_ns = ns_between(*first_s, *q.start_s);
      q.request.stage = static_cast<int>(s);
      run.requests.push_back(std::move(q.request));
    }
  }
  return run;
}

bool recognises_guidellm(const json& root) { return root.is_object() && root.contains("benchmarks"); }

}  // namespace

BenchmarkFormat guidellm_format() { return {"guidellm", recognises_guidellm, read_guidellm, "GuideLLM's report (guidellm benchmark --output-path report.json)"};
}

}  // namespace servesim
