#include "sim/workload/session_source.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/workload/sampled_lengths.h"

namespace servesim {
namespace {

std::string stream(const std::string& class_name, const char* what) { return "workload/" + class_name + "/" + what; }

// Content kinds of a session, each with its own key space.
enum : std::uint64_t { kFirstInput = 1, kOutput = 2, kNewInput = 3 };

}  // namespace

SessionSource::SessionSource(SessionSourceParts parts, std::uint64_t seed)
    : p_(std::move(parts)),
      arrival_rng_(seed, stream(p_.class_name, "arrival")),
      input_rng_(seed, stream(p_.class_name, "input")),
      output_rng_(seed, stream(p_.class_name, "output")),
      turns_rng_(seed, stream(p_.class_name, "turns")),
      think_rng_(seed, stream(p_.class_name, "session_think")),
      new_input_rng_(seed, stream(p_.class_name, "new_input")),
      user_think_rng_(seed, stream(p_.class_name, "think")),
      key_base_(hash_combine(stable_hash("session"), stable_hash(p_.class_name))) {
  SS_ASSERT(p_.starts != nullptr || p_.users >= 1, "sessions need an arrival process or users");
  SS_ASSERT(p_.prompt.has_value() || p_.input != nullptr, "sessions need a first prompt");
  SS_ASSERT(p_.output && p_.turns && p_.new_input && p_.block_tokens >= 1, "session parts");
  for (int u = 0; u < p_.users; ++u) users_ready_.push(0);
}

std::uint64_t SessionSource::raised_input_samples() const {
  return raised_inputs_ + (p_.prompt ? p_.prompt->raised_prompts() : 0);
}

Tick SessionSource::sample_pause_ns(const std::unique_ptr<Distribution>& d, Rng& rng) {
  if (!d) return 0;
  // Negative draws (a normal) mean no pause; a pause is capped at a year so it fits a Tick.
  constexpr double kMaxPauseS = 365.0 * 24 * 3600;
  const double s = d->sample(rng);
  return s > 0 ? ticks_from_seconds(std::fmin(s, kMaxPauseS)) : 0;
}

std::optional<Tick> SessionSource::next_start_ns() {
  if (p_.starts) {
    if (!drawn_start_ns_) {
      clock_s_ += p_.starts->next_gap_s();
      drawn_start_ns_ = ticks_from_seconds(clock_s_);
    }
    return drawn_start_ns_;
  }
  if (users_ready_.empty()) return std::nullopt;
  return users_ready_.top();
}

std::optional<Tick> SessionSource::peek_arrival_ns() {
  const std::optional<Tick> start = next_start_ns();
  if (ready_.empty()) return start;
  const Tick turn = std::get<0>(ready_.top());
  return start ? std::min(*start, turn) : turn;
}

RequestSpec SessionSource::pop() {
  const std::optional<Tick> at = peek_arrival_ns();
  SS_ASSERT(at.has_value(), "pop() without an arrival to offer");
  // A follow-up turn goes first when it is due at the same time as a new session.
  if (!ready_.empty() && std::get<0>(ready_.top()) == *at) {
    const std::uint64_t id = std::get<2>(ready_.top());
    ready_.pop();
    return next_turn(id, *at);
  }
  return start_session(*at);
}

RequestSpec SessionSource::start_session(Tick arrival_ns) {
  if (p_.starts) {
    drawn_start_ns_.reset();
  } else {
    users_ready_.pop();
  }
  const std::uint64_t id = ++sessions_started_;
  Session& s = active_[id];
  s.turns = static_cast<int>(std::min<std::int64_t>(round_token_count(p_.turns->sample(turns_rng_), 1), 1'000'000));
  bool clamped = false;
  if (p_.prompt) {
    p_.prompt->next(s.first);
    clamped = p_.prompt->last_clamped();
  } else {
    const DrawnTokens first = draw_tokens(*p_.input, input_rng_, 1);
    if (first.raised) ++raised_inputs_;
    clamped = first.clamped;
    s.first.push_back({hash_combine(hash_combine(key_base_, kFirstInput), id), 0, first.tokens});
  }
  return make_request(id, s, arrival_ns, clamped);
}

RequestSpec SessionSource::next_turn(std::uint64_t id, Tick arrival_ns) {
  const auto it = active_.find(id);
  SS_ASSERT(it != active_.end(), "a follow-up turn of an ended session");
  Session& s = it->second;
  const std::uint64_t turn_key = hash_combine(id, static_cast<std::uint64_t>(s.turn));
  s.history.push_back({hash_combine(hash_combine(key_base_, kOutput), turn_key), 0, s.last_output});
  const DrawnTokens fresh = draw_tokens(*p_.new_input, new_input_rng_, 0);
  const std::uint64_t next_key = hash_combine(id, static_cast<std::uint64_t>(s.turn + 1));
  s.history.push_back({hash_combine(hash_combine(key_base_, kNewInput), next_key), 0, fresh.tokens});
  if (p_.max_history_tokens) {
    // Whole exchanges (an output and the input after it) leave from the oldest end.
    const std::int64_t first = total_tokens(s.first);
    while (s.history.size() > 2 && first + total_tokens(s.history) > *p_.max_history_tokens)
      s.history.erase(s.history.begin(), s.history.begin() + 2);
  }
  return make_request(id, s, arrival_ns, fresh.clamped);
}

RequestSpec SessionSource::make_request(std::uint64_t id, Session& s, Tick arrival_ns, bool input_clamped) {
  s.turn += 1;
  const DrawnTokens output = draw_tokens(*p_.output, output_rng_, 0);
  s.last_output = output.tokens;
  runs_.assign(s.first.begin(), s.first.end());
  runs_.insert(runs_.end(), s.history.begin(), s.history.end());
  RequestSpec request;
  request.class_index = p_.class_index;
  request.arrival_ns = arrival_ns;
  request.prompt_tokens = std::max<std::int64_t>(total_tokens(runs_), 1);
  request.output_tokens = s.last_output;
  request.input_clamped = input_clamped;
  request.output_clamped = output.clamped;
  request.session_id = id;
  request.turn = s.turn;
  // The output is content the next turn repeats: hash it too, so the blocks the engine
  // computes while decoding are hits for the next turn.
  const std::uint64_t turn_key = hash_combine(id, static_cast<std::uint64_t>(s.turn));
  runs_.push_back({hash_combine(hash_combine(key_base_, kOutput), turn_key), 0, s.last_output});
  request.block_hashes = chained_block_hashes(runs_, p_.block_tokens);
  return request;
}

void SessionSource::on_finished(const RequestSpec& request, Tick now_ns) {
  const auto it = active_.find(request.session_id);
  if (it == active_.end()) return;
  Session& s = it->second;
  if (s.turn < s.turns) {
    ready_.emplace(now_ns + sample_pause_ns(p_.think_s, think_rng_), ready_seq_++, request.session_id);
    return;
  }
  active_.erase(it);
  if (!p_.starts) users_ready_.push(now_ns + sample_pause_ns(p_.user_think_s, user_think_rng_));
}

}  // namespace servesim
