// inference-perf's summaries of a set of requests.
#include "sim/report/benchmark/inference_perf_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <utility>

#include "sim/metrics/numpy_stats.h"
#include "sim/core/json_values.h"

namespace servesim {
namespace {

using ordered_json = nlohmann::ordered_json;

// report.request_lifecycle.percentiles' default.
constexpr double kLifecyclePercentiles[] = {0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9};

// Python's f"p{p:g}", "median" for 50.
std::string percentile_key(double p) {
  if (p == 50) return "median";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "p%g", p);
  return buffer;
}

double sum_of(const std::vector<double>& values) {
  double s = 0;
  for (double v : values) s += v;
  return s;
}

// summarize_prompt_token_usage: total, the cached share, and their distribution.
ordered_json prompt_token_usage(const std::vector<const InferencePerfRequest*>& requests) {
  double total = 0, cached = 0;
  std::vector<double> per_request;
  for (const InferencePerfRequest* r : requests) {
    total += static_cast<double>(r->prompt_tokens);
    cached += static_cast<double>(r->cached_prompt_tokens);
    per_request.push_back(static_cast<double>(r->prompt_tokens));
  }
  ordered_json out;
  out["total"] = total;
  out["cached"] = cached;
  out["uncached"] = std::max(total - cached, 0.0);
  if (!per_request.empty()) out.update(inference_perf_summarize(per_request));
  return out;
}

// make_concise_label for an error that is not an HTTP status.
std::string concise_label(const InferencePerfRequest& r) {
  static const std::regex timeout("timeout|timed.?out", std::regex::icase);
  static const std::regex connect("connection.?refused|connect", std::regex::icase);
  if (std::regex_search(r.error_msg, timeout)) return "Timeout";
  if (std::regex_search(r.error_msg, connect)) return "Connection Error";
  std::string label = r.error_type;
  std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) { return std::tolower(c); });
  return label;
}

// build_error_counts: {label: {count, messages: [{message}]}}, most frequent label first.
ordered_json error_counts(const std::vector<const InferencePerfRequest*>& failed) {
  std::vector<std::string> order;  // labels by first occurrence
  std::map<std::string, std::pair<std::int64_t, std::vector<std::string>>> by_label;
  for (const InferencePerfRequest* r : failed) {
    const std::string label = concise_label(*r);
    auto [it, added] = by_label.try_emplace(label);
    if (added) order.push_back(label);
    ++it->second.first;
    auto& messages = it->second.second;
    if (std::find(messages.begin(), messages.end(), r->error_msg) == messages.end() && messages.size() < 100) {
      messages.push_back(r->error_msg);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return by_label[a].first > by_label[b].first; });
  ordered_json out = ordered_json::object();
  for (const std::string& label : order) {
    ordered_json messages = ordered_json::array();
    for (const std::string& m : by_label[label].second) messages.push_back({{"message", m}});
    out[label] = {{"count", by_label[label].first}, {"messages", std::move(messages)}};
  }
  return out;
}

struct Latencies {
  double request_latency_s = 0;
  double ntpot_s = 0;
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::vector<double> itl_s;
};

Latencies latencies_of(const InferencePerfRequest& r) {
  Latencies l;
  l.request_latency_s = r.end_s - r.start_s;
  l.ntpot_s = r.output_tokens > 0 ? l.request_latency_s / static_cast<double>(r.output_tokens) : 0.0;
  const std::vector<double>& t = r.token_times_s;
  if (t.size() > 1) {  // streamed: the tool's test for per-token figures
    l.ttft_s = t.front() - r.start_s;
    if (r.output_tokens > 1) l.tpot_s = (t.back() - t.front()) / static_cast<double>(r.output_tokens - 1);
    for (std::size_t i = 1; i < t.size(); ++i) l.itl_s.push_back(t[i] - t[i - 1]);
  }
  return l;
}


}  // namespace

ordered_json inference_perf_summarize(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  ordered_json out;
  out["mean"] = sum_of(values) / static_cast<double>(values.size());
  out["min"] = values.front();
  out["max"] = values.back();
  for (double p : kLifecyclePercentiles) out[percentile_key(p)] = numpy_percentile(values, p);
  return out;
}

