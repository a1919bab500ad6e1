// A run written as GuideLLM 0.3 and later writes `guidellm benchmark --output-path
// report.json` (the schema guidellm_format.cpp reads): one benchmark, whose strategy is
// the run's load (synchronous, concurrent@N, constant@R, poisson@R, throughput), with every
// request listed (no sampling):
//   - completed -> successful; rejected -> errored (info.error says why); still in flight
//     when the run stopped -> incomplete, ended at the run's end;
//   - times are seconds on the simulated clock (0 = the run's start) where GuideLLM writes
//     Unix timestamps; only differences carry meaning in either;
//   - first_token_iteration is the first token, last_token_iteration the last (the finish),
//     token_iterations the tokens produced (one per iteration);
//   - the per-request figures (request_latency, time_to_first_token_ms,
//     time_per_output_token_ms = (last token - start) / output tokens, ...) and the
//     metrics (request_totals, request_latency, prompt / output / total token counts,
//     time_to_first_token_ms, time_per_output_token_ms weighted by output tokens,
//     inter_token_latency_ms weighted by output tokens - 1) are computed as GuideLLM's
//     GenerativeRequestStats and GenerativeMetrics.compile compute them, a missing figure
//     counting as 0 there as it does in GuideLLM. GuideLLM's rate and concurrency
//     distributions over time are not written.
// A gamma-spaced open loop (burstiness other than 1), which GuideLLM has no strategy for,
// is written as poisson with servesim's own key "burstiness" (the gamma shape) beside the
// rate; GuideLLM leaves unknown keys alone and servesim reads it back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/atomic_write.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/metrics/guidellm_distribution.h"
#include "sim/core/json_values.h"

namespace servesim {
namespace {

using ordered_json = nlohmann::ordered_json;

// One request in GuideLLM's terms, with the figures it derives from its timings.
struct Stats {
  std::uint64_t id = 0;
  std::string status;  // successful | incomplete | errored
  std::string error;   // errored only
  double start_s = 0;
  double end_s = 0;
  std::optional<double> first_token_s;
  std::optional<double> last_token_s;
  std::int64_t token_iterations = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;

