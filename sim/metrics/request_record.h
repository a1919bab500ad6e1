#pragma once
// Everything the metrics keep about one request, handed over once when it leaves the
// system (completed, rejected, or still in flight when the run stopped).
#include <cstdint>
#include <string>

#include "sim/core/time.h"
#include "sim/engine/request_accounting.h"

namespace servesim {

enum class Outcome { completed, rejected, unfinished };

struct RequestRecord {
  std::uint64_t id = 0;
  int class_index = 0;
  int pool_index = -1;             // -1 if never routed
  int replica_index = -1;
  Outcome outcome = Outcome::completed;
  const char* reject_reason = "";  // static string, set when rejected
  Tick arrival_ns = 0;
  Tick first_scheduled_ns = -1;    // first step that computed any of its tokens
  Tick first_token_ns = -1;        // -1: no token (output 0, rejected, unfinished)
  Tick finish_ns = -1;
  Tick frontend_ns = 0;            // engine overheads.frontend in first_token_ns and finish_ns
  std::int64_t spec_accepted_tokens = 0;  // speculative tokens that came in a step's chunk
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;       // target length
  std::int64_t output_tokens_done = 0;  // tokens actually produced
  std::int64_t cached_prompt_tokens = 0;  // prompt tokens served from the prefix cache
  std::int64_t tier_hit_tokens[2] = {0, 0};  // of those, loaded from CPU / disk (kv_tiers.h)
  int preemptions = 0;
  Tick preempted_ns = 0;                // time lost to preemptions (docs/engine.md)
  std::int64_t truncated_tokens = 0;    // cut by on_context_overflow: truncate (0: none)
  Tick kv_transfer_ns = 0;              // part of TTFT spent moving KV prefill -> decode
  std::uint64_t session_id = 0;
  int turn = 0;
  // Where its time went and the GPU time it used (request_accounting.h); meaningful for
  // completed requests.
  RequestAccounting acct;
  double cost_usd = 0;  // its GPU time at its pool's price; set by MetricsRecorder
  bool warmup = false;  // within the run's warm-up, so in no summary figure; set by MetricsRecorder
  bool input_clamped = false;   // its drawn prompt length was clamped (RequestSpec::input_clamped)
  bool output_clamped = false;  // its drawn output length was clamped

  Tick queue_ns() const { return first_scheduled_ns >= 0 ? first_scheduled_ns - arrival_ns : -1; }
  Tick ttft_ns() const { return first_token_ns >= 0 ? first_token_ns - arrival_ns : -1; }
  Tick e2el_ns() const { return finish_ns >= 0 ? finish_ns - arrival_ns : -1; }
  // Time per output token after the first, vLLM's (e2el - ttft) / (output - 1), rounded
  // down to a nanosecond; -1 when fewer than two tokens or not finished.
  Tick tpot_ns() const {
    if (output_tokens_done < 2 || finish_ns < 0 || first_token_ns < 0) return -1;
    return (finish_ns - first_token_ns) / (output_tokens_done - 1);
  }
};

struct RequestState;

// The one place a request's record is built from its engine state: when it completes
// (`now_ns` its last step's end, `frontend_ns` the front end's latency the client sees on
// top), is rejected (the caller sets reject_reason), or is still inside at the run's end
// (unfinished: no finish, no parts). A request refused before any replica is a fresh
// state and gets an empty record but for its spec.
RequestRecord make_request_record(const RequestState& request, Outcome outcome, Tick now_ns, Tick frontend_ns = 0);

}  // namespace servesim
