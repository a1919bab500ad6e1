// The requests of an inference-perf config (inference_perf_config_source.h).
#include "sim/workload/benchmark/inference_perf_config_source.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/workload/benchmark/inference_perf_lengths.h"

namespace servesim {

// --- Schedule ---

InferencePerfConfigSource::Schedule::Schedule(InferencePerfLoad::LoadType type, double rate_per_s, double duration_s,
                                              Rng rng)
    : poisson_(type == InferencePerfLoad::LoadType::poisson), rate_per_s_(rate_per_s), rng_(rng) {
  if (poisson_) return;  // windows begin as they are needed
  // ConstantLoadTimer(rate, duration): int(rate x duration) gaps over `duration`; for the
  // concurrent type main.py has set rate = num_requests and duration = 1.
  begin_spread(static_cast<std::int64_t>(rate_per_s * duration_s), 0.0, duration_s);
}

void InferencePerfConfigSource::Schedule::begin_spread(std::int64_t n, double start_s, double duration_s) {
  // intervals = exponential(1 / rate, n); scaled by duration / sum. The mean cancels in the
  // scaling, so unit-mean gaps give the same times.
  Rng copy = rng_;
  double total = 0;
  for (std::int64_t i = 0; i < n; ++i) total += copy.exponential(1.0);
  spread_left_ = n;
  spread_scale_ = total > 0 ? duration_s / total : 0;
  spread_at_s_ = start_s;
  spread_sum_ = 0;
  spread_start_s_ = start_s;
}

double InferencePerfConfigSource::Schedule::next_s() {
  while (spread_left_ == 0) {
    SS_ASSERT(poisson_, "more requests than the stage's schedule");
    // PoissonLoadTimer.start_timer: req_count = poisson(rate) for the next second; none:
    // the second passes empty; else ConstantLoadTimer(req_count, 1.0) from the window start.
    const std::int64_t c = poisson_count(rate_per_s_, rng_);
    if (c < 1) {
      window_s_ += 1.0;
      continue;
    }
    begin_spread(c, window_s_, 1.0);
    window_s_ += 1.0;  // its last request lands at the window's end, where the next begins
  }
  // Partial sums of the same gaps in the same order as the total, so the last is the total.
  spread_sum_ += rng_.exponential(1.0);
  --spread_left_;
  spread_at_s_ = spread_start_s_ + spread_sum_ * spread_scale_;
  return spread_at_s_;
}

// --- InferencePerfConfigSource ---

InferencePerfConfigSource::InferencePerfConfigSource(InferencePerfLoad load, std::optional<int> only_stage,
                                                     const std::string& class_name, int class_index,
                                                     std::uint64_t seed, std::int64_t block_tokens)
    : load_(std::move(load)),
      class_index_(class_index),
      block_tokens_(block_tokens),
      arrival_stream_("workload/" + class_name + "/arrival/"),
      seed_(seed),
      input_start_(seed, "workload/" + class_name + "/input"),
      output_start_(seed, "workload/" + class_name + "/output"),
      content_base_(hash_combine(stable_hash("inference-perf"), stable_hash(class_name))) {
  SS_ASSERT(!load_.stages.empty(), "an inference-perf load without stages");
  if (only_stage) {
    if (*only_stage < 0 || static_cast<std::size_t>(*only_stage) >= load_.stages.size()) {
      throw ConfigError(load_.path, load_.stages.front().line, "load.stages",
                        "the config has " + std::to_string(load_.stages.size()) + " stage(s), 0 to " +
                            std::to_string(load_.stages.size() - 1) + "; trace.stage is " +
                            std::to_string(*only_stage));
    }
    stages_.push_back(static_cast<std::size_t>(*only_stage));
  } else {
    for (std::size_t s = 0; s < load_.stages.size(); ++s) stages_.push_back(s);
  }
  for (std::size_t s : stages_) total_requests_ += load_.requests_of_stage(s);

  if (load_.data_type == InferencePerfLoad::DataType::shared_prefix) {
    // SharedPrefixDataGenerator.__init__: one system prompt length per group, then per
    // group its questions' and outputs' lengths; _generate_prompts builds the prompts
    // group by group and shuffles them once.
    Rng rng(seed, "workload/" + class_name + "/prompts");
    const std::int64_t groups = load_.num_groups, per_group = load_.prompts_per_group;
    system_tokens_.resize(static_cast<std::size_t>(groups));
    for (auto& t : system_tokens_) t = shared_prefix_length(load_.system_prompt, rng);
    question_tokens_.resize(static_cast<std::size_t>(groups * per_group));
    output_tokens_.resize(question_tokens_.size());
    for (std::int64_t g = 0; g < groups; ++g) {
      for (std::int64_t m = 0; m < per_group; ++m)
        question_tokens_[static_cast<std::size_t>(g * per_group + m)] = shared_prefix_length(load_.question, rng);
      for (std::int64_t m = 0; m < per_group; ++m)
        output_tokens_[static_cast<std::size_t>(g * per_group + m)] = shared_prefix_length(load_.output, rng);
    }
    // rng.permutation: a uniform shuffle (Fisher-Yates).
    order_.resize(question_tokens_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::int64_t>(i);
    for (std::size_t i = order_.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i) - 1));
      std::swap(order_[i - 1], order_[j]);
    }
  }
  start_stage(0, 0);
}

