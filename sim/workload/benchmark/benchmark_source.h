#pragma once
// Replays a real benchmark run (benchmark_run.h) as one workload class: `trace: {format:
// vllm-bench | inference-perf | guidellm | benchmark, path: F, stage: K}`.
//
// What is sent: every request that SUCCEEDED in the run, with the prompt and output tokens
// it had there. Failed requests are not sent (their lengths are what the client asked for,
// not what a server did); failed_requests() says how many were left out, for the caller
// to report. `stage` restricts the replay to one stage of the file.
//
// When: where the file has per-request send times, at those times, relative to the first
// request of the replayed stages and divided by the speedup; the send times already carry
// the client's own pacing (its rate and any concurrency cap), so nothing else is applied.
// Requests go in the file's order (benchmark_run.h: send order), so the n-th request the
// simulation numbers is the n-th succeeded one of the file; a send time earlier than the
// one before it (a client's clock readings can interleave by microseconds) is sent at once.
// Where it has none (vllm bench serve without start_times), as the tool generates them,
// stage after stage, each stage starting when the previous one's last request finished:
//   - rate absent ("inf"): every request of the stage at the stage's start;
//   - rate r: gaps drawn from gamma(shape = burstiness, scale = 1/(r x burstiness)) (mean
//     1/r, cv 1/sqrt(burstiness)), one per request of the stage including the first (so
//     the first request arrives one gap after the start), then scaled together so that the
//     last arrival is at N/r, as vllm's get_request does. The draws come from servesim's
//     seeded Rng: the same distribution as the tool's, never numpy's exact stream;
//   - max_concurrency c: at most c requests in flight; a request due while c are in flight
//     is sent when one finishes (vllm's semaphore), in file order.
// Gaps are drawn for failed requests too, so the others keep the places they had.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/benchmark/benchmark_run.h"
#include "sim/workload/benchmark/staged_sends.h"
#include "sim/workload/source.h"
#include "sim/workload/workload_config.h"

namespace servesim {

class BenchmarkSource : public RequestSource {
 public:
  // Throws ConfigError (file: run.path, key: `key_prefix` + "stage" / "speedup") for a stage
  // index outside the file's stages, a speedup that is not positive, send times given for
  // some requests of the replayed stages and not others, or replayed stages without a
  // single request that succeeded.
  BenchmarkSource(const BenchmarkRun& run, std::optional<int> stage, double speedup, Rng rng, int class_index,
                  const std::string& key_prefix);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  void on_finished(const RequestSpec& request, Tick now_ns) override;
  bool exhausted() override;

  // Failed requests of the replayed stages, which are not sent.
  std::int64_t failed_requests() const { return failed_requests_; }
  // Requests this source sends in all (the succeeded ones of the replayed stages).
  std::int64_t replayed_requests() const { return sends_.total(); }
  // Whether the arrivals are the file's send times (true) or generated from its stages.
  bool uses_send_times() const { return timed_; }

 private:
  struct Lengths {
    std::int64_t prompt_tokens = 0;
    std::int64_t output_tokens = 0;
  };
  // A stage's send times count from its start (timed: from the first send).
  using Sends = StagedSends<Lengths>;
  // The constructor's two ways of timing the arrivals: the file's send times (one stage),
  // or times generated per stage as the tool generated them.
  void add_send_time_stage(const BenchmarkRun& run, std::optional<int> stage, double speedup,
                           const std::string& key_prefix);
  void add_generated_stages(const BenchmarkRun& run, std::optional<int> stage, double speedup, Rng& rng,
                            const std::string& key_prefix);

  bool timed_ = false;
  Sends sends_;
  int class_index_;
  std::int64_t failed_requests_ = 0;
};

// The trace formats that name a benchmark tool's results: vllm-bench, inference-perf,
// guidellm, and benchmark (whichever of them the file is, benchmark_reader.h).
const std::vector<std::string>& benchmark_trace_formats();
bool is_benchmark_trace_format(const std::string& format);

// Reads `trace.path` and builds the source of class `class_name`; generated arrivals draw
// from the stream (seed, "workload/<class_name>/arrival"). Throws ConfigError for a file
// that cannot be read (file, line, field) and as the constructor does, with keys under
// "workload.<class_name>.trace.".
std::unique_ptr<BenchmarkSource> make_benchmark_source(const TraceSpec& trace, const std::string& class_name,
                                                       int class_index, std::uint64_t seed);

}  // namespace servesim
