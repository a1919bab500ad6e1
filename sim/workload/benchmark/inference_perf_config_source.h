#pragma once
// The requests an inference-perf config (inference_perf_config.h) sends, as one workload
// class: `trace: {format: inference-perf-config, path: config.yaml, stage: K}`. Each rule
// names the inference-perf source it follows (paths under inference_perf/).
//
// Stages run one after another (loadgen/load_generator.py mp_run / run_stage):
//   - simulated time 0 is stage 0's schedule origin (run_stage's start_time, which lies 1 s
//     after the stage began enqueuing);
//   - a stage's requests go out at their scheduled times (below), in order, but never more
//     than the stage's cap in flight (InferencePerfLoad::cap_of_stage): a request due while
//     the cap is reached waits for one to finish (Worker.loop's semaphore, held from taking
//     a request off the shared queue until it finishes);
//   - run_stage polls every second, from 1 s before the origin, until all its requests have
//     finished, then sleeps `interval`; the next stage's origin is 1 s after that. So with
//     R = origin - 1 s and F the last finish, the next origin is
//     R + ceil(F - R) + interval + 1 s (ceil in whole seconds; a stage of 0 requests: 0).
// Scheduled times (loadgen/load_timer.py), with N = int(rate x duration):
//   - constant (ConstantLoadTimer): N exponential gaps scaled together to sum to `duration`,
//     so the last request is due at exactly `duration` and the others fall at random
//     between (not evenly spaced);
//   - poisson (PoissonLoadTimer): one-second windows in turn; each draws c ~ Poisson(rate)
//     and, if c > 0, spreads c requests over the window as ConstantLoadTimer(c, 1 s) does
//     (c = 0: an empty second); the stage takes the first N of these times;
//   - concurrent: main.py sets rate = num_requests, duration = 1, so all N are due within
//     the first second by ConstantLoadTimer and the cap (concurrency_level) paces them.
// The draws come from servesim's seeded Rng (the tool's timers use unseeded numpy).
//
// Prompts: run_stage calls datagen.get_data() afresh for every stage, whose index starts at
// 0, so request i of EVERY stage gets data index i:
//   - shared_prefix (datagen/synthetic/shared_prefix_datagen.py): num_groups system prompts
//     of system_prompt_len tokens (one length per group) and, per group,
//     num_prompts_per_group questions of question_len tokens, built in group order and then
//     shuffled once (rng.permutation); data index i sends prompt perm[i mod G x P], the
//     group's system prompt followed by its own question, max_tokens its output_len. A
//     stage longer than G x P requests repeats whole prompts, and every later stage sends
//     the same prompts in the same order again: their blocks are in the prefix cache if it
//     still holds them;
//   - random (datagen/synthetic/random_datagen.py) and synthetic (synthetic_datagen.py):
//     input and output lengths drawn once (generate_distribution) and indexed by data
//     index, so request i of every stage has the same lengths; the text is fresh random
//     tokens (random) or a corpus slice at a random offset (synthetic), shared with no
//     other request.
// Content keys are per class, so another class never shares these prompts' blocks.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/benchmark/inference_perf_config.h"
#include "sim/workload/block_hashing.h"
#include "sim/workload/source.h"

namespace servesim {

class InferencePerfConfigSource : public RequestSource {
 public:
  // `only_stage`: replay that stage alone, from time 0. Random streams:
  // "workload/<class_name>/arrival/<stage>" (schedules), ".../prompts" (shared-prefix lengths and
  // order), ".../input", ".../output" (random and synthetic lengths). Throws ConfigError
  // (load.path, stage's line, "load.stages") for a stage index the file does not have.
  InferencePerfConfigSource(InferencePerfLoad load, std::optional<int> only_stage, const std::string& class_name,
                            int class_index, std::uint64_t seed, std::int64_t block_tokens);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  void on_finished(const RequestSpec& request, Tick now_ns) override;
  bool exhausted() override;
  std::uint64_t raised_input_samples() const override { return raised_; }

  // The shared_prefix prompt data index i sends: its group and its place in the group (in
  // the order they were built), and its lengths. REQUIRES: data type shared_prefix.
  struct SharedPrefixPrompt {
    std::int64_t group = 0;
    std::int64_t member = 0;
    std::int64_t prefix_tokens = 0;
    std::int64_t question_tokens = 0;
    std::int64_t output_tokens = 0;
  };
  SharedPrefixPrompt shared_prefix_prompt(std::int64_t data_index) const;
  // Requests the replayed stages send in all.
  std::int64_t total_requests() const { return total_requests_; }

 private:
  // Due times of one stage, drawn as the stage's timer draws them (seconds from its origin).
  class Schedule {
   public:
    Schedule() = default;
    Schedule(InferencePerfLoad::LoadType type, double rate_per_s, double duration_s, Rng rng);
    // The next due time. REQUIRES: fewer calls than the stage's requests.
    double next_s();

   private:
    // A ConstantLoadTimer(n, duration) from `start_s`: the n exponential gaps are drawn
    // twice from the same stream, first (from a copy) to sum them, then to place them.
    void begin_spread(std::int64_t n, double start_s, double duration_s);

    bool poisson_ = false;
    double rate_per_s_ = 0;
    Rng rng_{0};
    std::int64_t spread_left_ = 0;
    double spread_scale_ = 0;   // seconds per unit of drawn gap
    double spread_start_s_ = 0;
    double spread_sum_ = 0;     // gaps placed so far, in drawn units
    double spread_at_s_ = 0;    // time of the last placed request
    double window_s_ = 0;       // poisson: start of the next window
  };

  void start_stage(std::size_t stage, Tick origin_ns);
  bool ready();  // moves past finished stages; false if nothing can be offered now

  InferencePerfLoad load_;
  std::vector<std::size_t> stages_;  // indices into load_.stages, in run order
  int class_index_;
  std::int64_t block_tokens_;
  std::string arrival_stream_;      // + "/<stage>": each stage's schedule draws its own stream
  std::uint64_t seed_;
  Rng input_start_, output_start_;   // random/synthetic: restarted at each stage
  Rng input_rng_{0}, output_rng_{0};
  std::uint64_t content_base_;

  // shared_prefix prompts, in the order they are handed out.
  std::vector<std::int64_t> system_tokens_;    // per group
  std::vector<std::int64_t> order_;            // data index mod G x P -> built prompt (g x P + m)
  std::vector<std::int64_t> question_tokens_;  // per built prompt
  std::vector<std::int64_t> output_tokens_;    // per built prompt

  std::size_t stage_ = 0;    // index into stages_
  std::int64_t next_ = 0;    // next request (= data index) of the stage
  std::int64_t count_ = 0;   // requests of the stage
  std::optional<std::int64_t> cap_;
  Tick origin_ns_ = 0;
  Schedule schedule_;
  std::optional<Tick> due_ns_;  // the next request's scheduled time, once drawn
  Tick not_before_ns_ = 0;      // a slot freed at this time after the cap was reached
  Tick last_finish_ns_ = 0;
  std::int64_t in_flight_ = 0;
  std::int64_t total_requests_ = 0;
  std::int64_t popped_ = 0;
  std::uint64_t raised_ = 0;
  std::vector<ContentRun> runs_;  // reused
};

}  // namespace servesim
