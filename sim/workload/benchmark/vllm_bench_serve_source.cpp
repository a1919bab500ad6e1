// VllmBenchServeSource: a vllm bench serve command line's prompts and schedule
// (vllm_bench_serve_source.h has the facts and their places in vllm/benchmarks).
#include "sim/workload/benchmark/vllm_bench_serve_source.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/workload/lengths_file.h"
#include "sim/core/time.h"

namespace servesim {
namespace {

// ShareGPT's filter (vllm/benchmarks/datasets/utils.py is_valid_sequence defaults).
constexpr std::int64_t kShareGptMinLen = 4;
constexpr std::int64_t kShareGptMaxPrompt = 1024;
constexpr std::int64_t kShareGptMaxTotal = 2048;

// Content keys: one base per class, so two classes never share content by accident.
struct Keys {
  std::uint64_t base;
  std::uint64_t special() const { return hash_combine(base, 1); }
  std::uint64_t prefix(std::int64_t index) const { return hash_combine(hash_combine(base, 2), static_cast<std::uint64_t>(index)); }
  std::uint64_t own(std::int64_t index) const { return hash_combine(hash_combine(base, 3), static_cast<std::uint64_t>(index)); }
};

std::uint64_t mixed_seed(const VllmBenchServeArgs& args, std::uint64_t seed) {
  return hash_combine(seed, static_cast<std::uint64_t>(args.seed));
}

Rng stream(const VllmBenchServeArgs& args, std::uint64_t seed, const std::string& class_name, const char* what) {
  return Rng(mixed_seed(args, seed), "workload/" + class_name + "/" + what);
}

// A prompt: the tokenizer's special tokens, then `shared` tokens of content `shared_key`
// (a prefix; none when 0), then `own` tokens of content `own_key`.
VllmBenchPrompt make_prompt(const Keys& keys, std::int64_t special, std::uint64_t shared_key, std::int64_t shared,
                            std::uint64_t own_key, std::int64_t own, std::int64_t output) {
  VllmBenchPrompt p;
  if (special > 0) p.runs.push_back({keys.special(), 0, special});
  if (shared > 0) p.runs.push_back({shared_key, 0, shared});
  if (own > 0) p.runs.push_back({own_key, 0, own});
  p.prompt_tokens = special + shared + own;
  p.output_tokens = output;
  return p;
}

// Python's random.shuffle draws differ; the permutation is uniform all the same.
template <typename T>
void shuffle(std::vector<T>& items, Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i) - 1));
    std::swap(items[i - 1], items[j]);
  }
}

std::vector<VllmBenchPrompt> random_prompts(const VllmBenchServeArgs& args, const Keys& keys, Rng& input_rng,
                                            Rng& output_rng) {
  const TokenInterval in = vllm_bench_random_input_interval(args);
  const TokenInterval out = vllm_bench_random_output_interval(args);
  std::vector<VllmBenchPrompt> prompts;
  prompts.reserve(static_cast<std::size_t>(args.num_prompts));
  for (std::int64_t i = 0; i < args.num_prompts; ++i) {
    // All input lengths are drawn before the outputs in the tool too (get_sampling_params).
    const std::int64_t own = input_rng.uniform_int(in.low, in.high);
    prompts.push_back(make_prompt(keys, args.special_tokens, keys.prefix(0), args.random_prefix_len, keys.own(i),
                                  own, 0));
  }
  for (VllmBenchPrompt& p : prompts) p.output_tokens = output_rng.uniform_int(out.low, out.high);
  return prompts;
}

std::vector<VllmBenchPrompt> prefix_repetition_prompts(const VllmBenchServeArgs& args, const Keys& keys, Rng& order_rng) {
  const std::int64_t per_prefix = args.num_prompts / args.prefix_repetition_num_prefixes;
  std::vector<VllmBenchPrompt> prompts;
  prompts.reserve(static_cast<std::size_t>(per_prefix * args.prefix_repetition_num_prefixes));
  std::int64_t serial = 0;
  for (std::int64_t p = 0; p < args.prefix_repetition_num_prefixes; ++p)
    for (std::int64_t j = 0; j < per_prefix; ++j)
      prompts.push_back(make_prompt(keys, args.special_tokens, keys.prefix(p), args.prefix_repetition_prefix_len,
                                    keys.own(serial++), args.prefix_repetition_suffix_len,
                                    args.prefix_repetition_output_len));
  if (!args.disable_shuffle) shuffle(prompts, order_rng);
  return prompts;
}

