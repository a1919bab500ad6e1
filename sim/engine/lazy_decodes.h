#pragma once
// Decodes in steady state, advanced without being visited (docs/performance.md, "Lazy
// decodes": per-step work independent of the number of running sequences).
//
// In a step every running request past its prompt that decodes its one next token gets
// the same increments: a computed token and an output token, the step's decode time, the
// rest of its model time (prefill interference) and its extras (overheads), the same
// GPU-time share, and an inter-token gap equal to the step's duration (it emitted a token
// at the previous step's end, which is this step's start). So the replica keeps the sums
// of those increments over its steps, and a request in that steady state -- "lazy" --
// keeps only the sums as they were when its own fields were last brought up to date (its
// sync). Its fields are synced when anything must read them: a step that cannot
// schedule every running request whole, a preemption, its last token, a block whose hash
// others may hit, the end of the run. Its KV blocks too: the lazy decodes that start a
// new block in a step (one step in block_size each) are only counted, their blocks
// allocated in one call, and a request's table gets its blocks at its sync
// (KvCacheManager::allocate_unassigned). A step then costs O(1) for its lazy decodes.
//
// Exactness: a lazy decode's figures are the sums of the same integers the step-by-step
// path adds (GPU shares are integer units, attribution.h), its inter-token gaps go to the
// metrics as one weighted value per class per step (the sketches are order-independent
// for integers, exact_moments.h), and as many KV blocks are allocated in each step as the
// step-by-step path allocates, so the same hashed blocks are evicted; only which request
// holds which of the blocks taken differs, and those hold no hash (kv_cache_manager.h).
// The equivalence
// with the step-by-step path is tested scenario by scenario
// (tests/engine/lazy_decodes_test.cpp): any step observer switches laziness off.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/time.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/request_state.h"
#include "sim/engine/measurement_listener.h"

namespace servesim {

struct StepPlan;
struct StepSplit;
struct SchedulerState;

class LazyDecodes {
 public:
  LazyDecodes(KvCacheManager& kv, MeasurementListener& measurements)
      : kv_(kv),
        measurements_(measurements),
        block_size_(kv.block_size()),
        slot_mask_((block_size_ & (block_size_ - 1)) == 0 ? static_cast<std::uint64_t>(block_size_ - 1) : 0),
        block_shift_(std::countr_zero(static_cast<std::uint64_t>(block_size_))),
        wheel_bits_(block_size_ <= 64) {}

  std::int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Computed tokens of the lazy decodes, summed: their share of a step's BatchShape.
  std::int64_t context_sum() const { return context_sum_; }

  // --- running order ---
  // After a scheduling pass: the requests the policy appended to `running` (the tail of
  // it whose running_seq is 0) get their place in running order and join the explicit ones.
  void note_admitted(std::vector<RequestState*>& running);
  // A running request leaves the running list (finished, handed over, preempted).
  void note_left_running(RequestState& request);

  // --- joining and leaving ---
  // Whether `request`, explicit in the step that just ended, can decode lazily from now.
  bool eligible(const RequestState& request) const;
  // At a step's end, after its explicit processing. REQUIRES: eligible(request).
  void make_lazy(RequestState& request);
  // Brings a lazy request's fields and block table up to date; it stays lazy. No-op for
  // an explicit one.
  void sync(RequestState& request);
  // The KV blocks `request` holds (num_blocks, which lags for a lazy decode until its sync).
  std::int64_t held_blocks(const RequestState& request) const {
    if (request.lazy.owner != this) return request.num_blocks();
    return kv_.blocks_for(request.num_computed_tokens + (steps_ended_ - request.lazy.sync_step) + (planned_ ? 1 : 0));
  }
  // sync, and it leaves the lazy set (an explicit running request from now on).
  void make_explicit(RequestState& request);
  // Every lazy request in `running` made explicit (O(running)).
  void make_all_explicit(const std::vector<RequestState*>& running);

