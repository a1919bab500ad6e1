#include "sim/cluster/invariant_checker.h"

#include <algorithm>
#include <sstream>

namespace servesim {

InvariantChecker::InvariantChecker(Simulation& sim) : sim_(sim) {
  for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p) {
    for (auto& replica : sim.pools()[static_cast<std::size_t>(p)]->replicas()) {
      replica->add_step_observer([this, p](int i, Tick start_ns, const StepPlan& plan, const StepCost& cost) {
        on_step(p, i, start_ns, plan, cost);
      });
    }
  }
  sim.add_request_sink([this](const RequestRecord& r) { on_record(r); });
  for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p)
    if (sim.pools()[static_cast<std::size_t>(p)]->autoscaler()) watch_autoscaler(p);
}

// INV-10: the router of an autoscaled pool picks active replicas only; after every change
// the fleet holds min_replicas..max_replicas replicas active or starting, at least one of
// them active; only active and draining replicas step.
void InvariantChecker::watch_autoscaler(int p) {
  Pool& pool = *sim_.pools()[static_cast<std::size_t>(p)];
  const Autoscaler& a = *pool.autoscaler();
  pool.add_route_observer([this, p, &a](int replica) {
    ++f_.autoscaled_routes;
    if (a.phase(static_cast<std::size_t>(replica)) != ReplicaPhase::active)
      fail("pool " + std::to_string(p) + ": a request was routed to replica " + std::to_string(replica) + ", which is " +
           phase_name(a.phase(static_cast<std::size_t>(replica))));
  });
  pool.autoscaler()->add_change_observer([this, p](Tick now_ns) { check_fleet(p, now_ns); });
  check_fleet(p, 0);
}

void InvariantChecker::check_fleet(int p, Tick now_ns) {
  ++f_.fleet_changes;
  const Autoscaler& a = *sim_.pools()[static_cast<std::size_t>(p)]->autoscaler();
  const std::string where = "pool " + std::to_string(p) + " at " + std::to_string(now_ns) + " ns: ";
  const AutoscaleSpec& s = a.spec();
  if (a.provisioned() < s.min_replicas || a.provisioned() > s.max_replicas)
    fail(where + std::to_string(a.provisioned()) + " replicas active or starting, outside [" +
         std::to_string(s.min_replicas) + ", " + std::to_string(s.max_replicas) + "]");
  if (a.paid() > s.max_replicas) fail(where + "more replicas paid than max_replicas");
  if (a.active() < 1) fail(where + "no replica active");
  if (const GpuBudget* budget = sim_.gpu_budget()) check_gpu_budget(*budget, where);
}

// INV-11 (`cluster.gpus`): the GPUs of every paid replica, fixed and autoscaled pools
// together, are the GPUs the budget holds, and never more than its total.
void InvariantChecker::check_gpu_budget(const GpuBudget& budget, const std::string& where) {
  int held = 0;
  for (const auto& pool : sim_.pools()) {
    const int replicas = pool->autoscaler() ? pool->autoscaler()->paid() : pool->config().replicas;
    held += replicas * pool->config().deployment.gpus();
  }
  if (held != budget.held())
    fail(where + "paid replicas hold " + std::to_string(held) + " GPUs, the budget counts " +
         std::to_string(budget.held()));
  if (held > budget.total())
    fail(where + std::to_string(held) + " GPUs held, over the budget of " + std::to_string(budget.total()));
}

void InvariantChecker::fail(const std::string& what) {
  if (violations_.size() < 1000) {
    violations_.push_back(what);
  } else {
    ++dropped_;
  }
}

std::string InvariantChecker::report(std::size_t max_lines) const {
  std::ostringstream os;
  os << violations_.size() + dropped_ << " invariant violation(s)";
  for (std::size_t i = 0; i < violations_.size() && i < max_lines; ++i) os << "\n  " << violations_[i];
  return os.str();
}

void InvariantChecker::mix(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    f_.fingerprint ^= (v >> (8 * i)) & 0xff;
    f_.fingerprint *= 1099511628211ull;
  }
}

