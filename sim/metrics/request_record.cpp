#include "sim/metrics/request_record.h"

#include "sim/engine/request_state.h"

namespace servesim {

RequestRecord make_request_record(const RequestState& r, Outcome outcome, Tick now_ns, Tick frontend_ns) {
  RequestRecord rec;
  rec.id = r.spec.id;
  rec.class_index = r.spec.class_index;
  rec.pool_index = r.pool_index;
  rec.replica_index = r.replica_index;
  rec.outcome = outcome;
  rec.arrival_ns = r.spec.arrival_ns;
  rec.first_scheduled_ns = r.first_scheduled_ns;
  rec.first_token_ns = r.first_token_ns;
  rec.finish_ns = outcome == Outcome::unfinished ? -1 : now_ns;
  rec.prompt_tokens = r.spec.prompt_tokens;
  rec.output_tokens = r.spec.output_tokens;
  rec.output_tokens_done = r.num_output_done;
  rec.cached_prompt_tokens = r.cached_prompt_tokens;
  rec.tier_hit_tokens[0] = r.tier_hit_tokens[0];
  rec.tier_hit_tokens[1] = r.tier_hit_tokens[1];
  rec.preemptions = r.preemptions;
  rec.preempted_ns = r.preempted_ns + (r.preempted_at_ns >= 0 ? now_ns - r.preempted_at_ns : 0);
  rec.truncated_tokens = r.truncated_tokens;
  rec.input_clamped = r.spec.input_clamped;
  rec.output_clamped = r.spec.output_clamped;
  rec.kv_transfer_ns = r.kv_transfer_ns;
  rec.spec_accepted_tokens = r.spec_accepted_tokens;
  rec.session_id = r.spec.session_id;
  rec.turn = r.spec.turn;
  // An unfinished request's parts stop wherever its last step left them and its GPU time
  // is not a finished answer's cost: it keeps none (requests.csv leaves them empty).
  if (outcome != Outcome::unfinished) rec.acct = r.acct;
  // The front end (API server, tokenisation, IPC, detokenisation and streaming) adds its
  // latency to what the client sees, outside the engine: every token reaches the client
  // that much later, so TTFT and E2E grow by it and the gaps between tokens do not. It is
  // a TTFT part of its own (`frontend`), kept here rather than in the engine's parts.
  if (frontend_ns > 0 && outcome == Outcome::completed) {
    if (rec.first_token_ns >= 0) rec.first_token_ns += frontend_ns;
    rec.finish_ns += frontend_ns;
    rec.frontend_ns = frontend_ns;
  }
  return rec;
}

}  // namespace servesim
