#pragma once
// Multi-turn sessions: conversations and agent loops (a class's `session:` block,
// docs/prefix-caching.md, "Sessions"). The class's arrivals start sessions: an open-loop
// process (poisson, gamma, constant) starts one per arrival; a closed loop has
// `concurrency` users, each running one session after another with the class's
// think_time between them. Within a session:
//   turn 1's prompt is the class's prompt (its `prompt:` structure, or `input` tokens of
//     content private to the session);
//   turn k+1's prompt is turn k's prompt + turn k's output + new_input tokens, and it
//     arrives when turn k completes (or is rejected) plus session.think_time;
//   with max_history_tokens, whole oldest exchanges (an output and the new input after it)
//     are dropped until the prompt fits; turn 1's prompt and the newest exchange always stay.
// Every piece of a session (turn 1's prompt, each output, each new input) is content of its
// own, so the block hashes of turn k+1 extend those of turn k over its prompt and output:
// turn k+1 can hit everything turn k computed, (prompt + output - 1) rounded down to
// blocks, until truncation shifts the history and breaks the chain.
#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/block_hashing.h"
#include "sim/workload/distribution.h"
#include "sim/workload/prompt_structure.h"
#include "sim/workload/source.h"

namespace servesim {

struct SessionSourceParts {
  std::string class_name;
  int class_index = 0;
  std::int64_t block_tokens = 16;
  // Session starts: `starts` for open loop, else `users` >= 1 with `user_think_s` (may be null).
  std::unique_ptr<ArrivalProcess> starts;
  int users = 0;
  std::unique_ptr<Distribution> user_think_s;
  // Turn 1's prompt: `prompt` if set, else `input` tokens.
  std::optional<PromptGenerator> prompt;
  std::unique_ptr<Distribution> input;
  std::unique_ptr<Distribution> output;
  std::unique_ptr<Distribution> turns;
  std::unique_ptr<Distribution> think_s;  // between turns; may be null
  std::unique_ptr<Distribution> new_input;
  std::optional<std::int64_t> max_history_tokens;
};

class SessionSource : public RequestSource {
 public:
  // Random streams "workload/<class>/" + arrival, input, output, turns, session_think,
  // new_input and think (between a closed-loop user's sessions).
  SessionSource(SessionSourceParts parts, std::uint64_t seed);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  void on_finished(const RequestSpec& request, Tick now_ns) override;
  bool exhausted() override { return false; }  // synthetic: the run's stop ends it
  std::uint64_t raised_input_samples() const override;

  // Sessions begun but not ended (for tests).
  std::size_t active_sessions() const { return active_.size(); }

 private:
  struct Session {
    int turn = 0;   // turns issued so far
    int turns = 1;  // turns in all
    std::vector<ContentRun> first;    // turn 1's prompt
    std::vector<ContentRun> history;  // outputs and new inputs since, oldest first
    std::int64_t last_output = 0;     // output tokens of the last turn issued
  };
  // (ready time, order of scheduling, session id): follow-up turns, earliest first.
  using Ready = std::tuple<Tick, std::uint64_t, std::uint64_t>;

  std::optional<Tick> next_start_ns();
  RequestSpec start_session(Tick arrival_ns);
  RequestSpec next_turn(std::uint64_t session_id, Tick arrival_ns);
  // `input_clamped`: the length drawn for this turn's prompt (turn 1's prompt, a later
  // turn's new input) was clamped (draw_tokens).
  RequestSpec make_request(std::uint64_t session_id, Session& s, Tick arrival_ns, bool input_clamped);
  Tick sample_pause_ns(const std::unique_ptr<Distribution>& d, Rng& rng);

  SessionSourceParts p_;
  Rng arrival_rng_, input_rng_, output_rng_, turns_rng_, think_rng_, new_input_rng_, user_think_rng_;
  std::uint64_t key_base_;
  double clock_s_ = 0;                 // open loop: last session start drawn
  std::optional<Tick> drawn_start_ns_; // open loop: drawn, not yet used
  std::priority_queue<Tick, std::vector<Tick>, std::greater<Tick>> users_ready_;  // closed loop
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
  std::uint64_t ready_seq_ = 0;
  std::uint64_t sessions_started_ = 0;
  std::uint64_t raised_inputs_ = 0;
  std::unordered_map<std::uint64_t, Session> active_;
  std::vector<ContentRun> runs_;  // reused
};

}  // namespace servesim