void InvariantChecker::on_step(int pool, int replica, Tick start_ns, const StepPlan& plan, const StepCost& cost) {
  ++f_.steps;
  const std::string where = "pool " + std::to_string(pool) + " replica " + std::to_string(replica) + " step at " +
                            std::to_string(start_ns) + " ns: ";
  // INV-3: one clock; a replica runs one step at a time; every step takes time.
  if (start_ns < clock_ns_) fail(where + "starts before a step seen earlier, at " + std::to_string(clock_ns_));
  clock_ns_ = std::max(clock_ns_, start_ns);
  Tick& busy_until = busy_until_ns_.try_emplace({pool, replica}, -1).first->second;
  if (start_ns < busy_until) fail(where + "starts before the replica's previous step ends");
  if (cost.total_ns < 1) fail(where + "costs " + std::to_string(cost.total_ns) + " ns");
  const Tick end_ns = start_ns + cost.total_ns;
  busy_until = end_ns;
  f_.last_step_end_ns = std::max(f_.last_step_end_ns, end_ns);
  f_.preemptions += static_cast<std::int64_t>(plan.preempted.size());

  Pool& p = *sim_.pools()[static_cast<std::size_t>(pool)];
  Replica& rep = *p.replicas()[static_cast<std::size_t>(replica)];
  const EngineConfig& cfg = p.config().engine;
  if (const Autoscaler* a = p.autoscaler()) {
    const ReplicaPhase phase = a->phase(static_cast<std::size_t>(replica));
    if (phase == ReplicaPhase::off || phase == ReplicaPhase::starting)
      fail(where + "a step on a replica that is " + phase_name(phase));  // INV-10
  }

  // INV-7: the step fits the engine's limits.
  if (plan.empty()) fail(where + "an empty step was started");
  std::int64_t tokens = 0;
  std::set<const RequestState*> in_plan;
  for (const auto& c : plan.chunks) {
    tokens += c.num_tokens;
    if (!in_plan.insert(c.request).second) fail(where + "a request appears twice in one step");
  }
  if (tokens > cfg.max_batched_tokens) fail(where + std::to_string(tokens) + " tokens exceed max_batched_tokens");
  if (rep.num_running() > cfg.max_num_seqs) fail(where + "more running sequences than max_num_seqs");
  for (const RequestState* v : plan.preempted) {
    if (v->status != RequestStatus::waiting || v->num_blocks() != 0) fail(where + "a preempted request kept its blocks");
    // Recompute starts over; swap keeps the progress whose KV went to host memory.
    if (v->swapped_blocks() == 0 && v->num_computed_tokens != 0) fail(where + "a preempted request kept its progress");
    if (in_plan.count(v)) fail(where + "a preempted request is also scheduled");
  }

  check_kv(where, rep, plan);

  // INV-8: a closed loop's users.
  if (max_in_flight_ > 0) {
    std::int64_t inside = 0;
    for (const auto& pl : sim_.pools())
      for (const auto& r : pl->replicas()) inside += r->outstanding();
    f_.max_in_flight_seen = std::max(f_.max_in_flight_seen, inside);
    if (inside > max_in_flight_)
      fail(where + std::to_string(inside) + " requests inside a closed loop of " + std::to_string(max_in_flight_));
  }

  for (const auto& c : plan.chunks) check_chunk(where, c, rep.kv(), end_ns);
}

