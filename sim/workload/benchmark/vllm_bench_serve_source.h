#pragma once
// The load a `vllm bench serve` command line sends (vllm_bench_args.h), as one workload
// class: the prompts its dataset builds, with the sharing between them that a prefix cache
// sees, sent on the tool's schedule. Facts from vllm/benchmarks (docs/workload.md, "vllm
// bench serve command lines"):
//
// Prompts (every prompt starts with `special_tokens` tokens the server's tokenizer adds, the
// same in every request):
//   random (datasets/random.py RandomDataset.sample, get_sampling_params): one prefix of
//     random_prefix_len tokens, drawn once and shared by every request; then input tokens
//     of the request's own, their count drawn uniformly from the integers
//     [floor(L (1 - r)), ceil(L (1 + r))], L = random_input_len - special_tokens (at least
//     0), r = random_range_ratio; outputs from [max(1, floor(O (1 - r))), max(1,
//     ceil(O (1 + r)))]. The request's tokens are the vocabulary from a random offset on, so
//     two requests share nothing after the prefix (unless two offsets coincide, about
//     N^2 / (2 x vocab) pairs of a run: not modelled).
//   prefix_repetition (datasets/prefix_repetition.py): num_prefixes prefixes of prefix_len
//     tokens, each followed in num_prompts // num_prefixes requests by suffix_len tokens of
//     their own (so num_prefixes x (num_prompts // num_prefixes) requests in all); the
//     list is then shuffled (random.shuffle) unless --disable-shuffle. Output: output_len.
//   sharegpt (datasets/sharegpt.py): the lengths file's rows, shuffled unless
//     --disable-shuffle, kept while prompt >= 4, output >= 4 (not checked when
//     --sharegpt-output-len replaces the outputs), prompt <= 1024 and prompt + output <=
//     2048 (datasets/utils.py is_valid_sequence), the first num_prompts of them; fewer are
//     topped up with random repeats (the same prompt again) unless --no-oversample. The
//     file's prompt lengths already include the tokenizer's special tokens.
//
// Schedule (serve.py benchmark, get_request), phase after phase, each phase starting when
// the previous one's last request finished:
//   - ready check (ready_check_timeout_sec > 0): the first prompt, once, at t = 0;
//   - warm-up (num_warmups > 0): that many copies of the first prompt, all at once;
//   - the run: request i waits a gap after request i-1 (the first after the start): 0 at
//     rate inf, 1/rate at burstiness inf, else gamma(shape = burstiness, scale =
//     1/(rate x burstiness)); without ramp-up the sum is scaled so the last request goes
//     at N/rate. Ramp-up: request i's rate is start + (end - start) x i/(N-1) (linear) or
//     start x (end/start)^(i/(N-1)) (exponential), not rescaled.
//   max_concurrency c (warm-up and run): at most c requests in flight; a request due while
//   c are in flight goes when one finishes, in order (vllm's asyncio.Semaphore).
// Ready-check and warm-up requests are requests of the class like the others (the server
// counts them, and they fill its prefix cache).
// Draws come from servesim's seeded Rng, streams "workload/<class>/input", ".../output",
// ".../order" and ".../arrival" of the run seed mixed with --seed: the tool's distributions,
// never numpy's exact numbers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/benchmark/staged_sends.h"
#include "sim/workload/benchmark/vllm_bench_args.h"
#include "sim/workload/block_hashing.h"
#include "sim/workload/source.h"

namespace servesim {

// An integer interval [low, high], both included.
struct TokenInterval {
  std::int64_t low = 0;
  std::int64_t high = 0;
};

// random: the intervals the input (without prefix and special tokens) and output lengths
// are drawn from.
TokenInterval vllm_bench_random_input_interval(const VllmBenchServeArgs& args);
TokenInterval vllm_bench_random_output_interval(const VllmBenchServeArgs& args);

// One prompt the tool sends: what it is made of (block_hashing.h) and its output length.
struct VllmBenchPrompt {
  std::vector<ContentRun> runs;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
};

// The prompts of the run in send order. Content keys are private to `class_name`. Throws
// ConfigError (file: the lengths file) for a lengths file that cannot be read.
std::vector<VllmBenchPrompt> vllm_bench_prompts(const VllmBenchServeArgs& args, const std::string& class_name,
                                                std::uint64_t seed);

// Send times of the run's `count` requests in seconds from the run's start (get_request).
std::vector<double> vllm_bench_send_offsets_s(const VllmBenchServeArgs& args, std::size_t count, Rng& rng);

class VllmBenchServeSource : public RequestSource {
 public:
  VllmBenchServeSource(const VllmBenchServeArgs& args, const std::string& class_name, int class_index,
                       std::uint64_t seed, std::int64_t block_tokens);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  void on_finished(const RequestSpec& request, Tick now_ns) override;
  bool exhausted() override { return sends_.exhausted(); }

  // Requests of the benchmark run itself (without ready check and warm-ups).
  std::int64_t run_requests() const { return run_requests_; }
  // Requests in all: ready check + warm-ups + run.
  std::int64_t total_requests() const { return sends_.total(); }

 private:
  std::vector<VllmBenchPrompt> prompts_;
  int class_index_;
  std::int64_t block_tokens_;
  StagedSends<std::size_t> sends_;  // the phases, each send an index into prompts_
  std::int64_t run_requests_ = 0;
};

}  // namespace servesim
