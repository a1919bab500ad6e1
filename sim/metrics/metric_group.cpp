#include "sim/metrics/metric_group.h"

#include <array>

#include "sim/core/assert.h"

namespace servesim {

namespace {

// A rejection without a reason still has to be counted under some name.
constexpr const char* kUnspecifiedReason = "unspecified";

double ms(double ns) { return ns * 1e-6; }

// Latency sketches as their output names: summary fields are "<stat>_<name>_ms".
struct NamedSketch {
  const char* name;
  const QuantileSketch* sketch;
};

}  // namespace

void MetricGroup::add_request(const RequestRecord& record) {
  preemptions += record.preemptions;
  preempted_ns += record.preempted_ns;
  if (record.truncated_tokens > 0) ++truncated;
  switch (record.outcome) {
    case Outcome::completed: {
      ++completed;
      input_tokens += record.prompt_tokens;
      output_tokens += record.output_tokens_done;
      cached_input_tokens += record.cached_prompt_tokens;
      const Tick ttft = record.ttft_ns();
      if (ttft >= 0) ttft_ns.add(static_cast<double>(ttft));
      const Tick tpot = record.tpot_ns();
      if (tpot >= 0) tpot_ns.add(static_cast<double>(tpot));
      const Tick e2el = record.e2el_ns();
      SS_ASSERT(e2el >= 0, "a completed request needs a finish time after its arrival");
      e2el_ns.add(static_cast<double>(e2el));
      const Tick queue = record.queue_ns();
      if (queue >= 0) queue_ns.add(static_cast<double>(queue));
      kv_transfer_ns += record.kv_transfer_ns;
      break;
    }
    case Outcome::rejected: {
      ++rejected;
      const bool has_reason = record.reject_reason != nullptr && record.reject_reason[0] != '\0';
      ++rejected_reasons[has_reason ? record.reject_reason : kUnspecifiedReason];
      break;
    }
    case Outcome::unfinished:
      ++unfinished;
      break;
  }
}

void MetricGroup::merge(const MetricGroup& other) {
  ttft_ns.merge(other.ttft_ns);
  tpot_ns.merge(other.tpot_ns);
  itl_ns.merge(other.itl_ns);
  e2el_ns.merge(other.e2el_ns);
  queue_ns.merge(other.queue_ns);
  completed += other.completed;
  kv_transfer_ns += other.kv_transfer_ns;
  rejected += other.rejected;
  unfinished += other.unfinished;
  input_tokens += other.input_tokens;
  output_tokens += other.output_tokens;
  cached_input_tokens += other.cached_input_tokens;
  for (const auto& [reason, count] : other.rejected_reasons) rejected_reasons[reason] += count;
  preemptions += other.preemptions;
  preempted_ns += other.preempted_ns;
  truncated += other.truncated;
}

SummaryBlock MetricGroup::to_block(Tick duration_ns) const {
  SummaryBlock block;
  const double duration_s = seconds_from_ticks(duration_ns);
  // A zero-length run has no rate; 0 keeps the JSON free of null and infinity.
  auto per_second = [&](double amount) { return duration_ns > 0 ? amount / duration_s : 0.0; };

  block.set_count("completed", completed);
  block.set_count("total_input_tokens", input_tokens);
  block.set_count("total_output_tokens", output_tokens);
  block.set("duration", duration_s);
  block.set("request_throughput", per_second(static_cast<double>(completed)));
  block.set("output_throughput", per_second(static_cast<double>(output_tokens)));
  block.set("total_token_throughput", per_second(static_cast<double>(input_tokens + output_tokens)));

  // vLLM's benchmark block: mean, median, std, p99 of each latency.
  const std::array<NamedSketch, 4> vllm_latencies{{
      {"ttft", &ttft_ns}, {"tpot", &tpot_ns}, {"itl", &itl_ns}, {"e2el", &e2el_ns}}};
  for (const auto& [name, sketch] : vllm_latencies) {
    const std::string suffix = std::string("_") + name + "_ms";
    block.set("mean" + suffix, ms(sketch->mean()));
    block.set("median" + suffix, ms(sketch->quantile(0.5)));
    block.set("std" + suffix, ms(sketch->stddev()));
    block.set("p99" + suffix, ms(sketch->quantile(0.99)));
  }

  // The percentile ladder; p99 of the first four is already placed above and set() keeps
  // it there.
  const std::array<NamedSketch, 5> all_latencies{{{"ttft", &ttft_ns},
                                                  {"tpot", &tpot_ns},
                                                  {"itl", &itl_ns},
                                                  {"e2el", &e2el_ns},
                                                  {"queue", &queue_ns}}};
  struct Percentile {
    const char* prefix;
    double q;
  };
  const std::array<Percentile, 5> ladder{{{"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95},
                                          {"p99", 0.99}, {"p999", 0.999}}};
  for (const auto& [name, sketch] : all_latencies) {
    const std::string suffix = std::string("_") + name + "_ms";
    for (const auto& [prefix, q] : ladder) block.set(prefix + suffix, ms(sketch->quantile(q)));
  }
  block.set("mean_queue_ms", ms(queue_ns.mean()));
  // The KV-transfer part of TTFT (prefill/decode disaggregation, docs/cluster.md).
  block.set("mean_kv_transfer_ms",
            completed > 0 ? ms_from_ticks(kv_transfer_ns) / static_cast<double>(completed) : 0.0);

  block.set("prefix_cache_hit_rate",
            input_tokens > 0
                ? static_cast<double>(cached_input_tokens) / static_cast<double>(input_tokens)
                : 0.0);
  block.set_count("rejected", rejected);
  block.set_count("unfinished", unfinished);
  block.set_count("preemptions", preemptions);
  block.set("preempted_s", seconds_from_ticks(preempted_ns));
  block.set_count("truncated", truncated);
  block.rejected_reasons = rejected_reasons;
  return block;
}

}  // namespace servesim