// INV-2: blocks in use never exceed capacity; the requests inside hold exactly the block
// references the cache counts (a prefix-cached block shared by several counts once in
// used_blocks() and once per holder in block_refs()); a waiting request holds none; a
// running request holds blocks for everything it computed.
void InvariantChecker::check_kv(const std::string& where, Replica& rep, const StepPlan& plan) {
  (void)plan;
  const KvCacheManager& kv = rep.kv();
  if (kv.used_blocks() > kv.total_blocks() || kv.free_blocks() < 0) fail(where + "KV blocks in use exceed capacity");
  f_.max_kv_used_blocks = std::max(f_.max_kv_used_blocks, kv.used_blocks());
  std::int64_t held = 0;
  rep.for_each_request([&](RequestState& r) {
    held += r.num_blocks();
    if (r.status == RequestStatus::waiting && r.num_blocks() != 0) fail(where + "a waiting request holds KV blocks");
    if (r.status == RequestStatus::running && r.num_blocks() < kv.blocks_for(r.num_computed_tokens))
      fail(where + "request " + std::to_string(r.spec.id) + " has computed tokens without KV blocks");
    // KV tiers: what was found below HBM is part of the prefix hit, and a running request
    // has loaded it (its step priced the load).
    if (r.tier_hit_tokens[KvTiers::kCpu] + r.tier_hit_tokens[KvTiers::kDisk] > r.cached_prompt_tokens)
      fail(where + "request " + std::to_string(r.spec.id) + " found more in the KV tiers than its prefix hit");
    if (r.status == RequestStatus::running && r.tier_load_blocks(KvTiers::kCpu) + r.tier_load_blocks(KvTiers::kDisk) > 0)
      fail(where + "request " + std::to_string(r.spec.id) + " runs with KV-tier blocks still to load");
  });
  if (const KvTiers* tiers = kv.tiers())
    for (const KvTiers::Tier t : {KvTiers::kCpu, KvTiers::kDisk})
      if (tiers->used_blocks(t) > tiers->capacity_blocks(t)) fail(where + "a KV tier holds more blocks than it has room for");
  if (held != kv.block_refs() || kv.used_blocks() > held) {
    fail(where + "requests hold " + std::to_string(held) + " blocks; the cache counts " +
         std::to_string(kv.block_refs()) + " references to " + std::to_string(kv.used_blocks()) + " blocks in use");
  }
}

// INV-4: a request's progress moves only through its steps; a step that computes all it
// had left emits one token (plus accepted draft tokens) at its end; past the prompt a
// request computes one token per step unless it is recomputing after a preemption.
void InvariantChecker::check_chunk(const std::string& where, const ScheduledChunk& c, const KvCacheManager& kv,
                                   Tick end_ns) {
  const RequestState& r = *c.request;
  const std::string who = where + "request " + std::to_string(r.spec.id) + ": ";
  if (r.status != RequestStatus::running) fail(who + "scheduled while not running");
  if (c.num_tokens < 1 || c.num_tokens > r.remaining()) fail(who + "chunk outside 1..remaining");
  if (r.num_blocks() < kv.blocks_for(r.num_computed_tokens + c.num_tokens)) fail(who + "no KV blocks for its chunk");
  if (!r.in_prefill() && r.remaining() != 1 && r.preemptions == 0)
    fail(who + "a decode with " + std::to_string(r.remaining()) + " tokens left");
  if (r.spec.output_tokens > 0 && r.num_output_done >= r.spec.output_tokens) fail(who + "scheduled after its last token");
  Track& t = tracks_[r.spec.id];
  if (r.num_output_done != t.outputs_expected) {
    fail(who + "has " + std::to_string(r.num_output_done) + " output tokens; its steps so far give " +
         std::to_string(t.outputs_expected));
  }
  const bool completes = c.num_tokens == r.remaining();
  if (c.spec_accepted < 0 || (c.spec_accepted > 0 && !completes)) fail(who + "accepted draft tokens outside a decode");
  t.outputs_before = r.num_output_done;
  if (completes && r.spec.output_tokens > 0) {
    t.outputs_expected = r.num_output_done + 1 + c.spec_accepted;
    if (r.num_output_done == 0) t.first_token_ns = end_ns;
  }
  if (completes && r.spec.output_tokens == 0) t.prefill_done_ns = end_ns;
  t.last_step_end_ns = end_ns;
  if (r.num_computed_tokens + c.num_tokens < r.spec.prompt_tokens) ++f_.partial_prompt_chunks;
  if (!r.in_prefill() && r.remaining() == 1) ++f_.decode_chunks;
}