  // GuideLLM's UsageMetrics.total_tokens is `... or None`: a count of 0 is no count.
  std::optional<double> prompt() const { return prompt_tokens > 0 ? std::optional<double>(prompt_tokens) : std::nullopt; }
  std::optional<double> output() const {
    if (output_tokens > 0) return static_cast<double>(output_tokens);
    if (token_iterations > 0) return static_cast<double>(token_iterations);
    return std::nullopt;
  }
  std::optional<double> total() const {
    if (!prompt() && !output()) return std::nullopt;
    return prompt().value_or(0) + output().value_or(0);
  }
  double latency_s() const { return end_s - start_s; }
  std::optional<double> ttft_ms() const {
    if (!first_token_s) return std::nullopt;
    return 1000 * (*first_token_s - start_s);
  }
  std::optional<double> tpot_ms() const {
    if (!output()) return std::nullopt;
    return 1000 * (last_token_s.value_or(end_s) - start_s) / *output();
  }
  std::optional<double> itl_ms() const {
    if (!first_token_s || !last_token_s || !output() || *output() <= 1) return std::nullopt;
    return 1000 * (*last_token_s - *first_token_s) / (*output() - 1);
  }
};


ordered_json strategy_of(const BenchmarkRunInfo& info) {
  ordered_json s;
  if (info.request_rate_per_s) {
    s["type_"] = std::isinf(info.burstiness) ? "constant" : "poisson";
    s["rate"] = *info.request_rate_per_s;
    if (!std::isinf(info.burstiness) && info.burstiness != 1.0) s["burstiness"] = info.burstiness;
    s["max_concurrency"] = info.max_concurrency ? ordered_json(*info.max_concurrency) : ordered_json(nullptr);
  } else if (info.max_concurrency && *info.max_concurrency == 1) {
    s["type_"] = "synchronous";
  } else if (info.max_concurrency) {
    s["type_"] = "concurrent";
    s["streams"] = *info.max_concurrency;
  } else {
    s["type_"] = "throughput";
    s["max_concurrency"] = nullptr;
  }
  return s;
}

ordered_json request_entry(const Stats& r) {
  ordered_json timings;
  timings["request_start"] = r.start_s;
  timings["first_token_iteration"] = json_number_or_null(r.first_token_s);
  timings["last_token_iteration"] = json_number_or_null(r.last_token_s);
  timings["token_iterations"] = r.token_iterations;
  timings["request_end"] = r.end_s;
  timings["resolve_end"] = r.end_s;
  ordered_json info;
  info["request_id"] = std::to_string(r.id);
  info["status"] = r.status == "successful" ? "completed" : r.status == "errored" ? "errored" : "cancelled";
  info["timings"] = std::move(timings);
  info["error"] = r.error.empty() ? ordered_json(nullptr) : ordered_json(r.error);
  const auto usage = [](std::int64_t tokens, const std::optional<double>& total) {
    ordered_json u;
    u["text_tokens"] = tokens;
    u["total_tokens"] = total ? ordered_json(static_cast<std::int64_t>(*total)) : ordered_json(nullptr);
    return u;
  };
  ordered_json q;
  q["type_"] = "generative_request_stats";
  q["request_id"] = std::to_string(r.id);
  q["request_type"] = "text_completions";
  q["output"] = nullptr;
  q["info"] = std::move(info);
  q["input_metrics"] = usage(r.prompt_tokens, r.prompt());
  q["output_metrics"] = usage(r.output_tokens, r.output_tokens > 0 ? r.output() : std::nullopt);
  q["request_start_time"] = r.start_s;
  q["request_end_time"] = r.end_s;
  q["request_latency"] = r.latency_s();
  q["prompt_tokens"] = json_number_or_null(r.prompt());
  q["output_tokens"] = json_number_or_null(r.output());
  q["total_tokens"] = json_number_or_null(r.total());
  q["time_to_first_token_ms"] = json_number_or_null(r.ttft_ms());
  q["time_per_output_token_ms"] = json_number_or_null(r.tpot_ms());
  q["inter_token_latency_ms"] = json_number_or_null(r.itl_ms());
  const bool timed = r.latency_s() != 0;  // GuideLLM: `if not latency` -> None
  q["tokens_per_second"] = timed && r.total() ? ordered_json(*r.total() / r.latency_s()) : ordered_json(nullptr);
  q["output_tokens_per_second"] = timed && r.output() ? ordered_json(*r.output() / r.latency_s()) : ordered_json(nullptr);
  return q;
}

class GuidellmWriter : public RecordingBenchmarkWriter {
 public:
  using RecordingBenchmarkWriter::RecordingBenchmarkWriter;