std::vector<VllmBenchPrompt> sharegpt_prompts(const VllmBenchServeArgs& args, const std::string& class_name,
                                              const Keys& keys, Rng& order_rng) {
  SS_ASSERT(!args.lengths_path.empty(), "sharegpt needs a lengths file (checked when the scenario is read)");
  LengthsFile file(args.lengths_path);
  struct Entry {
    std::int64_t row;
    TokenLengths lengths;
  };
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(file.row_count()));
  for (std::int64_t row = 0; file.has_next(); ++row) entries.push_back({row, file.next()});
  if (!args.disable_shuffle) shuffle(entries, order_rng);
  std::vector<VllmBenchPrompt> prompts;
  for (const Entry& e : entries) {
    if (static_cast<std::int64_t>(prompts.size()) >= args.num_prompts) break;
    const std::int64_t prompt = e.lengths.prompt_tokens;
    const std::int64_t output = args.sharegpt_output_len.value_or(e.lengths.output_tokens);
    const bool too_short = prompt < kShareGptMinLen || (!args.sharegpt_output_len && output < kShareGptMinLen);
    if (too_short || prompt > kShareGptMaxPrompt || prompt + output > kShareGptMaxTotal) continue;
    // The special tokens are part of the file's prompt length (the tool counts
    // tokenizer(prompt).input_ids); a prompt shorter than them is all its own.
    const std::int64_t special = std::min(args.special_tokens, prompt);
    prompts.push_back(make_prompt(keys, special, 0, 0, keys.own(e.row), prompt - special, output));
  }
  if (prompts.empty()) {
    throw ConfigError(args.lengths_path, 0, "workload." + class_name + ".vllm_bench_serve.lengths",
                      "no row passes ShareGPT's filter (prompt 4 to 1024 tokens, output at least 4, prompt + "
                      "output at most 2048): the run would send nothing");
  }
  // maybe_oversample_requests: repeats of random choices among those kept, the same prompt.
  const std::size_t kept = prompts.size();
  if (!args.no_oversample) {
    while (static_cast<std::int64_t>(prompts.size()) < args.num_prompts) {
      prompts.push_back(prompts[static_cast<std::size_t>(order_rng.uniform_int(0, static_cast<std::int64_t>(kept) - 1))]);
    }
  }
  return prompts;
}

}  // namespace

const char* vllm_bench_dataset_name(VllmBenchServeArgs::Dataset dataset) {
  switch (dataset) {
    case VllmBenchServeArgs::Dataset::random:
      return "random";
    case VllmBenchServeArgs::Dataset::prefix_repetition:
      return "prefix_repetition";
    case VllmBenchServeArgs::Dataset::sharegpt:
      return "sharegpt";
  }
  return "?";
}

TokenInterval vllm_bench_random_input_interval(const VllmBenchServeArgs& args) {
  // get_sampling_params: the special tokens count against --random-input-len; floor below,
  // ceil above, in doubles as Python computes them.
  const auto real = static_cast<double>(std::max<std::int64_t>(0, args.random_input_len - args.special_tokens));
  return {static_cast<std::int64_t>(std::floor(real * (1 - args.random_range_ratio))),
          static_cast<std::int64_t>(std::ceil(real * (1 + args.random_range_ratio)))};
}

TokenInterval vllm_bench_random_output_interval(const VllmBenchServeArgs& args) {
  const auto len = static_cast<double>(args.random_output_len);
  // At least 1 output token, as the tool ensures.
  return {std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(len * (1 - args.random_range_ratio)))),
          std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(len * (1 + args.random_range_ratio))))};
}

std::vector<VllmBenchPrompt> vllm_bench_prompts(const VllmBenchServeArgs& args, const std::string& class_name,
                                                std::uint64_t seed) {
  const Keys keys{stable_hash("vllm_bench_serve/" + class_name)};
  Rng order_rng = stream(args, seed, class_name, "order");
  switch (args.dataset) {
    case VllmBenchServeArgs::Dataset::random: {
      Rng input_rng = stream(args, seed, class_name, "input");
      Rng output_rng = stream(args, seed, class_name, "output");
      return random_prompts(args, keys, input_rng, output_rng);
    }
    case VllmBenchServeArgs::Dataset::prefix_repetition:
      return prefix_repetition_prompts(args, keys, order_rng);
    case VllmBenchServeArgs::Dataset::sharegpt:
      return sharegpt_prompts(args, class_name, keys, order_rng);
  }
  return {};
}

