#pragma once
// Where a benchmark tool's client stands in its stages (inference-perf's and GuideLLM's
// load stages, vllm bench serve's ready check, warm-ups and run): the current stage, its
// next request to send, the requests out, and when the last came back. A tool runs a stage
// to its end before the next starts, and the next stage's send times count from that
// last finish.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sim/core/assert.h"
#include "sim/core/time.h"

namespace servesim {

class StagedSends {
 public:
  // Moves past stages whose requests are all sent, once their last one is back; whether
  // the current stage has a request left to send. `requests_in(i)`: stage i's requests,
  // of `stages` in all.
  template <typename RequestsIn>
  bool ready(std::size_t stages, RequestsIn requests_in) {
    while (stage_ < stages && next_ == requests_in(stage_)) {
      if (stage_ + 1 == stages) return false;
      if (in_flight_ > 0) return false;
      ++stage_;
      next_ = 0;
      stage_start_ns_ = last_finish_ns_;
    }
    return stage_ < stages;
  }

  std::size_t stage() const { return stage_; }
  std::size_t next() const { return next_; }  // of the current stage
  Tick stage_start_ns() const { return stage_start_ns_; }
  std::int64_t in_flight() const { return in_flight_; }

  // The current stage's next request leaves.
  void send() {
    ++next_;
    ++in_flight_;
  }
  // A request came back at `now_ns`.
  void finished(Tick now_ns) {
    SS_ASSERT(in_flight_ > 0, "on_finished without a request in flight");
    --in_flight_;
    last_finish_ns_ = std::max(last_finish_ns_, now_ns);
  }

 private:
  std::size_t stage_ = 0;
  std::size_t next_ = 0;
  Tick stage_start_ns_ = 0;
  Tick last_finish_ns_ = 0;
  std::int64_t in_flight_ = 0;
};

}  // namespace servesim
