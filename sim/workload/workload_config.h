#pragma once
// One workload class of a scenario (the `workload:` list), already validated by sim/scenario.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/workload/benchmark/vllm_bench_args.h"
#include "sim/workload/distribution.h"
#include "sim/workload/lora_demand_spec.h"

namespace servesim {

struct BenchmarkRun;  // workload/benchmark/benchmark_run.h

// Limits that keep a staged schedule inside int64 nanoseconds and exact counts, checked by
// the scenario parser and again by make_arrival_process: the longest staged schedule (its end
// must fit in a Tick; 2^63 ns is 292 years) and the most arrivals one stage may expect (a
// count exact in a double and an int64).
inline constexpr double kMaxStagedSeconds = kMaxArrivalSeconds;
inline constexpr double kMaxStageArrivals = 1e15;

struct ArrivalSpec {
  enum class Process { poisson, gamma, constant, closed };
  // One stage of a staged open loop: the process at `rate_per_s` for `duration_s`.
  // Rate 0 is an idle stage (no arrivals).
  struct Stage {
    double duration_s = 0;
    double rate_per_s = 0;
  };
  Process process = Process::poisson;
  double rate_per_s = 0;       // poisson, gamma, constant (without stages)
  // poisson, gamma, constant: instead of one rate, stages back to back from t = 0; arrivals
  // end with the last stage (docs/workload.md, "Stages"). Empty: `rate_per_s` forever.
  std::vector<Stage> stages;
  double cv = 1.0;             // gamma: coefficient of variation of inter-arrival times
  int concurrency = 0;         // closed: users, each sends the next request after the last
  std::optional<DistSpec> think_time_s;  // closed: pause after a completion (seconds)
};

// trace.rate_scale (time_warp.h): from `time_s` of the trace's own time (after speedup) on,
// its arrival rate is multiplied by `scale`.
struct RateScalePoint {
  double time_s = 0;
  double scale = 1;
};

struct TraceSpec {
  // azure | mooncake | vidur | csv | lengths, or a benchmark tool's results: vllm-bench |
  // inference-perf | guidellm | benchmark (which of the three, detected from the file)
  std::string format;
  std::string path;            // resolved by the loader
  double speedup = 1.0;        // arrival times divided by this
  // mooncake, csv: tokens covered by each id of the trace's prefix hashes (Mooncake's 512).
  std::int64_t hash_block_tokens = 512;
  // Benchmark formats: replay only this stage of the file (absent: every stage in turn).
  std::optional<int> stage;
  // azure, vidur, mooncake, csv: the trace's rate scaled over its time; empty: as recorded.
  std::vector<RateScalePoint> rate_scale;
  // Format vllm-bench-serve (a class's `vllm_bench_serve:` command line, not a `trace:`
  // format): the options; `path` is its sharegpt lengths file ("" otherwise).
  std::optional<VllmBenchServeArgs> vllm_bench_serve;
  // Benchmark formats: the file as already read, used instead of reading `path` again. A
  // replay simulates the same benchmark hundreds of times while it fits; parsing its JSON
  // each time cost ten times the simulation.
  std::shared_ptr<const BenchmarkRun> preloaded;
};

// One segment of a structured prompt (the class's `prompt:` list), in prompt order.
struct PromptSegmentSpec {
  enum class Kind { shared, pool, unique };
  Kind kind = Kind::unique;
  std::string name;          // shared, pool: the content's scenario-wide name
  std::int64_t count = 0;    // pool: number of documents
  double zipf = 0;           // pool: popularity of document i is proportional to 1/(i+1)^zipf
  DistSpec tokens;           // shared: fixed length; pool: length of each document (drawn
                             // once per document); unique: length per request
};

// Multi-turn sessions (the class's `session:` block): the class's arrivals start sessions.
struct SessionSpec {
  DistSpec turns;                          // turns per session (at least 1)
  std::optional<DistSpec> think_time_s;    // pause after a turn completes (absent: none)
  DistSpec new_input;                      // new user/tool tokens per turn after the first
  std::optional<std::int64_t> max_history_tokens;  // drop whole oldest turns beyond this
};

// A class's objectives: each bound with the statistic it is stated for (p50, p90, p95, p99,
// p999, mean or every; p99 when the scenario names none). The statistic decides how a run
// is judged; a request is judged on its own figure (docs/metrics.md, "SLOs and goodput").
struct SloSpec {
  std::optional<Tick> ttft_ns;
  std::optional<Tick> itl_ns;
  std::optional<Tick> tpot_ns;
  std::optional<Tick> e2el_ns;
  std::string ttft_stat = "p99";
  std::string itl_stat = "p99";
  std::string tpot_stat = "p99";
  std::string e2el_stat = "p99";
};

struct ClassSpec {
  std::string name = "default";
  std::optional<ArrivalSpec> arrival;  // absent for a trace with its own timestamps
  std::optional<DistSpec> input;       // prompt tokens
  std::optional<DistSpec> output;      // output tokens
  std::optional<TraceSpec> trace;
  std::vector<PromptSegmentSpec> prompt;  // replaces `input` when not empty
  std::optional<SessionSpec> session;
  SloSpec slo;
  int priority = 0;                    // higher is served first where the policy allows
  std::optional<LoraDemandSpec> lora;  // the adapters its requests name; none: the base model
  // The model the class's requests need (ModelSpec::name); empty: whichever pool takes the
  // class (docs/cluster.md, "Several models").
  std::string model;
  // Tokens per KV block of the pool that serves the class: the granularity of the
  // RequestSpec::block_hashes its source computes. Set by the simulation, not the user.
  std::int64_t block_tokens = 16;
};

}  // namespace servesim