  // --- a step ---
  // The running pass of a step in which every running request takes its whole chunk (its
  // remaining tokens, or chunk_tokens() of them when `chunked`) and finds its KV blocks:
  // explicit requests get their chunks in running order, the lazy decodes that start a
  // new block get theirs unassigned, and the lazy decodes join the plan as a count.
  // Budget and blocks are checked first; when either could run short (so the policy's
  // own loop would stop, skip or preempt somewhere) nothing is planned, every lazy decode
  // is made explicit, and it returns false: the caller runs its own loop.
  // `budget` unlimited when `use_budget` is false (static batching).
  bool plan_running(SchedulerState& state, StepPlan& plan, std::int64_t& budget, bool chunked, bool use_budget);
  // --- quiet stretches (Replica's decode runs) ---
  // When every running request is lazy: how many of the next steps, up to `most`, would
  // plan every running request whole with nothing else happening -- up to the step at
  // which the first of them is due, and while the free blocks cover the new blocks they
  // start (nothing is freed meanwhile). `ends_due`: the last of them is that due step.
  std::int64_t quiet_steps(std::int64_t most, bool& ends_due);
  // plan_running, also when nothing is lazy (a decode run's due step: its due requests
  // were just made explicit, and nothing waits).
  bool plan_whole(SchedulerState& state, StepPlan& plan, std::int64_t& budget, bool chunked, bool use_budget);
  // plan_running's result for such a step, without a policy: the new blocks, the count.
  void plan_quiet_step(StepPlan& plan);
  // The same for a step whose plan nobody reads: the new blocks only.
  void start_quiet_step() {
    SS_ASSERT(!in_step_ && explicit_.empty() && count_ > 0, "a quiet step is all lazy decodes");
    allocate_crossers_blocks(crossing_count());
  }
  // At the start of the step the plan describes (REQUIRES: every lazy decode is in it):
  // `decode_units` is each decode's GPU-time share, `start_ns` the step's start.
  void charge_step_start(std::int64_t decode_units, Tick start_ns);
  // At the step's end: every lazy decode's increments, and its inter-token gap (the
  // step), which reaches the metrics with later steps' (flush_gaps: one batch per class).
  void charge_step_end(const StepSplit& split, Tick end_ns);
  // A decode run's step that nobody plans or reads, applied whole (Replica's decode
  // runs): start_quiet_step, charge_step_start and charge_step_end in one, for a step of
  // `total_ns` (`extra_ns` of it extras, `decode_ns` of it the decodes' model time) that
  // starts at the last step's end, each decode's GPU-time share `decode_units` (the
  // step's StepSplit). Inline: a run applies ten or so at a time, in a loop.
  void run_quiet_step(Tick total_ns, Tick extra_ns, Tick decode_ns, std::int64_t decode_units, Tick end_ns) {
    SS_ASSERT(!in_step_ && count_ > 0 && end_ns - total_ns == last_end_ns_, "a quiet step is all lazy decodes");
    const std::int64_t crossing = crossing_count();  // start_quiet_step
    if (crossing > 0) kv_.allocate_unassigned(crossing);
    gpu_units_ += decode_units;  // charge_step_start
    ++steps_ended_;              // charge_step_end
    last_end_ns_ = end_ns;
    add_step_increments(total_ns, extra_ns, decode_ns);
  }
  // run_quiet_step of the decode run's steps ending at ends[0], ..., ends[n - 1] (the first
  // starting at `start_ns`, the last step's end) where no step has extras (so its decode
  // time is its whole time), each decode's GPU-time share `units_of(step time)`: the same
  // sums, with what does not depend on each step's time worked out once for all n steps.
  // Inline: a run applies ten or so at a time.
  template <class UnitsOf>
  void run_quiet_steps_without_extras(Tick start_ns, const Tick* ends, std::size_t n, UnitsOf units_of) {
    SS_ASSERT(!in_step_ && count_ > 0 && start_ns == last_end_ns_ && n > 0, "a quiet step is all lazy decodes");
    // The steps' new blocks, taken in one call: the KV cache hands out the same blocks in
    // the same order whether asked for them step by step or all at once
    // (BlockPool::allocate_into), and nothing reads it between these steps.
    const std::int64_t crossing = crossings_in_steps(steps_ended_, n);
    if (crossing > 0) kv_.allocate_unassigned(crossing);
    // Each step's time: a GPU-time share, and an inter-token gap for the metrics.
    std::int64_t gpu_units = gpu_units_;
    Tick last_end = last_end_ns_;
    bool rising = true;  // every step at least as long as the one before
    Tick previous_ns = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Tick total_ns = ends[i] - last_end;
      last_end = ends[i];
      gpu_units += units_of(total_ns);
      rising &= total_ns >= previous_ns;
      previous_ns = total_ns;
      pending_gaps_[pending_count_++] = total_ns;
      if (pending_count_ == kGapsHeld) flush_gaps();  // reads none of the sums held here
    }
    // The gaps' suffix maxima, as add_step_increments keeps them step by step: where no
    // step is shorter than the one before, each step's gap removes the one before, so only
    // the last step's stays, after removing what it would have removed.
    const std::int64_t first_step = steps_ended_ + 1;
    if (rising) {
      while (!gap_maxima_.empty() && gap_maxima_.back().second <= previous_ns) gap_maxima_.pop_back();
      gap_maxima_.emplace_back(first_step + static_cast<std::int64_t>(n) - 1, previous_ns);
    } else {
      Tick before = start_ns;
      for (std::size_t i = 0; i < n; ++i) {
        const Tick total_ns = ends[i] - before;
        before = ends[i];
        while (!gap_maxima_.empty() && gap_maxima_.back().second <= total_ns) gap_maxima_.pop_back();
        gap_maxima_.emplace_back(first_step + static_cast<std::int64_t>(i), total_ns);
      }
    }
    own_ns_ += last_end - start_ns;  // add_step_increments: model time all decode time, no extras
    last_end_ns_ = last_end;
    steps_ended_ += static_cast<std::int64_t>(n);
    gpu_units_ = gpu_units;
    context_sum_ += count_ * static_cast<std::int64_t>(n);  // each computed one more token a step
  }
  // The gaps held back, to the metrics now (before the metrics are read).
  void flush_gaps();
  // Lazy requests whose next step needs them explicit (last token, a block whose hash
  // must be registered that step): made explicit. Call before scheduling each step.
  void make_due_explicit();
  // Whether every request due at the earliest due step is there for its last token alone
  // (it registers no block in that step). Such a step is planned as a quiet one, the due
  // requests decoding their last token lazily, and they leave after it (take_finished):
  // a lazy decode gets the increments of an explicit one, so the step's figures are the
  // same, and what is left for the step's end is what a finished chunk does there.
  bool due_are_last_tokens() const { return !due_.empty() && last_tokens_from(0, due_.front().key); }
  // After the step at which such requests were due: those that computed their last token
  // in it, in running order, their due entries gone. They are still lazy (unsynced).
  void take_finished(std::vector<RequestState*>& finished);

