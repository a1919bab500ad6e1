// BenchmarkSource: a benchmark run's succeeded requests, at the file's send times or at
// times generated the way the tool generated them (benchmark_source.h).
#include "sim/workload/benchmark/benchmark_source.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/length_source.h"
#include "sim/core/time.h"

namespace servesim {
namespace {

// Offsets from the stage's start, in seconds, of `count` requests sent at `rate_per_s`
// with gamma gaps of shape `burstiness` (vllm's get_request): each request, the first
// included, waits one gap after the previous; the sum is then scaled to count / rate.
std::vector<double> generated_offsets_s(std::size_t count, const BenchmarkStage& stage, Rng& rng) {
  std::vector<double> offsets(count, 0.0);
  if (!stage.rate_per_s || count == 0) return offsets;  // "inf": all at once
  const double rate = *stage.rate_per_s;
  const double shape = stage.burstiness;
  double t = 0;
  for (double& offset : offsets) {
    // Infinite burstiness is the gamma's limit, evenly spaced sends (inference-perf's and
    // GuideLLM's constant load types read so).
    t += std::isfinite(shape) ? rng.gamma(shape, 1.0 / (rate * shape)) : 1.0 / rate;
    offset = t;
  }
  // The tool rescales so that its throughput does not depend on the seed: the last request
  // goes at exactly count / rate.
  if (offsets.back() > 0) {
    const double factor = (static_cast<double>(count) / rate) / offsets.back();
    for (double& offset : offsets) offset *= factor;
  }
  return offsets;
}

// A request of the part of the file that is replayed: every stage, or the one chosen.
bool in_replayed_stage(const BenchmarkRequest& r, std::optional<int> stage) { return !stage || r.stage == *stage; }

// What the errors call the replayed part: "stage N of the file" or "the file".
std::string replayed_part(std::optional<int> stage) {
  return stage ? "stage " + std::to_string(*stage) + " of the file" : "the file";
}

// A positive finite speedup, and a stage the file has.
void check_replay_choice(const BenchmarkRun& run, std::optional<int> stage, double speedup,
                         const std::string& key_prefix) {
  if (!(speedup > 0) || !std::isfinite(speedup)) {
    throw ConfigError(run.path, 0, key_prefix + "speedup", "must be a positive number");
  }
  const int stage_count = static_cast<int>(run.stages.size());
  if (stage && (*stage < 0 || *stage >= stage_count)) {
    throw ConfigError(run.path, 0, key_prefix + "stage",
                      "is " + std::to_string(*stage) + ", but the file has " + std::to_string(stage_count) +
                          (stage_count == 1 ? " stage (index 0)" : " stages (0 to " + std::to_string(stage_count - 1) + ")"));
  }
}

// Whether the replayed requests carry send times: all of them (true) or none (false). A
// replayed part with no requests, or with times for only some, is an error.
bool replayed_requests_timed(const BenchmarkRun& run, std::optional<int> stage, const std::string& key_prefix) {
  std::int64_t total = 0, with_times = 0;
  for (const BenchmarkRequest& r : run.requests) {
    if (!in_replayed_stage(r, stage)) continue;
    ++total;
    with_times += r.start_ns.has_value();
  }
  const std::string which = replayed_part(stage);
  if (total == 0) throw ConfigError(run.path, 0, key_prefix + "stage", which + " has no requests");
  if (with_times != 0 && with_times != total) {
    throw ConfigError(run.path, 0, key_prefix + "path",
                      which + " has send times for " + std::to_string(with_times) + " of its " +
                          std::to_string(total) + " requests; a replay needs them for all or none");
  }
  return with_times == total;
}

}  // namespace

BenchmarkSource::BenchmarkSource(const BenchmarkRun& run, std::optional<int> stage, double speedup, Rng rng,
                                 int class_index, const std::string& key_prefix)
    : class_index_(class_index) {
  check_replay_choice(run, stage, speedup, key_prefix);
  timed_ = replayed_requests_timed(run, stage, key_prefix);
  if (timed_) {
    add_send_time_stage(run, stage, speedup, key_prefix);
  } else {
    add_generated_stages(run, stage, speedup, rng, key_prefix);
  }
  if (sends_.total() == 0) {
    throw ConfigError(run.path, 0, key_prefix + "path",
                      "no request of " + replayed_part(stage) + " succeeded (" + std::to_string(failed_requests_) +
                          " failed): there is nothing to replay");
  }
}

// One stage of the succeeded requests at their send times, from the first send, divided
// by the speedup; the failed ones are counted.
void BenchmarkSource::add_send_time_stage(const BenchmarkRun& run, std::optional<int> stage, double speedup,
                                          const std::string& key_prefix) {
  Tick origin_ns = kTickMax;
  for (const BenchmarkRequest& r : run.requests)
    if (in_replayed_stage(r, stage)) origin_ns = std::min(origin_ns, *r.start_ns);
  Sends::Stage all;
  for (const BenchmarkRequest& r : run.requests) {
    if (!in_replayed_stage(r, stage)) continue;
    if (!r.succeeded) {
      ++failed_requests_;
      continue;
    }
    const Tick since_ns = *r.start_ns - origin_ns;
    if (static_cast<double>(since_ns) / speedup > kMaxArrivalSeconds * 1e9) {
      throw ConfigError(run.path, 0, key_prefix + "speedup", "send times overflow 64-bit nanoseconds at this speedup");
    }
    // Exact at speedup 1; otherwise rounded once, as the CSV traces are.
    const Tick offset_ns =
        speedup == 1.0 ? since_ns : static_cast<Tick>(std::llround(static_cast<double>(since_ns) / speedup));
    all.sends.push_back({offset_ns, {r.prompt_tokens, r.output_tokens}});
  }
  // Kept in the file's (send) order, so that the n-th request sent is the n-th the file
  // lists that succeeded.
  sends_.add_stage(std::move(all));
}

// One stage per replayed stage of the file, its send times generated at the stage's rate
// and burstiness as the tool generated them (generated_offsets_s), divided by the
// speedup; the failed requests take their draws and are counted, not sent.
void BenchmarkSource::add_generated_stages(const BenchmarkRun& run, std::optional<int> stage, double speedup, Rng& rng,
                                           const std::string& key_prefix) {
  const int stage_count = static_cast<int>(run.stages.size());
  for (int s = 0; s < stage_count; ++s) {
    if (stage && s != *stage) continue;
    const BenchmarkStage& spec = run.stages[static_cast<std::size_t>(s)];
    std::vector<const BenchmarkRequest*> members;
    for (const BenchmarkRequest& r : run.requests)
      if (r.stage == s) members.push_back(&r);
    if (spec.rate_per_s && static_cast<double>(members.size()) / *spec.rate_per_s / speedup > kMaxArrivalSeconds) {
      throw ConfigError(run.path, 0, key_prefix + "speedup",
                        "stage " + std::to_string(s) + "'s arrivals would span more than 9e9 s");
    }
    const std::vector<double> offsets_s = generated_offsets_s(members.size(), spec, rng);
    Sends::Stage generated;
    generated.cap = spec.max_concurrency;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (!members[i]->succeeded) {
        ++failed_requests_;
        continue;
      }
      generated.sends.push_back(
          {ticks_from_seconds(offsets_s[i] / speedup), {members[i]->prompt_tokens, members[i]->output_tokens}});
    }
    sends_.add_stage(std::move(generated));
  }
}