  void finish(const BenchmarkRunInfo& info) override {
    std::sort(records_.begin(), records_.end(), [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
    const ordered_json doc = document(info);
    write_file_atomically(path_, "--bench-format", [&](std::ostream& out) { out << doc.dump() << "\n"; });
  }

 private:
  Stats stats_of(const RequestRecord& record, double run_end_s) const {
    Stats r;
    r.id = record.id;
    r.start_s = seconds_from_ticks(record.arrival_ns);
    r.prompt_tokens = record.prompt_tokens;
    r.output_tokens = record.output_tokens_done;
    r.token_iterations = record.output_tokens_done;
    if (record.first_token_ns >= 0) r.first_token_s = seconds_from_ticks(record.first_token_ns);
    switch (record.outcome) {
      case Outcome::completed:
        r.status = "successful";
        r.end_s = seconds_from_ticks(record.finish_ns);
        if (r.first_token_s) r.last_token_s = r.end_s;
        break;
      case Outcome::rejected:
        r.status = "errored";
        r.error = std::string("rejected by servesim: ") + record.reject_reason;
        r.end_s = seconds_from_ticks(record.finish_ns >= 0 ? record.finish_ns : record.arrival_ns);
        break;
      case Outcome::unfinished:
        r.status = "incomplete";
        r.end_s = run_end_s;
        break;
    }
    return r;
  }

  ordered_json document(const BenchmarkRunInfo& info) const {
    const double run_end_s = seconds_from_ticks(info.duration_ns);
    std::vector<Stats> all;
    for (const RequestRecord& record : records_) all.push_back(stats_of(record, run_end_s));

    ordered_json lists;
    lists["successful"] = ordered_json::array();
    lists["incomplete"] = ordered_json::array();
    lists["errored"] = ordered_json::array();
    lists["total"] = nullptr;
    for (const Stats& r : all) lists[r.status].push_back(request_entry(r));

    ordered_json benchmark;
    benchmark["type_"] = "generative_benchmark";
    benchmark["config"] = config(info);
    benchmark["scheduler_metrics"] = scheduler_metrics(all, run_end_s);
    benchmark["metrics"] = metrics(all);
    benchmark["requests"] = std::move(lists);
    benchmark["start_time"] = 0.0;
    benchmark["end_time"] = run_end_s;
    benchmark["duration"] = run_end_s;

    ordered_json args;
    args["model"] = info.model;
    args["random_seed"] = info.seed;
    ordered_json out;
    out["args"] = std::move(args);
    out["benchmarks"] = ordered_json::array({std::move(benchmark)});
    return out;
  }

  static ordered_json config(const BenchmarkRunInfo& info) {
    ordered_json c;
    c["id_"] = info.scenario_name + "-" + std::to_string(info.seed);
    c["run_id"] = info.scenario_name;
    c["run_index"] = 0;
    c["strategy"] = strategy_of(info);
    c["constraints"] = ordered_json::object();
    c["sample_requests"] = nullptr;
    c["backend"] = {{"type_", "servesim"}};
    return c;
  }

  static ordered_json totals(const std::vector<Stats>& all) {
    std::int64_t ok = 0, incomplete = 0, errored = 0;
    for (const Stats& r : all) {
      ok += r.status == "successful";
      incomplete += r.status == "incomplete";
      errored += r.status == "errored";
    }
    ordered_json t;
    t["successful"] = ok;
    t["incomplete"] = incomplete;
    t["errored"] = errored;
    t["total"] = ok + incomplete + errored;
    return t;
  }

  static ordered_json scheduler_metrics(const std::vector<Stats>& all, double run_end_s) {
    double first_start_s = run_end_s, last_end_s = 0;
    for (const Stats& r : all) {
      first_start_s = std::min(first_start_s, r.start_s);
      last_end_s = std::max(last_end_s, r.end_s);
    }
    ordered_json m;
    m["start_time"] = 0.0;
    m["request_start_time"] = all.empty() ? 0.0 : first_start_s;
    m["measure_start_time"] = 0.0;
    m["measure_end_time"] = run_end_s;
    m["request_end_time"] = last_end_s;
    m["end_time"] = run_end_s;
    m["requests_made"] = totals(all);
    return m;
  }

  // GenerativeMetrics.compile's value distributions; `value` returns one request's value
  // and weight.
  template <typename F>
  static ordered_json distribution(const std::vector<Stats>& all, F value) {
    std::vector<GuidellmValue> ok, incomplete, errored;
    for (const Stats& r : all) {
      auto& list = r.status == "successful" ? ok : r.status == "incomplete" ? incomplete : errored;
      list.push_back(value(r));
    }
    return guidellm_status_distribution(ok, incomplete, errored);
  }

  static ordered_json metrics(const std::vector<Stats>& all) {
    ordered_json m;
    m["request_totals"] = totals(all);
    m["request_latency"] = distribution(all, [](const Stats& r) { return GuidellmValue{r.latency_s()}; });
    m["prompt_token_count"] = distribution(all, [](const Stats& r) { return GuidellmValue{r.prompt().value_or(0)}; });
    m["output_token_count"] = distribution(all, [](const Stats& r) { return GuidellmValue{r.output().value_or(0)}; });
    m["total_token_count"] = distribution(all, [](const Stats& r) { return GuidellmValue{r.total().value_or(0)}; });
    m["time_to_first_token_ms"] = distribution(all, [](const Stats& r) { return GuidellmValue{r.ttft_ms().value_or(0)}; });
    m["time_per_output_token_ms"] = distribution(
        all, [](const Stats& r) { return GuidellmValue{r.tpot_ms().value_or(0), r.output().value_or(0)}; });
    m["inter_token_latency_ms"] = distribution(
        all, [](const Stats& r) { return GuidellmValue{r.itl_ms().value_or(0), r.output().value_or(1) - 1}; });
    return m;
  }
};

}  // namespace

BenchmarkWriterFormat guidellm_writer_format() {
  return benchmark_writer_format_of<GuidellmWriter>("guidellm", "guidellm.json");
}

}  // namespace servesim