void InferencePerfConfigSource::start_stage(std::size_t stage, Tick origin_ns) {
  stage_ = stage;
  const std::size_t s = stages_[stage];
  const InferencePerfStage& spec = load_.stages[s];
  count_ = load_.requests_of_stage(s);
  cap_ = load_.cap_of_stage(s);
  next_ = 0;
  origin_ns_ = origin_ns;
  not_before_ns_ = origin_ns;
  due_ns_.reset();
  const bool concurrent = load_.load_type == InferencePerfLoad::LoadType::concurrent;
  schedule_ = Schedule(load_.load_type, concurrent ? static_cast<double>(spec.num_requests) : spec.rate_per_s,
                       concurrent ? 1.0 : static_cast<double>(spec.duration_s),
                       Rng(seed_, arrival_stream_ + std::to_string(s)));
  // get_data() restarts at data index 0: the random/synthetic lengths repeat per stage.
  input_rng_ = input_start_;
  output_rng_ = output_start_;
}

bool InferencePerfConfigSource::ready() {
  while (next_ == count_) {
    if (stage_ + 1 == stages_.size()) return false;
    if (in_flight_ > 0) return false;  // the stage waits for its last request
    // run_stage polls from R = origin - 1 s every second until all have finished; then
    // mp_run sleeps `interval`; the next run_stage's origin is 1 s after it starts.
    const Tick poll_start_ns = origin_ns_ - kNsPerSec;
    Tick polled_ns = 0;
    if (count_ > 0) {
      const Tick waited = std::max<Tick>(0, last_finish_ns_ - poll_start_ns);
      polled_ns = (waited + kNsPerSec - 1) / kNsPerSec * kNsPerSec;
    }
    start_stage(stage_ + 1, poll_start_ns + polled_ns + ticks_from_seconds(load_.interval_s) + kNsPerSec);
  }
  return true;
}

std::optional<Tick> InferencePerfConfigSource::peek_arrival_ns() {
  if (!ready()) return std::nullopt;
  if (cap_ && in_flight_ >= *cap_) return std::nullopt;
  if (!due_ns_) due_ns_ = origin_ns_ + ticks_from_seconds(schedule_.next_s());
  return std::max(*due_ns_, not_before_ns_);
}

InferencePerfConfigSource::SharedPrefixPrompt InferencePerfConfigSource::shared_prefix_prompt(
    std::int64_t data_index) const {
  SS_ASSERT(!order_.empty(), "shared_prefix_prompt of a config that is not shared_prefix");
  const std::int64_t built = order_[static_cast<std::size_t>(data_index % static_cast<std::int64_t>(order_.size()))];
  SharedPrefixPrompt p;
  p.group = built / load_.prompts_per_group;
  p.member = built % load_.prompts_per_group;
  p.prefix_tokens = system_tokens_[static_cast<std::size_t>(p.group)];
  p.question_tokens = question_tokens_[static_cast<std::size_t>(built)];
  p.output_tokens = output_tokens_[static_cast<std::size_t>(built)];
  return p;
}

RequestSpec InferencePerfConfigSource::pop() {
  const std::optional<Tick> arrival = peek_arrival_ns();
  SS_ASSERT(arrival.has_value(), "pop() without an arrival to offer");
  const std::int64_t data_index = next_++;
  due_ns_.reset();
  ++in_flight_;
  ++popped_;
  RequestSpec r;
  r.class_index = class_index_;
  r.arrival_ns = *arrival;
  runs_.clear();
  if (load_.data_type == InferencePerfLoad::DataType::shared_prefix) {
    const SharedPrefixPrompt p = shared_prefix_prompt(data_index);
    const std::int64_t built = p.group * load_.prompts_per_group + p.member;
    // The group's system prompt, then the prompt's own question (load_lazy_data: prompt i
    // is decode(prefix ids + suffix ids)).
    runs_.push_back({hash_combine(content_base_, static_cast<std::uint64_t>(p.group)), 0, p.prefix_tokens});
    runs_.push_back({hash_combine(content_base_ ^ 0x1, static_cast<std::uint64_t>(built)), 0, p.question_tokens});
    r.prompt_tokens = p.prefix_tokens + p.question_tokens;
    r.output_tokens = p.output_tokens;
  } else {
    r.prompt_tokens = io_length(load_.input_dist, input_rng_);
    r.output_tokens = io_length(load_.output_dist, output_rng_);
    // Fresh random tokens, or a corpus slice at a random start: no other request's prefix.
    runs_.push_back({hash_combine(content_base_ ^ 0x2, static_cast<std::uint64_t>(popped_)), 0, r.prompt_tokens});
  }
  if (r.prompt_tokens < 1) {
    // A request needs a prompt token; the tool would send an empty prompt.
    ++raised_;
    r.input_clamped = true;
    r.prompt_tokens = 1;
    runs_.clear();
    runs_.push_back({hash_combine(content_base_ ^ 0x3, static_cast<std::uint64_t>(popped_)), 0, 1});
  }
  r.block_hashes = chained_block_hashes(runs_, block_tokens_);
  return r;
}

void InferencePerfConfigSource::on_finished(const RequestSpec& request, Tick now_ns) {
  (void)request;
  SS_ASSERT(in_flight_ > 0, "on_finished without a request in flight");
  // The request that waited for this slot goes out now (if it is already due).
  if (cap_ && in_flight_ >= *cap_) not_before_ns_ = std::max(not_before_ns_, now_ns);
  --in_flight_;
  last_finish_ns_ = std::max(last_finish_ns_, now_ns);
}

bool InferencePerfConfigSource::exhausted() { return popped_ == total_requests_; }

}  // namespace servesim
