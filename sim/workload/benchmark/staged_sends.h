#pragma once
// The sends of a benchmark tool's client, stage by stage (inference-perf's and GuideLLM's
// load stages, vllm bench serve's ready check, warm-ups and run): each send's time from its
// stage's start and its `Item` (what the source turns into the request). A tool runs a
// stage to its end before the next starts, and the next stage's send times count from that
// last finish; a stage's cap holds back a send while that many requests are out.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/time.h"

namespace servesim {

template <typename Item>
class StagedSends {
 public:
  struct Send {
    Tick offset_ns = 0;  // from the start of its stage
    Item item{};
  };
  struct Stage {
    std::vector<Send> sends;          // in send order
    std::optional<std::int64_t> cap;  // most requests in flight
  };

  void add_stage(Stage stage) {
    total_ += static_cast<std::int64_t>(stage.sends.size());
    stages_.push_back(std::move(stage));
  }

  // The next send's time, or none: every stage sent, the current one's last requests not
  // yet back, or the cap reached (the send waits for a slot; finished() frees one, and its
  // time may then lie in the past: the simulation sends it at once).
  std::optional<Tick> peek_arrival_ns() {
    if (!ready()) return std::nullopt;
    const Stage& s = stages_[stage_];
    if (s.cap && in_flight_ >= *s.cap) return std::nullopt;
    return stage_start_ns_ + s.sends[next_].offset_ns;
  }
  // The next send's time and item. REQUIRES: peek_arrival_ns() has a value.
  std::pair<Tick, Item> pop() {
    const std::optional<Tick> arrival_ns = peek_arrival_ns();
    SS_ASSERT(arrival_ns.has_value(), "pop() without an arrival to offer");
    const Item& item = stages_[stage_].sends[next_].item;
    ++next_;
    ++in_flight_;
    ++sent_;
    return {*arrival_ns, item};
  }
  // A request came back at `now_ns`.
  void finished(Tick now_ns) {
    SS_ASSERT(in_flight_ > 0, "on_finished without a request in flight");
    --in_flight_;
    last_finish_ns_ = std::max(last_finish_ns_, now_ns);
  }

  std::int64_t total() const { return total_; }  // sends over every stage
  bool exhausted() const { return sent_ == total_; }

 private:
  // Moves past stages whose requests are all sent, once their last one is back; whether
  // the current stage has a request left to send.
  bool ready() {
    while (stage_ < stages_.size() && next_ == stages_[stage_].sends.size()) {
      if (stage_ + 1 == stages_.size()) return false;
      if (in_flight_ > 0) return false;
      ++stage_;
      next_ = 0;
      stage_start_ns_ = last_finish_ns_;
    }
    return stage_ < stages_.size();
  }

  std::vector<Stage> stages_;
  std::size_t stage_ = 0;  // the current stage
  std::size_t next_ = 0;   // its next send
  Tick stage_start_ns_ = 0;
  Tick last_finish_ns_ = 0;
  std::int64_t in_flight_ = 0;
  std::int64_t sent_ = 0;
  std::int64_t total_ = 0;
};

}  // namespace servesim