 private:
  struct Entry {
    std::int64_t key;  // running_seq (explicit list), due step (heap)
    std::uint64_t serial;
    RequestState* request;
    // In the heap: due for its last token alone, registering no block in that step
    // (due_steps when the entry was made; due_are_last_tokens reads it).
    bool last_token_only = false;
  };
  bool is_current(const Entry& e) const { return e.request->lazy.owner == this && e.request->lazy.serial == e.serial; }
  void insert_explicit(RequestState& request);
  // make_explicit but for its place in the explicit list: synced, out of the lazy counts.
  void leave_lazy_set(RequestState& request);
  // How many lazy decodes start a new block in the coming step: those of the step's wheel
  // slot (a lazy decode's first crossing came at most block_size - 1 steps after it
  // joined, and each since a block later). An empty slot is told by occupied_, without
  // reading the counts (cold: a cache miss).
  std::int64_t crossing_count() const {
    const std::size_t s = slot_of(steps_ended_);
    if (slot_known_empty(s) || slot_counts_.empty()) return 0;
    return slot_counts_[s];
  }
  // crossing_count() summed over the n steps that start with `step` ended: each slot's lazy
  // decodes cross once per visit, and n steps visit every slot n / block_size times and
  // the n % block_size slots from step's on once more (each lazy decode sits in one slot).
  std::int64_t crossings_in_steps(std::int64_t step, std::size_t n) const {
    if (slot_counts_.empty()) return 0;
    const auto steps = static_cast<std::int64_t>(n);
    // A power-of-two block size shifts and masks (a division by a variable is some 40 cycles).
    const std::int64_t full = slot_mask_ != 0 ? steps >> block_shift_ : steps / block_size_;
    const std::int64_t extra = steps - full * block_size_;
    std::int64_t crossing = full * count_;
    if (extra == 0) return crossing;
    const std::size_t first = slot_of(step);
    if (wheel_bits_) {
      // The window's slots as bits of occupied_ (first, first + 1, ... wrapping at block_size).
      const auto bs = static_cast<unsigned>(block_size_);
      const std::uint64_t ones = (std::uint64_t{1} << extra) - 1;  // extra < block_size <= 64
      std::uint64_t window = ones << first;
      if (first + static_cast<std::size_t>(extra) > bs) window |= ones >> (bs - first);
      if (bs < 64) window &= (std::uint64_t{1} << bs) - 1;
      for (std::uint64_t hit = occupied_ & window; hit != 0; hit &= hit - 1)
        crossing += slot_counts_[static_cast<std::size_t>(std::countr_zero(hit))];
      return crossing;
    }
    for (std::int64_t k = 0; k < extra; ++k) crossing += slot_counts_[slot_of(step + k)];
    return crossing;
  }
  // The step's crossers' blocks, unassigned (each request takes its own at its sync); the
  // lazy decodes are planned from now until the step's end.
  void allocate_crossers_blocks(std::int64_t crossing) {
    if (crossing > 0) kv_.allocate_unassigned(crossing);
    planned_ = true;
  }
  // charge_step_end's part for a step that held the lazy decodes: their increments.
  void add_step_increments(Tick total_ns, Tick extra_ns, Tick decode_ns) {
    // What account_chunk_end gives a decode-work chunk of this step.
    const Tick model_ns = total_ns - extra_ns;
    own_ns_ += decode_ns;
    rest_ns_ += model_ns - decode_ns;
    extra_ns_ += extra_ns;
    context_sum_ += count_;  // each computed one more token
    // Each emitted a token; its gap is the step (its previous token came at the step's start).
    pending_gaps_[pending_count_++] = total_ns;
    if (pending_count_ == kGapsHeld) flush_gaps();
    while (!gap_maxima_.empty() && gap_maxima_.back().second <= total_ns) gap_maxima_.pop_back();
    gap_maxima_.emplace_back(steps_ended_, total_ns);
  }
  // The lazy decodes join `plan` as a count.
  void add_count_to_plan(StepPlan& plan);
  void erase_explicit(const RequestState& request);
  // per_class_[cls] changed: the gaps from the next one on come with the new count.
  void note_class_count(std::size_t cls);
  // The first step (count of ended steps at its start) at which the lazy request must be
  // explicit is the earlier of two: its last token's, and that of the first block it must
  // register (the largest step if none). From its fields as of its last sync (at
  // make_lazy, the same as from steps_ended_).
  struct DueSteps {
    std::int64_t last_token;
    std::int64_t registration;
  };
  DueSteps due_steps(const RequestState& request) const;
  // due_are_last_tokens for the heap's entries from index i down with key `step`.
  bool last_tokens_from(std::size_t i, std::int64_t step) const;
  // The wheel slot of a step: step mod block_size (a mask for the usual powers of two:
  // this runs every step, and a division by a variable is some 40 cycles).
  std::size_t slot_of(std::int64_t step) const {
    const auto s = static_cast<std::uint64_t>(step);
    return static_cast<std::size_t>(slot_mask_ != 0 || block_size_ == 1 ? s & slot_mask_
                                                                        : s % static_cast<std::uint64_t>(block_size_));
  }
  // Bit s of occupied_ (for block sizes up to 64; none beyond, so every slot is read).
  std::uint64_t slot_bit(std::size_t s) const { return s < 64 ? std::uint64_t{1} << s : 0; }
  // Whether slot s holds nobody, known from occupied_ alone.
  bool slot_known_empty(std::size_t s) const { return wheel_bits_ && !(occupied_ & slot_bit(s)); }
  // Largest inter-token gap of the steps ended after step `after`.
  Tick max_gap_after(std::int64_t after) const;