void InvariantChecker::on_record(const RequestRecord& r) {
  ++f_.records;
  for (std::uint64_t v : {r.id, std::uint64_t(r.outcome), std::uint64_t(r.arrival_ns), std::uint64_t(r.first_token_ns),
                          std::uint64_t(r.finish_ns), std::uint64_t(r.output_tokens_done), std::uint64_t(r.replica_index)})
    mix(v);
  const std::string who = "request " + std::to_string(r.id) + ": ";
  if (!ids_.insert(r.id).second) fail(who + "recorded twice");
  const auto it = tracks_.find(r.id);
  const Track* t = it == tracks_.end() ? nullptr : &it->second;
  if (r.cached_prompt_tokens < 0 || r.cached_prompt_tokens > r.prompt_tokens) fail(who + "cached more than its prompt");
  if (r.output_tokens_done < 0 || r.output_tokens_done > r.output_tokens) fail(who + "more outputs than asked for");
  switch (r.outcome) {
    case Outcome::completed:
      check_completed(who, r, t);
      break;
    case Outcome::rejected: {
      ++f_.rejected;
      if (r.reject_reason == nullptr || r.reject_reason[0] == '\0') fail(who + "rejected without a reason");
      if (r.first_token_ns != -1 || r.output_tokens_done != 0 || t) fail(who + "rejected after it ran");
      // Only an admission timeout (docs/cluster.md) turns a request away after it waited.
      const bool timed_out = r.reject_reason && std::string(r.reject_reason) == "timed_out";
      if (timed_out ? r.finish_ns <= r.arrival_ns : r.finish_ns != r.arrival_ns)
        fail(who + "rejected at the wrong time");
      if (r.reject_reason && std::string(r.reject_reason) == "exceeds_kv_capacity") {
        const Pool& p = *sim_.pools()[static_cast<std::size_t>(r.pool_index)];
        const std::int64_t bs = p.config().engine.block_size;
        const std::int64_t kv_tokens = r.prompt_tokens + std::max<std::int64_t>(r.output_tokens - 1, 0);
        if ((kv_tokens + bs - 1) / bs <= p.kv_blocks_per_replica()) fail(who + "rejected for KV but would fit");
      }
      break;
    }
    case Outcome::unfinished:
      ++f_.unfinished;
      if (r.finish_ns != -1) fail(who + "unfinished with a finish time");
      if (r.output_tokens > 0 && r.output_tokens_done >= r.output_tokens) fail(who + "unfinished with every token");
      // The step in flight when the run stopped never ended: either count is possible.
      if (t && r.output_tokens_done != t->outputs_expected && r.output_tokens_done != t->outputs_before)
        fail(who + "unfinished with an output count its steps do not give");
      break;
  }
  if (t) tracks_.erase(it);
  if (r.warmup) {
    ++f_.warmup_records;
    f_.warmup_completed += r.outcome == Outcome::completed ? 1 : 0;
    f_.warmup_rejected += r.outcome == Outcome::rejected ? 1 : 0;
    f_.warmup_unfinished += r.outcome == Outcome::unfinished ? 1 : 0;
    if (r.outcome == Outcome::completed) {
      f_.warmup_output_tokens += r.output_tokens_done;
      f_.warmup_input_tokens += r.prompt_tokens;
    }
  }
}

// INV-5 for a completed request, and INV-4 against the steps it was seen in: its first
// token at the end of the step that gave it, its finish at the end of its last step.
void InvariantChecker::check_completed(const std::string& who, const RequestRecord& r, const Track* t) {
  ++f_.completed;
  f_.completed_output_tokens += r.output_tokens_done;
  f_.completed_input_tokens += r.prompt_tokens;
  if (r.first_scheduled_ns < r.arrival_ns) fail(who + "scheduled before it arrived (or never)");
  if (r.finish_ns < r.first_scheduled_ns) fail(who + "finished before it was scheduled");
  if (r.output_tokens > 0) {
    if (r.output_tokens_done != r.output_tokens) fail(who + "completed without all its output tokens");
    if (r.first_token_ns < r.first_scheduled_ns || r.first_token_ns > r.finish_ns) fail(who + "first token out of order");
    if (!(r.queue_ns() <= r.ttft_ns() && r.ttft_ns() <= r.e2el_ns())) fail(who + "not queue <= TTFT <= E2E");
    if ((r.tpot_ns() >= 0) != (r.output_tokens_done >= 2)) fail(who + "TPOT defined iff two or more tokens");
    if (r.tpot_ns() >= 0 && r.tpot_ns() * (r.output_tokens_done - 1) > r.e2el_ns() - r.ttft_ns())
      fail(who + "TPOT times gaps exceeds E2E - TTFT");
  } else if (r.first_token_ns != -1 || r.output_tokens_done != 0) {
    fail(who + "an embedding (output 0) request has a token");
  }
  if (!t) {
    fail(who + "completed without ever being scheduled");
    return;
  }
  if (t->outputs_expected != r.output_tokens_done) fail(who + "steps and record disagree on outputs");
  // A disaggregated request's first token is delivered when its KV reaches the decode
  // replica: the end of its prefill step plus the transfer (docs/cluster.md).
  // The engine's front-end latency (overheads.frontend) shifts what the client sees.
  if (r.output_tokens > 0 && r.first_token_ns != t->first_token_ns + r.kv_transfer_ns + r.frontend_ns)
    fail(who + "TTFT is not a step end (plus its KV transfer and front end)");
  if (r.output_tokens == 0 && r.finish_ns != t->prefill_done_ns + r.frontend_ns)
    fail(who + "embedding finish is not a step end");
  if (r.finish_ns != t->last_step_end_ns + r.frontend_ns) fail(who + "finish is not the end of its last step");
}

