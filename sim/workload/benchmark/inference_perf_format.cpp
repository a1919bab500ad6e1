// inference-perf's per-request report, per_request_lifecycle_metrics.json, written when
// report.request_lifecycle.per_request is on (inference_perf/reportgen/base.py). One JSON
// array (json.dumps, indent 2), one entry per request of every stage (the preprocessing
// sweep excluded), in the order the requests finished:
//   start_time, end_time  the client's time.perf_counter() at the send and after the whole
//                         response was read, seconds (an arbitrary origin per run)
//   request, response     the body sent and the text received (strings; may be left out)
//   info                  what the request asked for and the server returned, one of:
//     flat (early releases):  input_tokens, output_tokens, output_token_times
//     nested (0.5):           request_metrics.text.input_tokens;
//                             response_metrics (null when it failed before a response):
//                             output_tokens (the client's count of the text),
//                             server_usage (the server's usage: completion_tokens, or
//                             output_tokens for the Anthropic API), output_token_times;
//                             input_tokens (a copy of request_metrics.text.input_tokens)
//     output_token_times are perf_counter readings, one per streamed chunk (per token
//     once re-tokenized), empty when not streaming
//   computed_metrics      the tool's own latencies per successful request (newer only)
//   error                 null, or {error_type, error_msg} for a failed request
// The stages and their rates are in files beside this one (inference_perf_stages.h).
//
// Read as: start_ns from the earliest start_time; e2el = end - start; ttft = first token
// time - start; itl = the gaps between token times; output tokens are the server's count
// where it gave one (what it generated), the client's otherwise. A failed request keeps
// the tokens its entry records (0 where none) and its error as "error_type: error_msg".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/inference_perf_stages.h"
#include "sim/workload/benchmark/json_fields.h"
#include "sim/core/text.h"