  KvCacheManager& kv_;
  MeasurementListener& measurements_;
  std::int64_t block_size_;   // the KV cache's, which never changes
  std::uint64_t slot_mask_;   // block_size_ - 1 for a power of two, else 0
  int block_shift_;           // log2(block_size_) where slot_mask_ is set
  bool wheel_bits_;           // occupied_ covers every slot (block_size_ <= 64)
  std::int64_t count_ = 0;
  std::int64_t context_sum_ = 0;
  std::uint64_t next_serial_ = 1;
  std::int64_t next_running_seq_ = 1;
  std::vector<std::int64_t> per_class_;  // lazy decodes by class index

  // Sums over the replica's steps of what one decode in every one of them received.
  std::int64_t steps_ended_ = 0;
  bool in_step_ = false;  // a step holding the lazy decodes has started and not ended
  // A step holding them has been planned (its blocks allocated) and has not ended.
  bool planned_ = false;
  Tick last_end_ns_ = -1;
  Tick own_ns_ = 0, rest_ns_ = 0, extra_ns_ = 0;
  std::int64_t gpu_units_ = 0;  // includes the step in flight (charged at its start)
  // (step index, gap) with gaps strictly decreasing: the suffix maxima of the gaps, for a
  // synced request's longest gap. Cleared when the lazy set empties.
  std::vector<std::pair<std::int64_t, Tick>> gap_maxima_;
  // Gaps of the steps not yet given to the metrics (the first pending_count_, at most
  // kGapsHeld), and by class the number of its lazy decodes that had each, as runs over the
  // gaps (a count changes when a request joins or leaves the lazy set, far less often than a
  // step ends). A plain array: vector::push_back, left out of line by GCC, was 2.5% of a
  // light run.
  static constexpr std::size_t kGapsHeld = 256;
  std::array<Tick, kGapsHeld> pending_gaps_{};
  std::size_t pending_count_ = 0;
  std::vector<std::vector<CountRun>> pending_runs_;

  // Explicit running requests in running order, by running_seq.
  std::vector<Entry> explicit_;
  // Min-heap by due step (due_steps).
  std::vector<Entry> due_;
  // The wheel: lazy decodes counted by the step at which they start a new KV block,
  // modulo block_size (a lazy decode computes one token per step, so it starts one every
  // block_size steps, in the same slot: RequestState::LazySync::wheel_slot).
  std::vector<std::int64_t> slot_counts_;
  // Bit s set while wheel slot s is not empty: most steps start no block, and the counts
  // are a cache miss for a replica that others' events made cold.
  std::uint64_t occupied_ = 0;
};

}  // namespace servesim