ordered_json inference_perf_computed_metrics(const InferencePerfRequest& r) {
  const Latencies l = latencies_of(r);
  ordered_json gaps = ordered_json::array();
  for (double g : l.itl_s) gaps.push_back(g);
  ordered_json out;
  out["request_latency"] = l.request_latency_s;
  out["normalized_time_per_output_token"] = l.ntpot_s;
  out["time_to_first_token"] = json_number_or_null(l.ttft_s);
  out["time_per_output_token"] = json_number_or_null(l.tpot_s);
  out["inter_token_latency"] = l.itl_s.empty() ? ordered_json(nullptr) : ordered_json(sum_of(l.itl_s) / static_cast<double>(l.itl_s.size()));
  out["inter_token_latencies"] = std::move(gaps);
  out["input_tokens"] = r.prompt_tokens;
  out["output_tokens"] = r.output_tokens;
  out["ttft_slo_sec"] = nullptr;
  out["tpot_slo_sec"] = nullptr;
  return out;
}

ordered_json inference_perf_stage_summary(const std::vector<InferencePerfRequest>& requests,
                                          std::optional<double> rate_per_s, std::optional<int> concurrency) {
  std::vector<const InferencePerfRequest*> ok, failed;
  double first_start = 0, last_start = 0, last_end = 0;
  std::vector<double> schedule_delays;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const InferencePerfRequest& r = requests[i];
    (r.failed ? failed : ok).push_back(&r);
    first_start = i == 0 ? r.start_s : std::min(first_start, r.start_s);
    last_start = i == 0 ? r.start_s : std::max(last_start, r.start_s);
    last_end = i == 0 ? r.end_s : std::max(last_end, r.end_s);
    schedule_delays.push_back(r.start_s - r.scheduled_s);
  }
  const double total_time = last_end - first_start;
  const double send_duration = last_start - first_start;
  const auto per_s = [&](double x) { return total_time > 0 ? x / total_time : 0.0; };

  ordered_json load;
  load["count"] = requests.size();
  load["schedule_delay"] = inference_perf_summarize(schedule_delays);
  if (rate_per_s) {
    load["send_duration"] = send_duration;
    load["requested_rate"] = *rate_per_s;
    load["achieved_rate"] = send_duration > 0 ? static_cast<double>(requests.size()) / send_duration : 0.0;
  }
  if (concurrency) load["concurrency"] = *concurrency;

  std::vector<double> latency, ntpot, ttft, tpot, itl, output_len;
  double input_total = 0, output_total = 0;
  for (const InferencePerfRequest* r : ok) {
    const Latencies l = latencies_of(*r);
    latency.push_back(l.request_latency_s);
    ntpot.push_back(l.ntpot_s);
    if (l.ttft_s) ttft.push_back(*l.ttft_s);
    if (l.tpot_s) tpot.push_back(*l.tpot_s);
    itl.insert(itl.end(), l.itl_s.begin(), l.itl_s.end());
    output_len.push_back(static_cast<double>(r->output_tokens));
    input_total += static_cast<double>(r->prompt_tokens);
    output_total += static_cast<double>(r->output_tokens);
  }
  ordered_json successes;
  successes["count"] = ok.size();
  successes["latency"] = {{"request_latency", inference_perf_summarize(latency)},
                          {"normalized_time_per_output_token", inference_perf_summarize(ntpot)},
                          {"time_per_output_token", inference_perf_summarize(tpot)},
                          {"time_to_first_token", inference_perf_summarize(ttft)},
                          {"inter_token_latency", inference_perf_summarize(itl)}};
  successes["throughput"] = {{"input_tokens_per_sec", per_s(input_total)},
                             {"output_tokens_per_sec", per_s(output_total)},
                             {"total_tokens_per_sec", per_s(input_total + output_total)},
                             {"requests_per_sec", per_s(static_cast<double>(ok.size()))}};
  successes["prompt_tokens"] = prompt_token_usage(ok);
  successes["output_len"] = inference_perf_summarize(output_len);
  ordered_json output_tokens = {{"total", output_total}};
  if (!output_len.empty()) output_tokens.update(inference_perf_summarize(output_len));
  successes["output_tokens"] = std::move(output_tokens);
  successes["token_count_mismatches"] = 0;
  successes["client_fallback_requests"] = {{"prompt", 0}, {"output", 0}};

  std::vector<double> failed_latency;
  for (const InferencePerfRequest* r : failed) failed_latency.push_back(r->end_s - r->start_s);
  ordered_json failures;
  failures["count"] = failed.size();
  failures["request_latency"] = inference_perf_summarize(failed_latency);
  failures["prompt_tokens"] = prompt_token_usage(failed);
  failures["by_label"] = error_counts(failed);

  ordered_json out;
  out["benchmark_time_seconds"] = total_time;
  out["load_summary"] = std::move(load);
  out["successes"] = std::move(successes);
  out["failures"] = std::move(failures);
  return out;
}

}  // namespace servesim
