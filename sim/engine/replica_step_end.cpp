// A step's end: its chunks' tokens emitted (inter-token gaps and speculation's accepted
// tokens to the MeasurementListener), preemption recovery noted, finished requests out of
// the running list and handed to the listeners, and the next step started.
#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/replica.h"

namespace servesim {
namespace {

// A run of equal inter-token gaps of one class, not yet given to the metrics: continuing
// decodes of one step all waited the same gap (the previous step), so a step's gaps come
// in a few runs. Each sketch still sees the same values in the same order, and it folds
// equal consecutive values together anyway, so the summary is bit-identical to adding
// them one by one; what is saved is a call and two sketch updates per token.
struct ItlRun {
  int class_index = -1;
  Tick gap_ns = 0;
  std::int64_t count = 0;
  void add(MeasurementListener& m, int cls, Tick gap) {
    if (count > 0 && (cls != class_index || gap != gap_ns)) flush(m);
    class_index = cls;
    gap_ns = gap;
    ++count;
  }
  void flush(MeasurementListener& m) {
    if (count > 0) m.on_token_gaps(class_index, gap_ns, count);
    count = 0;
  }
};

}  // namespace

// With many replicas a request's state is cold by its step's end (every other replica
// stepped meanwhile), and on_step_end's first touch of each was a third of a 1,024-replica
// run. The simulator calls this for the events ahead of the one it runs (WarmUp), one
// level of the chain replica -> chunk list -> request states per stage.
void Replica::warm_step_end(const void* replica, int stage) {
  // The first chunks only: a big batch's loop runs long enough for the hardware to keep
  // ahead of it, and prefetching hundreds of requests ahead slowed busy runs by 9%.
  constexpr std::size_t kChunks = 16;
  const auto& self = *static_cast<const Replica*>(replica);
  if (stage == 0) {
    const char* object = static_cast<const char*>(replica);
    for (std::size_t at = 0; at < sizeof(Replica); at += 64) __builtin_prefetch(object + at);
    return;
  }
  const std::size_t chunks = std::min(self.plan_.chunks.size(), kChunks);
  if (stage == 1) {
    const char* list = reinterpret_cast<const char*>(self.plan_.chunks.data());
    for (std::size_t at = 0; at < chunks * sizeof(ScheduledChunk); at += 64) __builtin_prefetch(list + at);
    return;
  }
  for (std::size_t i = 0; i < chunks; ++i) {
    // The lines of RequestState a step's end reads: its counters and its attribution.
    const char* state = reinterpret_cast<const char*>(self.plan_.chunks[i].request);
    static_assert(sizeof(RequestState) >= 256);
    for (int line = 0; line < 4; ++line) __builtin_prefetch(state + 64 * line, 1);
  }
}

void Replica::on_step_end() {
  const Tick now = sim_.now();
  end_step_counts(now);
  bool any_finished = false;
  ItlRun itl;
  // The API server streams this step's outputs in the order the engine returns them,
  // running requests before new ones (Scheduler.update_from_output walks
  // num_scheduled_tokens, which schedule() fills running first): a first token's chunk is
  // written after about all of the step's other chunks (its own is in per_request; docs/
  // engine.md, "Front-end latency"). Partial prompt chunks, which stream nothing, are
  // counted too: at most a few per step.
  const Tick first_chunk_wait_ns =
      config_.overheads.frontend_per_streamed_token_ns *
      (static_cast<Tick>(plan_.chunks.size()) + static_cast<Tick>(plan_.lazy_decodes) - 1);
  for (const auto& c : plan_.chunks) {
    RequestState& r = *c.request;
    account_chunk_end(c, split_, step_start_ns_, now);  // before its tokens are emitted
    const std::int64_t computed_before = r.num_computed_tokens;
    r.num_computed_tokens += c.num_tokens;
    note_recovery(r, now);
    kv_.cache_source_blocks_at_step_end(r, computed_before);  // now they are hits for others
    if (r.remaining() > 0) continue;  // a prompt chunk that does not end the prompt
    if (r.spec.output_tokens == 0) {  // prefill-only (embedding) request
      r.status = RequestStatus::finished;
      any_finished = true;
      continue;
    }
    r.num_output_done += 1;  // the step samples one token at the end of what it computed
    if (r.first_token_ns < 0) {
      r.first_token_ns = now;
      r.frontend_ns += first_chunk_wait_ns;
      if (hand_over_after_prefill_ && r.num_output_done < r.spec.output_tokens) {
        r.last_token_ns = now;
        r.status = RequestStatus::finished;  // leaves running below, handed over not finished
        any_finished = true;
        continue;
      }
    } else {
      itl.add(measurements_, r.spec.class_index, now - r.last_token_ns);
      r.acct.max_itl_ns = std::max(r.acct.max_itl_ns, now - r.last_token_ns);
    }
    r.last_token_ns = now;
    if (c.spec_accepted > 0) emit_accepted(r, c.spec_accepted);
    if (r.num_output_done == r.spec.output_tokens) {
      r.status = RequestStatus::finished;
      any_finished = true;
    }
  }
  itl.flush(measurements_);
  if (lazy_enabled_) {
    // Steady decodes from now on advance as a count. Before any listener call: one may
    // submit a request and so start the next step from inside this one.
    for (const auto& c : plan_.chunks)
      if (lazy_.eligible(*c.request)) lazy_.make_lazy(*c.request);
  }
  if (any_finished) release_finished(now);
  note_state();  // the state the replica sits in until its next step, if it has one
  maybe_start_step();
}

void Replica::release_finished(Tick now) {
  // Compact in place so running order (which is the preemption order) is kept.
  std::vector<RequestState*>& done = done_;
  if (lazy_enabled_) {
    remove_finished_by_seq(done);
  } else {
    auto keep = std::stable_partition(running_.begin(), running_.end(), [](RequestState* r) {
      return r->status != RequestStatus::finished;
    });
    done.assign(keep, running_.end());
    running_.erase(keep, running_.end());
  }
  for (RequestState* r : done) {
    if (lazy_enabled_) lazy_.note_left_running(*r);
    if (r->num_output_done < r->spec.output_tokens && r->spec.output_tokens > 0) {
      kv_.free(*r);  // the decode replica holds it from now on
      note_load_change();
      listener_.on_prefill_handed_over(*r, now);
    } else {
      finish(*r);
    }
  }
}

void Replica::remove_finished_by_seq(std::vector<RequestState*>& done) {
  // The finished requests are explicit chunks of this step, and running_ is in running_seq
  // order: each is found by a binary search, so the lazy decodes are not visited.
  done.clear();
  for (const auto& c : plan_.chunks)
    if (c.request->status == RequestStatus::finished) done.push_back(c.request);
  std::sort(done.begin(), done.end(),
            [](const RequestState* a, const RequestState* b) { return a->running_seq < b->running_seq; });
  remove_from_running(done);
}

void Replica::release_run_finished() {
  // What on_step_end and release_finished do for a decode chunk that emits its last token:
  // its counters, accounting, gap and longest gap come from its sync (note_left_running),
  // as they come to any lazy decode, and nothing else of the chunk's end applies to it (a
  // steady decode: no first token, no recovery, no block to register, no speculation).
  std::vector<RequestState*>& done = done_;
  lazy_.take_finished(done);
  if (done.empty()) return;
  for (RequestState* r : done) r->status = RequestStatus::finished;
  remove_from_running(done);
  for (RequestState* r : done) {
    lazy_.note_left_running(*r);
    SS_ASSERT(r->num_output_done == r->spec.output_tokens, "a request left a decode run before its last token");
    finish(*r);
  }
}

void Replica::remove_from_running(const std::vector<RequestState*>& done) {
  std::size_t out = 0, from = 0;
  for (const RequestState* r : done) {
    const auto at = std::lower_bound(running_.begin() + static_cast<std::ptrdiff_t>(from), running_.end(), r->running_seq,
                                     [](const RequestState* x, std::int64_t seq) { return x->running_seq < seq; });
    SS_ASSERT(at != running_.end() && *at == r, "a finished request is not in the running list");
    const auto i = static_cast<std::size_t>(at - running_.begin());
    for (; from < i; ++from) running_[out++] = running_[from];
    from = i + 1;
  }
  for (; from < running_.size(); ++from) running_[out++] = running_[from];
  running_.resize(out);
}

void Replica::end_step_counts(Tick now) {
  busy_ = false;
  stats_.steps += 1;
  stats_.busy_ns += now - step_start_ns_;
  SS_ASSERT(now - step_start_ns_ == split_.total_ns, "a step ended at another time than it was priced for");
  if (lazy_enabled_) lazy_.charge_step_end(split_, now);  // the lazy decodes' tokens and gaps
}

void Replica::emit_accepted(RequestState& r, std::int64_t accepted) {
  // The accepted tokens were computed by the verify pass and arrive with the step's own
  // token, in the same streamed chunk: a client times chunks (vllm bench serve appends one
  // ITL per chunk, endpoint_request_func.py), so they add no gap.
  const std::int64_t computed_before = r.num_computed_tokens;
  r.num_output_done += accepted;
  r.spec_accepted_tokens += accepted;
  r.num_computed_tokens += accepted;
  // Blocks these tokens complete are cached like any other: source hashes here, private
  // ones with the rest of the step's (cache_private_blocks_at_step_start).
  kv_.cache_source_blocks_at_step_end(r, computed_before);
  stats_.spec_accepted_tokens += accepted;
}

void Replica::note_recovery(RequestState& r, Tick now) {
  // Time lost to a preemption: from the preemption until the request has computed again as
  // many tokens as it had (recompute) or has its KV back (swap).
  if (r.preempted_at_ns < 0 || r.num_computed_tokens < r.recover_tokens) return;
  r.preempted_ns += now - r.preempted_at_ns;
  r.preempted_at_ns = -1;
  r.recover_tokens = 0;
}

}  // namespace servesim