std::optional<Tick> BenchmarkSource::peek_arrival_ns() { return sends_.peek_arrival_ns(); }

RequestSpec BenchmarkSource::pop() {
  const auto [arrival_ns, lengths] = sends_.pop();
  TokenLengths tokens;  // a benchmark's request shares no prefix blocks and is never clamped
  tokens.prompt_tokens = lengths.prompt_tokens;
  tokens.output_tokens = lengths.output_tokens;
  return request_with_lengths(std::move(tokens), class_index_, arrival_ns);
}

void BenchmarkSource::on_finished(const RequestSpec& request, Tick now_ns) {
  (void)request;
  sends_.finished(now_ns);
}

bool BenchmarkSource::exhausted() { return sends_.exhausted(); }

const std::vector<std::string>& benchmark_trace_formats() {
  static const std::vector<std::string> formats = {"vllm-bench", "inference-perf", "guidellm", "benchmark"};
  return formats;
}

bool is_benchmark_trace_format(const std::string& format) {
  const auto& formats = benchmark_trace_formats();
  return std::find(formats.begin(), formats.end(), format) != formats.end();
}

std::unique_ptr<BenchmarkSource> make_benchmark_source(const TraceSpec& trace, const std::string& class_name,
                                                       int class_index, std::uint64_t seed) {
  SS_ASSERT(is_benchmark_trace_format(trace.format), "not a benchmark trace format");
  std::optional<BenchmarkRun> read;
  if (!trace.preloaded) read = read_benchmark(trace.path, trace.format == "benchmark" ? "auto" : trace.format);
  const BenchmarkRun& run = trace.preloaded ? *trace.preloaded : *read;
  return std::make_unique<BenchmarkSource>(run, trace.stage, trace.speedup,
                                           Rng(seed, "workload/" + class_name + "/arrival"), class_index,
                                           "workload." + class_name + ".trace.");
}

}  // namespace servesim
