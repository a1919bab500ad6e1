// Decode runs (docs/performance.md, "Decode runs"): a replica whose running
// requests are all lazy decodes and which has nothing waiting goes through steps that all
// look alike -- every lazy decode computes one token, the lazy decodes that reach a block
// boundary get a new block, and nothing else happens -- until one of them is due (its last
// token, a block to register) or a request arrives. Such a quiet stretch is priced when it
// starts and scheduled as one event at its last step's end; its steps are applied, one by
// one and exactly as the step-by-step path would, when that event comes or when something
// outside reads or changes the replica first (a submit, a router that reads KV usage or
// the prefix cache, the end of the run). A submit makes the step in flight the run's last.
//
// Why this gives the step-by-step results: at one nanosecond a replica's step ends run in
// replica order before any other event (SameTimeOrder), so whether a step of the run has
// ended when another event runs depends only on the two events' times and places, which
// apply_run_steps compares; no step of the run changes anything another replica or the
// cluster reads, except the metrics' inter-token gaps (order-independent sketches) and
// the replica's KV cache (caught up before a read). tests/engine/lazy_decodes_test.cpp
// compares whole runs with decode runs, with lazy decodes only, and step by step.
#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/engine/replica.h"

namespace servesim {

bool Replica::start_decode_run() {
  const auto count = lazy_.count();
  if (!waiting_.empty() || count == 0 || count != static_cast<std::int64_t>(running_.size())) return false;
  // A policy's whole-step check (sched::schedule_running_whole) at its strictest.
  if (count > config_.max_batched_tokens) return false;
  bool ends_due = false;
  const std::int64_t steps = lazy_.quiet_steps(kMostRunSteps, ends_due);
  if (steps < 2) return false;
  // A due step at which requests emit their last token and nothing else is a quiet step
  // too: they leave at its end (release_run_finished), without a plan of their own.
  run_ends_finishing_ = ends_due && lazy_.due_are_last_tokens();
  run_ends_due_ = ends_due && !run_ends_finishing_;
  // Each quiet step: `count` decodes over a context that grows by `count` tokens a step,
  // plus prepare_step's extras (per step, and per token sampled; nobody starts, nothing
  // is swapped, no speculation where decodes are lazy).
  const EngineOverheads& o = config_.overheads;
  const Tick extra_ns = o.per_step_ns + o.per_token_ns * count;
  // With async scheduling each step's extra depends on its own price (begin_step): the
  // step-by-step path handles that.
  if (config_.async_scheduling && extra_ns > 0) return false;
  run_extra_ns_ = extra_ns;
  Tick at = sim_.now();
  const auto n = static_cast<std::size_t>(steps);
  if (run_memory_ns_.size() < static_cast<std::size_t>(kMostRunSteps)) {  // once: sized for every run
    run_ends_.resize(kMostRunSteps + 1);
    run_memory_ns_.resize(kMostRunSteps);
  }
  run_ends_[0] = at;  // run_step_begin(0)
  run_steps_ = n;
  run_seqs_ = count;
  run_context_sum_ = lazy_.context_sum();
  run_shares_costs_ = cost_model_->decode_run_memory_costs(count, lazy_.context_sum(), run_shared_cost_,
                                                           std::span<Tick>(run_memory_ns_.data(), n));
  if (run_shares_costs_) {
    const Tick shared_ns = run_shared_cost_.compute_ns + run_shared_cost_.comm_ns;
    for (std::size_t k = 0; k < n; ++k) {
      at += std::max<Tick>(1, shared_ns + run_memory_ns_[k]) + extra_ns;  // run_step_cost's total_ns
      run_ends_[k + 1] = at;
    }
  } else {
    run_costs_.resize(n);
    cost_model_->decode_run_costs(count, lazy_.context_sum(), run_costs_);
    for (std::size_t k = 0; k < n; ++k) {
      SS_ASSERT(run_costs_[k].total_ns >= 1, "a step must take time");
      at += run_costs_[k].total_ns + extra_ns;
      run_ends_[k + 1] = at;
    }
  }
  in_run_ = true;
  run_step_ = 0;
  stats_.decode_runs += 1;
  stats_.decode_run_priced_steps += steps;
  // A step of the run starts only when something reads it (apply_run_steps: a catch-up)
  // or must plan it (the due step; with KV tiers every step, apply_ended_run_steps): most
  // steps are over by the next event that touches the run, and are applied with the
  // others in one pass. Until then the replica is busy from the step's start, as
  // begin_quiet_step would leave it; nothing else of the step is read before (the step
  // observers that read every step switch runs off).
  run_step_started_ = false;
  if (kv_.has_tiers()) {
    start_quiet_step();
  } else {
    busy_ = true;
    step_start_ns_ = sim_.now();
    note_load_change();
  }
  sim_.arm_timer(step_timer_, run_step_end(n - 1), step_end_order());
  return true;
}

void Replica::start_quiet_step() {
  // maybe_start_step with the plan the policy would make: the lazy decodes alone, or in
  // the due step that ends the run, every running request whole (nothing waits). The
  // shape, and so the price, is the same either way: the due requests decode one token.
  const Tick now = step_start_of_run_step();
  StepCost cost;
  plan_.clear();
  added_.clear();
  if (run_ends_due_ && run_step_ + 1 == run_steps_) {
    lazy_.make_due_explicit();
    std::int64_t budget = config_.max_batched_tokens;
    SchedulerState state{waiting_, running_, kv_, config_, &swap_, &scratch_, &lazy_};
    const bool planned = lazy_.plan_whole(state, plan_, budget, /*chunked=*/true, /*use_budget=*/true);
    SS_ASSERT(planned, "a decode run's due step could not plan every request whole");
    note_load_change();
    const StepCost priced = run_cost(run_step_);
    cost = begin_step(now, &priced);
  } else {
    lazy_.plan_quiet_step(plan_);
    note_load_change();
    const StepCost priced = run_cost(run_step_);
    cost = kv_.has_tiers() ? begin_step(now, &priced) : begin_quiet_step(now, priced);
  }
  stats_.decode_run_steps += 1;
  run_step_started_ = true;
  SS_ASSERT(now + cost.total_ns == run_step_end(run_step_), "a quiet step took other than its run planned");
}

StepCost Replica::begin_quiet_step(Tick now, StepCost cost) {
  // begin_step's effects for a plan of the lazy decodes alone, without its visits of the
  // plan's empty lists: prepare_step's extras are the run's (per step, and per token
  // sampled: each decode samples one; nobody starts, no swap, no speculation), KV tiers
  // load nothing (a replica with tiers takes begin_step: its stores are counted there),
  // and async scheduling hides nothing (a run with extras is not async, start_decode_run).
  // The split is account_step_start's for a step without chunks or preemptions.
  SS_ASSERT(plan_.chunks.empty() && plan_.preempted.empty() && plan_.lazy_decodes > 0 && !kv_.has_tiers(),
            "a quiet step plans the lazy decodes alone");
  const Tick extra_ns = run_extra_ns_;
  added_.decode_work_chunks = plan_.lazy_decodes;
  added_.overhead_ns = extra_ns;
  stats_.overhead_ns += extra_ns;
  cost.total_ns += extra_ns;
  split_ = split_step(added_.decode_work_chunks, 0, cost.total_ns, extra_ns, cost, nullptr);
  mark_step_started(now, cost);
  return cost;
}

Tick Replica::step_start_of_run_step() const {
  return run_step_begin(run_step_);
}

void Replica::apply_ended_run_steps() {
  if (!in_run_) return;
  const Tick now = sim_.now();
  const std::uint64_t current = sim_.current_order();
  const std::uint64_t mine = step_end_order().value;
  // Every step end before the event being run has happened: earlier, or at the same
  // nanosecond and before it in SameTimeOrder. The last step's end is the run's event.
  const auto ended = [&](std::size_t k) {
    const Tick end = run_step_end(k);
    return k + 1 < run_steps_ && (end < now || (end == now && mine < current));
  };
  if (run_step_started_) {
    if (!ended(run_step_)) return;
    end_step_counts(run_step_end(run_step_));  // on_step_end of a step without explicit chunks
    ++run_step_;
    run_step_started_ = false;
  }
  // The steps that start and end before the event, in one pass (plan_ and split_ keep
  // describing the last step started).
  std::size_t last = run_step_;
  while (ended(last)) ++last;
  if (last > run_step_) apply_quiet_steps(run_step_, last);
  run_step_ = last;
  // The step in flight: started where something may read what it planned -- the due step
  // (its plan makes the due requests explicit), or any step with KV tiers (begin_step
  // counts their stores) -- else busy from its start, as starting it would leave the
  // replica for whoever reads that (arrives_late).
  if (kv_.has_tiers() || (run_ends_due_ && run_step_ + 1 == run_steps_)) {
    start_quiet_step();
  } else {
    busy_ = true;
    step_start_ns_ = run_step_begin(run_step_);
  }
}

void Replica::apply_run_steps() {
  apply_ended_run_steps();
  if (in_run_ && !run_step_started_) start_quiet_step();
}

void Replica::apply_quiet_steps(std::size_t from, std::size_t to) {
  // start_quiet_step and end_step_counts in one, for each step that is not left in
  // flight. The integer counts of all of them at once (sums: the same whatever the
  // order); the floating-point sums step by step, in step order, as the step-by-step
  // path adds them.
  const std::int64_t count = lazy_.count();
  const Tick extra_ns = run_extra_ns_;
  const auto steps = static_cast<std::int64_t>(to - from);
  Tick compute_ns = 0, memory_ns = 0;
  if (run_shares_costs_ && extra_ns == 0) {
    // split_step and add_utilisation of such a step, folded: with no extras its model time
    // is its whole time, all of it decode time (scale exactly 1), the decodes' work is the
    // shared cost's, and the prefill parts are +0.0, which leave the sums as they are.
    const StepCost& shared = run_shared_cost_;
    double flops = stats_.decode_flops, bytes = stats_.decode_bytes;
    for (std::size_t k = from; k < to; ++k) {
      flops += shared.flops;
      bytes += shared.bytes;
      memory_ns += run_memory_ns_[k];
    }
    stats_.decode_flops = flops;
    stats_.decode_bytes = bytes;
    // The steps' times, added one by one as doubles: where the sum so far is a whole number
    // and stays below 2^53, every partial sum is a whole double and each addition exact, so
    // adding their total at once gives the same double.
    const Tick span_ns = run_step_end(to - 1) - run_step_begin(from);
    double& decode_time_ns = stats_.decode_time_ns;
    if (decode_time_ns >= 0 && decode_time_ns + static_cast<double>(span_ns) < 9007199254740992.0 &&
        decode_time_ns == std::floor(decode_time_ns)) {
      decode_time_ns += static_cast<double>(span_ns);
    } else {
      for (std::size_t k = from; k < to; ++k) decode_time_ns += static_cast<double>(run_step_end(k) - run_step_begin(k));
    }
    compute_ns = shared.compute_ns * steps;
    // units_from_ns(total_ns / count), without dividing; its constant (a 128-bit division)
    // made again only when the count changed since the last run applied.
    if (run_share_units_.divisor() != count) run_share_units_ = EvenShareUnits(count);
    lazy_.run_quiet_steps_without_extras(run_step_begin(from), run_ends_.data() + from + 1, to - from, run_share_units_);
  } else {
    for (std::size_t k = from; k < to; ++k) {
      const Tick start = run_step_begin(k), end = run_step_end(k);
      const StepCost cost = run_cost(k);
      const StepSplit split = split_step(count, 0, end - start, extra_ns, cost, nullptr);
      stats_.add_utilisation(split);
      compute_ns += cost.compute_ns;
      memory_ns += cost.memory_ns;
      lazy_.run_quiet_step(split.total_ns, split.extra_ns, split.decode_ns, split.decode_units, end);
    }
  }
  stats_.add_bound_time(compute_ns, memory_ns);
  stats_.overhead_ns += extra_ns * steps;  // prepare_step: per step and per token sampled
  stats_.lazy_decode_tokens += count * steps;
  stats_.decode_run_steps += steps;
  stats_.steps += steps;  // end_step_counts
  stats_.busy_ns += run_step_end(to - 1) - run_step_begin(from);
  note_load_change();
}

void Replica::catch_up() {
  apply_run_steps();
  lazy_.flush_gaps();  // the metrics may be read next
}

void Replica::interrupt_decode_run() {
  if (!in_run_) return;
  apply_ended_run_steps();  // the step in flight starts if it must (or at its end, below)
  if (run_step_ + 1 == run_steps_) return;  // the step in flight is the last already
  const std::size_t cut = run_step_ + 1;
  cut_step_ = KnownDecodeCost{run_seqs_, run_context_sum_ + static_cast<std::int64_t>(cut) * run_seqs_, run_cost(cut)};
  run_ends_due_ = false;  // the due step is not reached
  run_ends_finishing_ = false;
  run_steps_ = run_step_ + 1;
  if (!run_shares_costs_) run_costs_.resize(run_steps_);
  sim_.arm_timer(step_timer_, run_step_end(run_steps_ - 1), step_end_order());  // earlier: the step in flight's end
}

void Replica::end_decode_run() {
  apply_ended_run_steps();  // every step but the last
  SS_ASSERT(run_step_ + 1 == run_steps_, "a decode run ended before its last step");
  in_run_ = false;
  if (run_step_started_) {
    if (!run_ends_finishing_) {
      on_step_end();
      return;
    }
    end_step_counts(sim_.now());  // on_step_end of a quiet step: it has no explicit chunks
  } else {
    // A last step that nothing read while it ran and that is not the due step (that one
    // starts when it begins): applied whole like the others, then what on_step_end does
    // after a step without explicit chunks (no tokens to emit).
    apply_quiet_steps(run_step_, run_steps_);
    busy_ = false;
  }
  if (run_ends_finishing_) release_run_finished();
  note_state();
  maybe_start_step();
}

}  // namespace servesim
