// A run written as `vllm bench serve --save-result --save-detailed` writes its results
// (vllm/benchmarks/serve.py), in the newer form that has start_times and latencies, with
// the percentiles of ttft, tpot, itl and e2el as `--percentile-metrics ttft,tpot,itl,e2el
// --metric-percentiles 50,90,95,99` would give them. The summary figures are computed from
// the per-request lists the file holds, the way vllm's calculate_metrics does:
//   - over the completed requests only; a rejected or unfinished request is a failed one
//     (error text says which), with input_len as asked, output_len 0, ttft 0, no itls;
//   - tpot = (latency - ttft) / (output_len - 1) for requests of 2 tokens or more;
//   - itl: every gap of every completed request (spread evenly, benchmark_writer.h);
//   - mean, median, std (population) and percentiles as numpy computes them, in ms.
// A completed request with no output token (prefill only) gets ttft = its latency: its
// response is complete when its prefill is. The file has no "date": servesim's outputs are
// the same for the same seed, whenever they are written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/atomic_write.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/metrics/numpy_stats.h"

namespace servesim {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr double kVllmBenchPercentiles[] = {50, 90, 95, 99};

struct VllmBenchRow {
  std::uint64_t id = 0;
  bool completed = false;
  std::string error;
  Tick arrival_ns = 0;
  Tick ttft_ns = 0;
  Tick e2el_ns = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
};

double seconds(Tick ns) { return seconds_from_ticks(ns); }

// The decode time split over output - 1 gaps in whole nanoseconds, the remainder going to
// the first gaps, so the gaps add up to exactly the decode time.
std::vector<Tick> even_gaps_ns(Tick decode_ns, std::int64_t output_tokens) {
  if (output_tokens < 2) return {};
  const auto count = static_cast<Tick>(output_tokens - 1);
  std::vector<Tick> gaps(static_cast<std::size_t>(count), decode_ns / count);
  for (Tick i = 0; i < decode_ns % count; ++i) gaps[static_cast<std::size_t>(i)] += 1;
  return gaps;
}

// mean / median / std / pNN of `values_s`, in ms, under vllm's key names.
void add_metric(ordered_json& out, const std::string& name, std::vector<double> values_s) {
  std::sort(values_s.begin(), values_s.end());
  out["mean_" + name + "_ms"] = numpy_mean(values_s) * 1000;
  out["median_" + name + "_ms"] = numpy_percentile(values_s, 50) * 1000;
  out["std_" + name + "_ms"] = numpy_std(values_s) * 1000;
  for (double p : kVllmBenchPercentiles) {
    out["p" + std::to_string(static_cast<int>(p)) + "_" + name + "_ms"] = numpy_percentile(values_s, p) * 1000;
  }
}

// vllm's peak figures over the completed requests: the most requests in flight at once
// (half-open intervals [start, start + latency), a departure before an arrival at the same
// time) and the most tokens in one whole second counted from the first start.
std::pair<std::int64_t, double> peaks(const std::vector<VllmBenchRow>& rows) {
  std::vector<std::pair<Tick, int>> events;
  Tick first_ns = kTickMax, last_ns = 0;
  for (const VllmBenchRow& r : rows) {
    if (!r.completed) continue;
    events.emplace_back(r.arrival_ns, +1);
    events.emplace_back(r.arrival_ns + r.e2el_ns, -1);
    first_ns = std::min(first_ns, r.arrival_ns);
    last_ns = std::max(last_ns, r.arrival_ns + r.e2el_ns);
  }
  if (events.empty()) return {0, 0.0};
  std::sort(events.begin(), events.end());
  std::int64_t now = 0, peak = 0;
  for (const auto& e : events) peak = std::max(peak, now += e.second);
  const auto buckets = static_cast<std::size_t>(std::ceil(seconds(last_ns - first_ns))) + 1;
  std::vector<double> tokens_per_s(buckets, 0.0);
  for (const VllmBenchRow& r : rows) {
    if (!r.completed || r.output_tokens < 1) continue;
    Tick token_ns = r.arrival_ns + r.ttft_ns;
    const auto count_token = [&](Tick t) {
      const auto bucket = static_cast<std::size_t>(seconds(t - first_ns));
      if (bucket < buckets) tokens_per_s[bucket] += 1;
    };
    count_token(token_ns);
    for (Tick gap : even_gaps_ns(r.e2el_ns - r.ttft_ns, r.output_tokens)) count_token(token_ns += gap);
  }
  return {peak, *std::max_element(tokens_per_s.begin(), tokens_per_s.end())};
}

class VllmBenchWriter : public BenchmarkWriter {
 public:
  explicit VllmBenchWriter(std::string path) : path_(std::move(path)) {}

