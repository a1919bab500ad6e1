#include "sim/metrics/metric_group.h"

#include <array>
#include <limits>

#include "sim/core/assert.h"

namespace servesim {

namespace {

// A rejection without a reason still has to be counted under some name.
constexpr const char* kUnspecifiedReason = "unspecified";

double ms(double ns) { return ns * 1e-6; }

// A figure without samples (TTFT when every output is 0 tokens, TPOT and ITL below two) does
// not exist: NaN, which summary.json writes as null and the console as "-", never 0, which
// would read as "instant" (docs/metrics.md, "No samples").
constexpr double kNoSamples = std::numeric_limits<double>::quiet_NaN();

// A part of the TTFT or ITL attribution: its name in summary.json (docs/metrics.md) and the
// field that sums it. One list per attribution serves both the sums and the fields written,
// in the order written.
template <class Parts>
struct NamedPart {
  const char* name;
  Tick Parts::*ns;
};
// kv_load is written only with KV tiers (add_kv_tier_fields), after the front-end part.
constexpr std::array<NamedPart<TtftParts>, 7> kTtftParts{{{"queue_ms", &TtftParts::queue_ns},
                                                          {"prefill_compute_ms", &TtftParts::prefill_compute_ns},
                                                          {"batch_share_ms", &TtftParts::batch_share_ns},
                                                          {"stall_ms", &TtftParts::stall_ns},
                                                          {"preemption_ms", &TtftParts::preemption_ns},
                                                          {"kv_transfer_ms", &TtftParts::kv_transfer_ns},
                                                          {"overhead_ms", &TtftParts::overhead_ns}}};
constexpr std::array<NamedPart<DecodeParts>, 5> kDecodeParts{
    {{"decode_compute_ms", &DecodeParts::decode_compute_ns},
     {"prefill_interference_ms", &DecodeParts::prefill_interference_ns},
     {"stall_ms", &DecodeParts::stall_ns},
     {"preemption_ms", &DecodeParts::preemption_ns},
     {"overhead_ms", &DecodeParts::overhead_ns}}};

void add_parts(TtftParts& into, const TtftParts& p) {
  for (const auto& part : kTtftParts) into.*part.ns += p.*part.ns;
  into.kv_load_ns += p.kv_load_ns;
  into.lora_load_ns += p.lora_load_ns;
}

void add_parts(DecodeParts& into, const DecodeParts& p) {
  for (const auto& part : kDecodeParts) into.*part.ns += p.*part.ns;
}

// Mean in ms of a sum of ns over n items; none (NaN) without items.
double mean_ms(Tick sum_ns, std::int64_t n) {
  return n > 0 ? ms(static_cast<double>(sum_ns)) / static_cast<double>(n) : kNoSamples;
}

// USD per million of `tokens`; 0 without tokens.
double per_million(double usd, std::int64_t tokens) {
  return tokens > 0 ? usd / static_cast<double>(tokens) * 1e6 : 0.0;
}

// The latency sketches as their output names: summary fields are "<stat>_<name>_ms". vLLM's
// benchmark block has the first kVllmLatencies of them.
struct NamedSketch {
  const char* name;
  QuantileSketch MetricGroup::*sketch;
};
constexpr std::array<NamedSketch, 5> kLatencies{{{"ttft", &MetricGroup::ttft_ns},
                                                 {"tpot", &MetricGroup::tpot_ns},
                                                 {"itl", &MetricGroup::itl_ns},
                                                 {"e2el", &MetricGroup::e2el_ns},
                                                 {"queue", &MetricGroup::queue_ns}}};
constexpr std::size_t kVllmLatencies = 4;

// The counts and summed times a merge adds, every one of them: a counter added to
// MetricGroup is merged by naming it here.
constexpr std::array<std::int64_t MetricGroup::*, 19> kSums{
    &MetricGroup::completed,       &MetricGroup::kv_transfer_ns,   &MetricGroup::rejected,
    &MetricGroup::unfinished,      &MetricGroup::input_tokens,     &MetricGroup::output_tokens,
    &MetricGroup::cached_input_tokens, &MetricGroup::preemptions,  &MetricGroup::preempted_ns,
    &MetricGroup::truncated,       &MetricGroup::clamped_input,    &MetricGroup::clamped_output,
    &MetricGroup::ttft_frontend_ns, &MetricGroup::ttft_requests,   &MetricGroup::decode_gaps,
    &MetricGroup::sessions,        &MetricGroup::prefill_saved_ns, &MetricGroup::slo_met,
    &MetricGroup::slo_met_mean_itl};

}  // namespace

void MetricGroup::add_request(const RequestRecord& record, double usd_per_replica_ns, const SloTargets& slo) {
  LatencyBuckets buckets;
  add_request(record, usd_per_replica_ns, slo, buckets);
}

void MetricGroup::add_request(const RequestRecord& record, double usd_per_replica_ns, const SloTargets& slo,
                              LatencyBuckets& buckets) {
  preemptions += record.preemptions;
  preempted_ns += record.preempted_ns;
  if (record.truncated_tokens > 0) ++truncated;
  if (record.input_clamped) ++clamped_input;
  if (record.output_clamped) ++clamped_output;
  switch (record.outcome) {
    case Outcome::completed: {
      ++completed;
      input_tokens += record.prompt_tokens;
      output_tokens += record.output_tokens_done;
      cached_input_tokens += record.cached_prompt_tokens;
      tier_hit_tokens[0] += record.tier_hit_tokens[0];
      tier_hit_tokens[1] += record.tier_hit_tokens[1];
      const Tick ttft = record.ttft_ns();
      if (ttft >= 0) ttft_ns.add_with_index(static_cast<double>(ttft), 1, buckets.ttft);
      const Tick tpot = record.tpot_ns();
      if (tpot >= 0) tpot_ns.add_with_index(static_cast<double>(tpot), 1, buckets.tpot);
      const Tick e2el = record.e2el_ns();
      SS_ASSERT(e2el >= 0, "a completed request needs a finish time after its arrival");
      e2el_ns.add_with_index(static_cast<double>(e2el), 1, buckets.e2el);
      const Tick queue = record.queue_ns();
      if (queue >= 0) queue_ns.add_with_index(static_cast<double>(queue), 1, buckets.queue);
      add_accounting(record, usd_per_replica_ns);
      if (slo.met_by(record)) ++slo_met;
      if (slo.met_by(record, /*itl_by_mean=*/true)) ++slo_met_mean_itl;
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

void MetricGroup::add_accounting(const RequestRecord& record, double usd_per_replica_ns) {
  const RequestAccounting& a = record.acct;
  if (record.ttft_ns() >= 0) {
    add_parts(ttft_parts, a.ttft);
    ttft_frontend_ns += record.frontend_ns;
    ++ttft_requests;
  }
  // One gap per streamed chunk after the first: speculative tokens accepted in a step come
  // in that step's chunk (docs/metrics.md, "ITL").
  const std::int64_t gaps = record.output_tokens_done - 1 - record.spec_accepted_tokens;
  if (gaps >= 1) {
    add_parts(decode_parts, a.decode);
    decode_gaps += gaps;
  }
  prefill_usd += a.gpu.prefill_ns() * usd_per_replica_ns;
  cached_usd += a.gpu.cached_ns() * usd_per_replica_ns;
  decode_usd += a.gpu.decode_ns() * usd_per_replica_ns;
  if (record.session_id == 0 || record.turn <= 1) ++sessions;
  prefill_saved_ns += a.prefill_saved_ns;
}

void MetricGroup::merge(const MetricGroup& other) {
  for (const auto& [name, sketch] : kLatencies) (this->*sketch).merge(other.*sketch);
  for (std::int64_t MetricGroup::*sum : kSums) this->*sum += other.*sum;
  tier_hit_tokens[0] += other.tier_hit_tokens[0];
  tier_hit_tokens[1] += other.tier_hit_tokens[1];
  for (const auto& [reason, count] : other.rejected_reasons) rejected_reasons[reason] += count;
  add_parts(ttft_parts, other.ttft_parts);
  add_parts(decode_parts, other.decode_parts);
  prefill_usd += other.prefill_usd;
  cached_usd += other.cached_usd;
  decode_usd += other.decode_usd;
}

// Fields beyond the contract's, after them (docs/metrics.md).
void MetricGroup::add_new_fields(SummaryBlock& block, Tick duration_ns) const {
  const double duration_s = seconds_from_ticks(duration_ns);
  const std::int64_t judged = completed + rejected;
  block.set_count("slo_met", slo_met);
  block.set("slo_attainment", judged > 0 ? static_cast<double>(slo_met) / static_cast<double>(judged) : 0.0);
  block.set("goodput", duration_ns > 0 ? static_cast<double>(slo_met) / duration_s : 0.0);
  block.set("slo_attainment_mean_itl",
            judged > 0 ? static_cast<double>(slo_met_mean_itl) / static_cast<double>(judged) : 0.0);
  block.set("goodput_mean_itl", duration_ns > 0 ? static_cast<double>(slo_met_mean_itl) / duration_s : 0.0);
  // The slowest one (exact, not sketched): what an SLO stated for `every` bounds.
  for (const auto& [name, member] : kLatencies) {
    const QuantileSketch& sketch = this->*member;
    block.set(std::string("max_") + name + "_ms", sketch.empty() ? kNoSamples : ms(sketch.max()));
  }

  block.set_count("cached_input_tokens", cached_input_tokens);
  block.set_count("uncached_input_tokens", input_tokens - cached_input_tokens);
  block.set("prefill_time_saved_s", seconds_from_ticks(prefill_saved_ns));

  const double cost_usd = prefill_usd + cached_usd + decode_usd;
  block.set("cost_usd", cost_usd);
  block.set("cost_per_1m_input_tokens", per_million(prefill_usd, input_tokens - cached_input_tokens));
  block.set("cost_per_1m_cached_input_tokens", per_million(cached_usd, cached_input_tokens));
  block.set("cost_per_1m_output_tokens", per_million(decode_usd, output_tokens));
  block.set("cost_per_request", completed > 0 ? cost_usd / static_cast<double>(completed) : 0.0);
  block.set_count("sessions", sessions);
  block.set("cost_per_session", sessions > 0 ? cost_usd / static_cast<double>(sessions) : 0.0);

  FieldGroup ttft{"ttft_attribution", {}, {}};
  for (const auto& [name, ns] : kTtftParts) ttft.set(name, mean_ms(ttft_parts.*ns, ttft_requests));
  ttft.set("frontend_ms", mean_ms(ttft_frontend_ns, ttft_requests));
  block.objects.push_back(std::move(ttft));
  FieldGroup itl{"itl_attribution", {}, {}};
  for (const auto& [name, ns] : kDecodeParts) itl.set(name, mean_ms(decode_parts.*ns, decode_gaps));
  block.objects.push_back(std::move(itl));
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
  for (std::size_t i = 0; i < kVllmLatencies; ++i) {
    const std::string suffix = std::string("_") + kLatencies[i].name + "_ms";
    const QuantileSketch& sketch = this->*kLatencies[i].sketch;
    const bool none = sketch.empty();
    block.set("mean" + suffix, none ? kNoSamples : ms(sketch.mean()));
    block.set("median" + suffix, none ? kNoSamples : ms(sketch.quantile(0.5)));
    block.set("std" + suffix, none ? kNoSamples : ms(sketch.stddev()));
    block.set("p99" + suffix, none ? kNoSamples : ms(sketch.quantile(0.99)));
  }

  // The percentile ladder; p99 of the first four is already placed above and set() keeps
  // it there.
  struct Percentile {
    const char* prefix;
    double q;
  };
  const std::array<Percentile, 5> ladder{{{"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95},
                                          {"p99", 0.99}, {"p999", 0.999}}};
  for (const auto& [name, member] : kLatencies) {
    const std::string suffix = std::string("_") + name + "_ms";
    const QuantileSketch& sketch = this->*member;
    for (const auto& [prefix, q] : ladder) block.set(prefix + suffix, sketch.empty() ? kNoSamples : ms(sketch.quantile(q)));
  }
  block.set("mean_queue_ms", queue_ns.empty() ? kNoSamples : ms(queue_ns.mean()));
  // The KV-transfer part of TTFT (prefill/decode disaggregation, docs/cluster.md).
  block.set("mean_kv_transfer_ms",
            completed > 0 ? ms_from_ticks(kv_transfer_ns) / static_cast<double>(completed) : kNoSamples);

  block.set("prefix_cache_hit_rate",
            input_tokens > 0
                ? static_cast<double>(cached_input_tokens) / static_cast<double>(input_tokens)
                : 0.0);
  block.set_count("rejected", rejected);
  block.set_count("unfinished", unfinished);
  block.set_count("preemptions", preemptions);
  block.set("preempted_s", seconds_from_ticks(preempted_ns));
  block.set_count("truncated", truncated);
  block.set_count("clamped_input", clamped_input);
  block.set_count("clamped_output", clamped_output);
  block.rejected_reasons = rejected_reasons;
  add_new_fields(block, duration_ns);
  return block;
}

void MetricGroup::add_kv_tier_fields(SummaryBlock& block) const {
  // Prompt tokens of completed requests served by each tier: HBM's prefix cache, and the
  // CPU and disk tiers (loaded back); the three sum to cached_input_tokens.
  const std::int64_t cpu = tier_hit_tokens[0], disk = tier_hit_tokens[1];
  const std::int64_t hbm = cached_input_tokens - cpu - disk;
  const auto rate = [&](std::int64_t tokens) {
    return input_tokens > 0 ? static_cast<double>(tokens) / static_cast<double>(input_tokens) : 0.0;
  };
  FieldGroup tiers{"kv_tiers", {}, {}};
  tiers.set_count("hbm_hit_tokens", hbm);
  tiers.set_count("cpu_hit_tokens", cpu);
  tiers.set_count("disk_hit_tokens", disk);
  tiers.set("hbm_hit_rate", rate(hbm));
  tiers.set("cpu_hit_rate", rate(cpu));
  tiers.set("disk_hit_rate", rate(disk));
  tiers.set("mean_kv_load_ms", mean_ms(ttft_parts.kv_load_ns, ttft_requests));
  block.objects.push_back(std::move(tiers));
  // The TTFT parts then have one more, so that they still sum to the mean TTFT.
  for (FieldGroup& group : block.objects)
    if (group.name == "ttft_attribution") group.set("kv_load_ms", mean_ms(ttft_parts.kv_load_ns, ttft_requests));
}

void MetricGroup::add_lora_fields(SummaryBlock& block) const {
  // The TTFT parts have one more, taken out of overhead_ms, so that they still sum to the
  // mean TTFT.
  for (FieldGroup& group : block.objects)
    if (group.name == "ttft_attribution") group.set("lora_load_ms", mean_ms(ttft_parts.lora_load_ns, ttft_requests));
}

}  // namespace servesim