std::vector<double> vllm_bench_send_offsets_s(const VllmBenchServeArgs& args, std::size_t count, Rng& rng) {
  std::vector<double> offsets(count, 0.0);
  if (count == 0) return offsets;
  const bool ramp = args.ramp_up != VllmBenchServeArgs::RampUp::none;
  const auto start = static_cast<double>(args.ramp_up_start_rps);
  const auto end = static_cast<double>(args.ramp_up_end_rps);
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    double rate = args.request_rate_per_s.value_or(std::numeric_limits<double>::infinity());
    if (ramp) {
      // _get_current_request_rate: progress i / max(N - 1, 1).
      const double progress = static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(count - 1, 1));
      rate = args.ramp_up == VllmBenchServeArgs::RampUp::linear ? start + (end - start) * progress
                                                                 : start * std::pow(end / start, progress);
    }
    SS_ASSERT(rate > 0, "a request rate is positive (checked when the scenario is read)");
    if (std::isinf(rate)) {
      // delay 0
    } else if (std::isinf(args.burstiness)) {
      t += 1.0 / rate;
    } else {
      t += rng.gamma(args.burstiness, 1.0 / (rate * args.burstiness));
    }
    offsets[i] = t;
  }
  // Without ramp-up the tool rescales so the last request goes at exactly N / rate.
  if (!ramp && offsets.back() != 0) {
    const double factor = (static_cast<double>(count) / *args.request_rate_per_s) / offsets.back();
    for (double& offset : offsets) offset *= factor;
  }
  return offsets;
}

VllmBenchServeSource::VllmBenchServeSource(const VllmBenchServeArgs& args, const std::string& class_name,
                                           int class_index, std::uint64_t seed, std::int64_t block_tokens)
    : prompts_(vllm_bench_prompts(args, class_name, seed)), class_index_(class_index), block_tokens_(block_tokens) {
  SS_ASSERT(!prompts_.empty(), "a vllm bench serve run has at least one prompt");
  const std::optional<std::int64_t> cap = args.max_concurrency;
  using Phase = StagedSends<std::size_t>::Stage;
  // The ready check and the warm-ups send the first prompt, all at once.
  if (args.ready_check_timeout_s > 0) {
    Phase ready_check;
    ready_check.sends.push_back({0, 0});
    sends_.add_stage(std::move(ready_check));
  }
  if (args.num_warmups > 0) {
    Phase warmups;
    warmups.sends.assign(static_cast<std::size_t>(args.num_warmups), {0, 0});
    warmups.cap = cap;
    sends_.add_stage(std::move(warmups));
  }
  Rng arrival_rng = stream(args, seed, class_name, "arrival");
  const std::vector<double> offsets_s = vllm_bench_send_offsets_s(args, prompts_.size(), arrival_rng);
  if (offsets_s.back() > kMaxArrivalSeconds) {
    throw ConfigError("", 0, "workload." + class_name + ".vllm_bench_serve",
                      "the run's sends would span more than 9e9 s");
  }
  Phase run;
  run.cap = cap;
  for (std::size_t i = 0; i < prompts_.size(); ++i) run.sends.push_back({ticks_from_seconds(offsets_s[i]), i});
  sends_.add_stage(std::move(run));
  run_requests_ = static_cast<std::int64_t>(prompts_.size());
}

std::optional<Tick> VllmBenchServeSource::peek_arrival_ns() { return sends_.peek_arrival_ns(); }

RequestSpec VllmBenchServeSource::pop() {
  const auto [arrival_ns, index] = sends_.pop();
  const VllmBenchPrompt& prompt = prompts_[index];
  RequestSpec request;
  request.class_index = class_index_;
  request.arrival_ns = arrival_ns;
  request.prompt_tokens = prompt.prompt_tokens;
  request.output_tokens = prompt.output_tokens;
  request.block_hashes = chained_block_hashes(prompt.runs, block_tokens_);
  return request;
}

void VllmBenchServeSource::on_finished(const RequestSpec& request, Tick now_ns) {
  (void)request;
  sends_.finished(now_ns);
}

}  // namespace servesim