  void add(const RequestRecord& record) override {
    VllmBenchRow row;
    row.id = record.id;
    row.arrival_ns = record.arrival_ns;
    row.prompt_tokens = record.prompt_tokens;
    row.completed = record.outcome == Outcome::completed;
    if (row.completed) {
      row.output_tokens = record.output_tokens_done;
      row.e2el_ns = record.e2el_ns();
      row.ttft_ns = record.first_token_ns >= 0 ? record.ttft_ns() : row.e2el_ns;
    } else if (record.outcome == Outcome::rejected) {
      row.error = std::string("rejected by servesim: ") + record.reject_reason;
    } else {
      row.error = "unfinished: the run stopped with the request in flight";
    }
    rows_.push_back(std::move(row));
  }

  void finish(const BenchmarkRunInfo& info) override {
    // In the order the requests arrived, as the tool lists them in the order it sent them.
    std::sort(rows_.begin(), rows_.end(), [](const VllmBenchRow& a, const VllmBenchRow& b) { return a.id < b.id; });
    const ordered_json doc = document(info);
    write_file_atomically(path_, "--bench-format", [&](std::ostream& out) { out << doc.dump() << "\n"; });
  }

 private:
  ordered_json document(const BenchmarkRunInfo& info) const {
    ordered_json out;
    out["endpoint_type"] = "servesim";
    out["backend"] = "servesim";
    out["label"] = info.scenario_name;
    out["model_id"] = info.model;
    out["tokenizer_id"] = info.model;
    out["num_prompts"] = rows_.size();
    out["seed"] = info.seed;
    if (info.request_rate_per_s) {
      out["request_rate"] = *info.request_rate_per_s;
    } else {
      out["request_rate"] = "inf";
    }
    out["burstiness"] = info.burstiness;
    out["max_concurrency"] = info.max_concurrency ? ordered_json(*info.max_concurrency) : ordered_json(nullptr);

    ordered_json input_lens = ordered_json::array(), output_lens = ordered_json::array(),
                 ttfts = ordered_json::array(), itls = ordered_json::array(), latencies = ordered_json::array(),
                 start_times = ordered_json::array(), texts = ordered_json::array(), errors = ordered_json::array();
    std::vector<double> ttft_s, tpot_s, itl_s, e2el_s;
    std::int64_t completed = 0, total_input = 0, total_output = 0;
    for (const VllmBenchRow& r : rows_) {
      input_lens.push_back(r.prompt_tokens);
      output_lens.push_back(r.output_tokens);
      start_times.push_back(seconds(r.arrival_ns));
      texts.push_back("");
      errors.push_back(r.error);
      ordered_json gaps = ordered_json::array();
      if (r.completed) {
        ++completed;
        total_input += r.prompt_tokens;
        total_output += r.output_tokens;
        for (Tick gap : even_gaps_ns(r.e2el_ns - r.ttft_ns, r.output_tokens)) {
          gaps.push_back(seconds(gap));
          itl_s.push_back(seconds(gap));
        }
        ttft_s.push_back(seconds(r.ttft_ns));
        e2el_s.push_back(seconds(r.e2el_ns));
        if (r.output_tokens > 1) {
          tpot_s.push_back((seconds(r.e2el_ns) - seconds(r.ttft_ns)) / static_cast<double>(r.output_tokens - 1));
        }
      }
      ttfts.push_back(r.completed ? seconds(r.ttft_ns) : 0.0);
      latencies.push_back(r.completed ? seconds(r.e2el_ns) : 0.0);
      itls.push_back(std::move(gaps));
    }
    const double duration_s = seconds(info.duration_ns);
    // A run that ended at t = 0 (nothing took time) has no rate to divide by.
    const auto per_s = [&](double x) { return duration_s > 0 ? x / duration_s : 0.0; };
    out["duration"] = duration_s;
    out["completed"] = completed;
    out["failed"] = static_cast<std::int64_t>(rows_.size()) - completed;
    out["total_input_tokens"] = total_input;
    out["total_output_tokens"] = total_output;
    out["request_throughput"] = per_s(static_cast<double>(completed));
    out["request_goodput"] = nullptr;
    out["output_throughput"] = per_s(static_cast<double>(total_output));
    out["total_token_throughput"] = per_s(static_cast<double>(total_input + total_output));
    out["input_lens"] = std::move(input_lens);
    out["output_lens"] = std::move(output_lens);
    out["ttfts"] = std::move(ttfts);
    out["itls"] = std::move(itls);
    out["latencies"] = std::move(latencies);
    out["start_times"] = std::move(start_times);
    out["generated_texts"] = std::move(texts);
    out["errors"] = std::move(errors);
    const auto [peak_requests, peak_tokens_per_s] = peaks(rows_);
    out["max_output_tokens_per_s"] = peak_tokens_per_s;
    out["max_concurrent_requests"] = peak_requests;
    add_metric(out, "ttft", std::move(ttft_s));
    add_metric(out, "tpot", std::move(tpot_s));
    add_metric(out, "itl", std::move(itl_s));
    add_metric(out, "e2el", std::move(e2el_s));
    return out;
  }

  std::string path_;
  std::vector<VllmBenchRow> rows_;
};

}  // namespace

BenchmarkWriterFormat vllm_bench_writer_format() {
  return benchmark_writer_format_of<VllmBenchWriter>("vllm", "vllm_bench.json");
}

}  // namespace servesim