void InvariantChecker::check_end(const RunResult& result) {
  // A run ended by stop.time or by an arrival observer leaves requests inside and a step
  // possibly in flight; otherwise everything finished.
  const bool cut = result.stopped_by_time || result.aborted;
  // INV-1: conservation, from the records themselves and in the result.
  if (f_.records != result.arrived)
    fail("records " + std::to_string(f_.records) + " != arrived " + std::to_string(result.arrived));
  if (result.arrived != f_.completed + f_.rejected + f_.unfinished) fail("arrived != completed + rejected + unfinished");
  if (result.completed != f_.completed || result.rejected != f_.rejected || result.unfinished != f_.unfinished)
    fail("the result's counts differ from the records'");
  if (!ids_.empty() && (static_cast<std::int64_t>(ids_.size()) != result.arrived ||
                        *ids_.rbegin() != static_cast<std::uint64_t>(result.arrived - 1)))
    fail("request ids are not 0..arrived-1");
  if (!cut && f_.unfinished != 0) fail("unfinished requests in a run that was not cut short");
  if (!tracks_.empty()) fail(std::to_string(tracks_.size()) + " scheduled requests never got a record");
  if (result.preemptions != f_.preemptions) fail("the result's preemptions differ from the steps'");
  if (cut ? result.steps > f_.steps : result.steps != f_.steps) fail("the result's steps differ from the steps seen");

  // INV-2 at the end: everything freed, or exactly what the unfinished requests hold.
  for (const auto& p : sim_.pools())
    for (const auto& rep : p->replicas()) {
      std::int64_t held = 0;
      rep->for_each_request([&](RequestState& r) { held += r.num_blocks(); });
      if (held != rep->kv().block_refs()) fail("at the end, requests and the cache disagree on blocks held");
      if (f_.unfinished == 0 && (rep->kv().used_blocks() != 0 || rep->outstanding() != 0))
        fail("KV blocks or requests left on a replica after a complete run");
    }

  // INV-10 at the end: min_replicas..max_replicas replicas were paid at every moment, so
  // the paid time lies between those counts times the run.
  for (const auto& p : sim_.pools())
    if (const Autoscaler* a = p->autoscaler()) {
      const Tick paid = a->paid_ns(result.end_ns);
      if (paid < a->spec().min_replicas * result.end_ns || paid > a->spec().max_replicas * result.end_ns)
        fail("pool " + p->config().name + ": paid replica time " + std::to_string(paid) +
             " ns outside min_replicas..max_replicas x the run");
    }

  // INV-3 at the end: no step starts after a time cut, and none ends after a complete run.
  if (result.stopped_by_time && clock_ns_ > result.end_ns) fail("a step started after the run's end");
  if (!cut && f_.last_step_end_ns > result.end_ns) fail("a step ended after the run's end");

  // INV-6: the summary agrees with the records, less those of the warm-up.
  const SummaryBlock& s = result.summary.overall;
  if (s.get("completed") != double(f_.completed - f_.warmup_completed) ||
      s.get("rejected") != double(f_.rejected - f_.warmup_rejected) ||
      s.get("unfinished") != double(f_.unfinished - f_.warmup_unfinished))
    fail("summary counts differ from the records");
  if (s.get("total_output_tokens") != double(f_.completed_output_tokens - f_.warmup_output_tokens) ||
      s.get("total_input_tokens") != double(f_.completed_input_tokens - f_.warmup_input_tokens))
    fail("summary token totals differ from the records");
  if (s.has("warmup_excluded") ? s.get("warmup_excluded") != double(f_.warmup_records) : f_.warmup_records != 0)
    fail("the summary's warmup_excluded differs from the warm-up records");
}

}  // namespace servesim