namespace servesim {
namespace {

using json = nlohmann::json;

struct Entry {
  std::size_t index = 0;  // position in the file
  double start_s = 0;
  double end_s = 0;
  BenchmarkRequest request;  // all but start_ns and stage
};

// The token times: each within [start, end] and none before the one before it.
std::vector<double> token_times(const JsonField& times, double start_s, double end_s) {
  std::vector<double> out;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const JsonField t = times.at(i);
    const double s = t.seconds();
    if (s < start_s) t.fail("is before start_time (" + exact_number_text(start_s) + ")");
    if (s > end_s) t.fail("is after end_time (" + exact_number_text(end_s) + ")");
    if (!out.empty() && s < out.back()) t.fail("is before the token time before it (" + exact_number_text(out.back()) + ")");
    out.push_back(s);
  }
  return out;
}

// The server's output token count from its usage, if it reported one.
std::optional<std::int64_t> server_output_tokens(const JsonField& response_metrics) {
  const auto usage = response_metrics.find("server_usage");
  if (!usage) return std::nullopt;
  for (const char* key : {"completion_tokens", "output_tokens"}) {
    if (const auto n = usage->find(key)) return n->count();
  }
  return std::nullopt;
}

// Tokens and token times from `info`. A successful request must have them all; a failed
// one keeps what its entry has.
void read_info(const JsonField& info, bool succeeded, double start_s, double end_s, BenchmarkRequest& r,
               std::vector<double>& times_s) {
  info.expect_object();
  const auto optional_count = [&](const JsonField& parent, const char* key) -> std::int64_t {
    if (succeeded) return parent.at(key).count();
    const auto v = parent.find(key);
    return v ? v->count() : 0;
  };
  // A request that succeeded was sent a prompt: one of 0 tokens cannot be replayed (every
  // simulated request prefills at least one token), so it is refused at its field.
  const auto prompt_count = [&](const JsonField& parent) -> std::int64_t {
    const std::int64_t n = optional_count(parent, "input_tokens");
    if (succeeded && n < 1) parent.at("input_tokens").fail("is 0 for a request that succeeded: a replayed request needs at least 1 prompt token");
    return n;
  };
  if (const auto request_metrics = info.find("request_metrics")) {
    const auto text = succeeded ? std::optional<JsonField>(request_metrics->at("text")) : request_metrics->find("text");
    r.prompt_tokens = text ? prompt_count(*text) : 0;
    const auto response = succeeded ? std::optional<JsonField>(info.at("response_metrics")) : info.find("response_metrics");
    if (!response) return;
    response->expect_object();
    const auto server = server_output_tokens(*response);
    r.output_tokens = server ? *server : optional_count(*response, "output_tokens");
    if (const auto times = response->find("output_token_times")) times_s = token_times(*times, start_s, end_s);
    return;
  }
  r.prompt_tokens = prompt_count(info);
  r.output_tokens = optional_count(info, "output_tokens");
  if (const auto times = info.find("output_token_times")) times_s = token_times(*times, start_s, end_s);
}

Entry read_entry(const JsonField& e, std::size_t index) {
  e.expect_object();
  Entry entry;
  entry.index = index;
  entry.start_s = e.at("start_time").seconds();
  const JsonField end = e.at("end_time");
  entry.end_s = end.seconds();
  if (entry.end_s < entry.start_s) end.fail("is before start_time (" + exact_number_text(entry.start_s) + ")");
  BenchmarkRequest& r = entry.request;
  if (const auto error = e.find("error")) {
    error->expect_object();
    r.succeeded = false;
    const std::string type = error->at("error_type").string();
    const auto message = error->find("error_msg");
    const std::string text = message ? message->string() : "";
    r.error = text.empty() ? type : type + ": " + text;
  }
  std::vector<double> times_s;
  if (r.succeeded) {
    read_info(e.at("info"), true, entry.start_s, entry.end_s, r, times_s);
  } else if (const auto info = e.find("info")) {
    read_info(*info, false, entry.start_s, entry.end_s, r, times_s);
  }
  if (!r.succeeded) return entry;  // latencies are for successful requests only
  r.e2el_ns = ns_between(entry.start_s, entry.end_s);
  if (!times_s.empty()) r.ttft_ns = ns_between(entry.start_s, times_s.front());
  for (std::size_t i = 1; i < times_s.size(); ++i) r.itl_ns.push_back(ns_between(times_s[i - 1], times_s[i]));
  return entry;
}

// The model from the first request body that names one (the OpenAI payload's "model").
std::string model_of(const json& root) {
  for (const json& e : root) {
    const auto it = e.find("request");
    if (it == e.end() || !it->is_string()) continue;
    const json body = json::parse(it->get<std::string>(), nullptr, false);
    if (body.is_object() && body.contains("model") && body["model"].is_string()) return body["model"].get<std::string>();
  }
  return "";
}

// Send spacing and rate of a stage under the run's load type (nothing known without a
// config.yaml: the stage keeps the Poisson default).
void apply_load_type(const std::optional<std::string>& load_type, BenchmarkStage& stage) {
  if (!load_type) return;
  if (*load_type == "constant") stage.burstiness = std::numeric_limits<double>::infinity();
  // Trace replays send at the trace's times: no rate describes them.
  if (*load_type == "trace_replay" || *load_type == "trace_session_replay") stage.rate_per_s.reset();
}

double span_s(const std::vector<Entry>& entries, std::size_t first, std::size_t last) {
  double start = entries[first].start_s, end = entries[first].end_s;
  for (std::size_t i = first; i < last; ++i) {
    start = std::min(start, entries[i].start_s);
    end = std::max(end, entries[i].end_s);
  }
  return end - start;
}

void read_stages(const JsonDocument& document, const std::vector<Entry>& entries, BenchmarkRun& run) {
  const std::vector<InferencePerfStageFile> files = read_inference_perf_stage_files(document.path());
  const std::optional<std::string> load_type = read_inference_perf_load_type(document.path());
  if (files.empty()) {
    BenchmarkStage stage;
    stage.name = "run";
    stage.duration_s = span_s(entries, 0, entries.size());
    apply_load_type(load_type, stage);
    run.stages.push_back(stage);
    return;
  }
  std::int64_t total = 0;
  std::string counts;
  for (const InferencePerfStageFile& f : files) {
    total += f.count;
    counts += (counts.empty() ? "" : ", ") + std::string("stage ") + std::to_string(f.stage_id) + ": " + std::to_string(f.count);
  }
  if (total != static_cast<std::int64_t>(entries.size())) {
    JsonField(*files.front().document).at("load_summary").at("count").fail(
        "the stage files beside " + document.path() + " count " + std::to_string(total) + " requests (" + counts +
        ") but it holds " + std::to_string(entries.size()) + ": they are not from the same run");
  }
  std::size_t first = 0;
  for (const InferencePerfStageFile& f : files) {
    const std::size_t last = first + static_cast<std::size_t>(f.count);
    if (f.send_duration_s) {
      // The tool's own span of the stage's sends: a check that the requests were split
      // where the tool split them.
      const double sends_s = entries[last - 1].start_s - entries[first].start_s;
      if (std::fabs(sends_s - *f.send_duration_s) > 1e-6 + 1e-9 * std::fabs(*f.send_duration_s)) {
        JsonField(*f.document).at("load_summary").at("send_duration").fail(
            "the stage's " + std::to_string(f.count) + " requests in send order span " + exact_number_text(sends_s) +
            " s of sends in " + document.path() + ": the stage files are not from the same run");
      }
    }
    BenchmarkStage stage;
    stage.name = "stage " + std::to_string(f.stage_id);
    if (f.concurrency) {
      stage.max_concurrency = f.concurrency;  // its rate is one inference-perf derives
    } else {
      stage.rate_per_s = f.requested_rate_per_s;
    }
    stage.duration_s = span_s(entries, first, last);
    apply_load_type(load_type, stage);
    for (std::size_t i = first; i < last; ++i) run.requests[i].stage = static_cast<int>(run.stages.size());
    run.stages.push_back(stage);
    first = last;
  }
}

BenchmarkRun read_inference_perf(const JsonDocument& document) {
  const JsonField root(document);
  root.expect_array();
  if (root.size() == 0) document.fail(json::json_pointer(), "", "holds no requests");
  std::vector<Entry> entries;
  entries.reserve(root.size());
  for (std::size_t i = 0; i < root.size(); ++i) entries.push_back(read_entry(root.at(i), i));
  // The file lists requests as they finished; a run is in send order.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.start_s < b.start_s; });

  BenchmarkRun run;
  run.model = model_of(document.root());
  if (!run.model.empty()) run.model_key = "request.model";
  const double first_s = entries.front().start_s;
  for (const Entry& e : entries) {
    BenchmarkRequest r = e.request;
    r.start_ns = ns_between(first_s, e.start_s);
    run.requests.push_back(std::move(r));
  }
  read_stages(document, entries, run);
  return run;
}

bool recognises_inference_perf(const json& root) {
  if (!root.is_array() || root.empty() || !root.front().is_object()) return false;
  return root.front().contains("start_time") && root.front().contains("end_time");
}

}  // namespace

BenchmarkFormat inference_perf_format() { return {"inference-perf", recognises_inference_perf, read_inference_perf,
          "inference-perf's per-request lifecycle metrics, with its stage files beside them"};
}

}  // namespace servesim
