#include "sim/engine/lazy_decodes.h"

#include <algorithm>
#include <limits>

#include "sim/core/assert.h"
#include "sim/engine/scheduler.h"
#include "sim/engine/step_accounting.h"

namespace servesim {
namespace {

bool by_key(const auto& a, const auto& b) { return a.key < b.key; }
// std::push_heap/pop_heap make a max-heap: "later" first is a min-heap by step.
bool later_due(const auto& a, const auto& b) { return a.key > b.key; }

}  // namespace

void LazyDecodes::note_admitted(std::vector<RequestState*>& running) {
  // Admissions are appended: the requests without a place are the tail of the list.
  std::size_t first = running.size();
  while (first > 0 && running[first - 1]->running_seq == 0) --first;
  for (std::size_t i = first; i < running.size(); ++i) {
    RequestState& r = *running[i];
    r.running_seq = next_running_seq_++;
    explicit_.push_back(Entry{r.running_seq, 0, &r});
  }
}

void LazyDecodes::note_left_running(RequestState& r) {
  if (r.lazy.owner == this) {
    leave_lazy_set(r);  // never in the explicit list
  } else {
    erase_explicit(r);
  }
  r.running_seq = 0;
}

void LazyDecodes::insert_explicit(RequestState& r) {
  const Entry e{r.running_seq, 0, &r};
  explicit_.insert(std::upper_bound(explicit_.begin(), explicit_.end(), e, by_key<Entry, Entry>), e);
}

void LazyDecodes::erase_explicit(const RequestState& r) {
  const Entry e{r.running_seq, 0, nullptr};
  const auto it = std::lower_bound(explicit_.begin(), explicit_.end(), e, by_key<Entry, Entry>);
  if (it != explicit_.end() && it->request == &r) explicit_.erase(it);
}

bool LazyDecodes::eligible(const RequestState& r) const {
  return r.status == RequestStatus::running && r.running_seq > 0 && r.lazy.owner == nullptr &&
         r.first_token_ns >= 0 && r.spec.output_tokens > 0 && r.num_output_done < r.spec.output_tokens &&
         !r.in_prefill() && r.remaining() == 1 && r.preempted_at_ns < 0 && r.swapped_blocks() == 0 &&
         r.last_token_ns == last_end_ns_ && r.acct.mark_ns == last_end_ns_;
}

LazyDecodes::DueSteps LazyDecodes::due_steps(const RequestState& r) const {
  // Its last token: it has emitted num_output_done, one more at the end of every step.
  const std::int64_t synced = r.lazy.sync_step;
  DueSteps d{synced + (r.spec.output_tokens - r.num_output_done - 1), std::numeric_limits<std::int64_t>::max()};
  if (!kv_.prefix_caching()) return d;
  // A block it completes whose registration must happen in its step: one with a source's
  // hash (registered at the step's end, for others to hit), or any once it keeps a table
  // of its private blocks (registered at the step's start). Other completed blocks only
  // note where deferred private hashes start, which sync() does.
  const std::int64_t bs = kv_.block_size();
  const std::int64_t c = r.num_computed_tokens;
  const std::int64_t first_completion = synced + (bs - 1 - c % bs);  // the step computing token c' with (c'+1) % bs == 0
  const std::int64_t block = c / bs;
  const bool has_table = r.private_blocks_kept_by(&kv_);
  if (has_table || block < static_cast<std::int64_t>(r.spec.block_hashes.size())) d.registration = first_completion;
  return d;
}

bool LazyDecodes::last_tokens_from(std::size_t i, std::int64_t step) const {
  // The entries with the heap's least key are the root and the children, recursively, that
  // share it: a heap keeps no child before its parent.
  if (i >= due_.size() || due_[i].key != step) return true;
  const Entry& e = due_[i];
  if (!e.last_token_only && is_current(e)) return false;
  return last_tokens_from(2 * i + 1, step) && last_tokens_from(2 * i + 2, step);
}

void LazyDecodes::take_finished(std::vector<RequestState*>& finished) {
  SS_ASSERT(!in_step_, "finished requests are taken between steps");
  finished.clear();
  while (!due_.empty() && due_.front().key < steps_ended_) {
    const Entry e = due_.front();
    std::pop_heap(due_.begin(), due_.end(), later_due<Entry, Entry>);
    due_.pop_back();
    if (!is_current(e)) continue;
    SS_ASSERT(e.last_token_only && e.key == steps_ended_ - 1, "a lazy request left past its last token");
    finished.push_back(e.request);
  }
  std::sort(finished.begin(), finished.end(),
            [](const RequestState* a, const RequestState* b) { return a->running_seq < b->running_seq; });
}

Tick LazyDecodes::max_gap_after(std::int64_t after) const {
  const auto it = std::upper_bound(gap_maxima_.begin(), gap_maxima_.end(), after,
                                   [](std::int64_t step, const std::pair<std::int64_t, Tick>& e) { return step < e.first; });
  return it == gap_maxima_.end() ? -1 : it->second;
}

void LazyDecodes::make_lazy(RequestState& r) {
  SS_ASSERT(!in_step_ && !planned_ && eligible(r), "only a steady decode between steps can become lazy");
  erase_explicit(r);
  r.lazy = RequestState::LazySync{this, next_serial_++, steps_ended_, own_ns_, rest_ns_, extra_ns_, gpu_units_, 0};
  ++count_;
  context_sum_ += r.num_computed_tokens;
  const auto cls = static_cast<std::size_t>(r.spec.class_index);
  if (per_class_.size() <= cls) {
    per_class_.resize(cls + 1, 0);
    pending_runs_.resize(cls + 1);
  }
  ++per_class_[cls];
  note_class_count(cls);
  // Its next new block: when it computes token num_blocks x block_size.
  const std::int64_t bs = kv_.block_size();
  if (slot_counts_.empty()) slot_counts_.assign(static_cast<std::size_t>(bs), 0);
  const std::int64_t crossing = steps_ended_ + (r.num_blocks() * bs - r.num_computed_tokens);
  SS_ASSERT(crossing >= steps_ended_, "a decode holds fewer blocks than its computed tokens need");
  r.lazy.wheel_slot = static_cast<int>(slot_of(crossing));
  ++slot_counts_[static_cast<std::size_t>(r.lazy.wheel_slot)];
  occupied_ |= slot_bit(static_cast<std::size_t>(r.lazy.wheel_slot));
  const DueSteps due = due_steps(r);
  due_.push_back(Entry{std::min(due.last_token, due.registration), r.lazy.serial, &r, due.last_token < due.registration});
  std::push_heap(due_.begin(), due_.end(), later_due<Entry, Entry>);
}

void LazyDecodes::sync(RequestState& r) {
  if (r.lazy.owner != this) return;
  RequestState::LazySync& z = r.lazy;
  const std::int64_t k = steps_ended_ - z.sync_step;          // steps whose ends it has not seen
  const std::int64_t started = k + (in_step_ ? 1 : 0);         // steps whose starts it has not seen
  // The step-by-step path notes, at the start of the step that completes a block past the
  // source's hashes, where deferred private hashes begin (KvCacheManager::cache_blocks).
  if (started > 0) kv_.note_pending_private_blocks(r, started);
  RequestAccounting& a = r.acct;
  r.num_computed_tokens += k;
  // The blocks started since its last sync, allocated unassigned at their steps' starts
  // (the step planned now included).
  const std::int64_t held = kv_.blocks_for(r.num_computed_tokens + (planned_ ? 1 : 0));
  if (held > r.num_blocks()) kv_.assign_blocks(r, held - r.num_blocks());
  r.num_output_done += k;
  a.decode.decode_compute_ns += own_ns_ - z.own_ns;
  a.decode.prefill_interference_ns += rest_ns_ - z.rest_ns;
  a.decode.overhead_ns += extra_ns_ - z.extra_ns;
  a.gpu.decode_units += gpu_units_ - z.gpu_units;
  if (k > 0) {
    a.mark_ns = last_end_ns_;
    r.last_token_ns = last_end_ns_;
    a.max_itl_ns = std::max(a.max_itl_ns, max_gap_after(z.sync_step));
  }
  z.sync_step = steps_ended_;
  z.own_ns = own_ns_;
  z.rest_ns = rest_ns_;
  z.extra_ns = extra_ns_;
  z.gpu_units = gpu_units_;
}

void LazyDecodes::make_explicit(RequestState& r) {
  leave_lazy_set(r);
  insert_explicit(r);
}

void LazyDecodes::leave_lazy_set(RequestState& r) {
  SS_ASSERT(r.lazy.owner == this, "making explicit a request that is not lazy here");
  sync(r);
  --count_;
  context_sum_ -= r.num_computed_tokens;
  const auto cls = static_cast<std::size_t>(r.spec.class_index);
  --per_class_[cls];
  note_class_count(cls);
  if (--slot_counts_[static_cast<std::size_t>(r.lazy.wheel_slot)] == 0)
    occupied_ &= ~slot_bit(static_cast<std::size_t>(r.lazy.wheel_slot));
  r.lazy = RequestState::LazySync{};
  if (count_ == 0) {  // every entry left is stale
    SS_ASSERT(kv_.unassigned_blocks() == 0, "blocks allocated for lazy decodes that left");
    due_.clear();
    gap_maxima_.clear();
  }
}

void LazyDecodes::make_all_explicit(const std::vector<RequestState*>& running) {
  if (count_ == 0) return;
  explicit_.clear();
  for (RequestState* r : running) {
    if (r->lazy.owner == this) {
      sync(*r);
      r->lazy = RequestState::LazySync{};
    }
    // Admissions of the pass under way have no place yet: note_admitted adds them.
    if (r->running_seq > 0) explicit_.push_back(Entry{r->running_seq, 0, r});
  }
  count_ = 0;
  context_sum_ = 0;
  for (std::size_t cls = 0; cls < per_class_.size(); ++cls) {
    if (per_class_[cls] == 0) continue;
    per_class_[cls] = 0;
    note_class_count(cls);
  }
  std::fill(slot_counts_.begin(), slot_counts_.end(), 0);
  occupied_ = 0;
  SS_ASSERT(kv_.unassigned_blocks() == 0, "blocks allocated for lazy decodes that left");
  due_.clear();
  gap_maxima_.clear();
}

void LazyDecodes::make_due_explicit() {
  SS_ASSERT(!in_step_, "due requests are made explicit between steps");
  while (!due_.empty() && due_.front().key <= steps_ended_) {
    const Entry e = due_.front();
    std::pop_heap(due_.begin(), due_.end(), later_due<Entry, Entry>);
    due_.pop_back();
    if (is_current(e)) make_explicit(*e.request);
  }
}


void LazyDecodes::add_count_to_plan(StepPlan& plan) {
  plan.lazy_decodes = count_;
  plan.lazy_context_sum = context_sum_;
  plan.shape.decode_seqs += count_;
  plan.shape.decode_context_sum += context_sum_;
}

bool LazyDecodes::plan_running(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool chunked,
                               bool use_budget) {
  if (count_ == 0) return false;  // nothing lazy: the policy's own loop is exact, and short
  return plan_whole(s, plan, budget, chunked, use_budget);
}

bool LazyDecodes::plan_whole(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool chunked, bool use_budget) {
  SS_ASSERT(!in_step_, "a step is planned between steps");
  const std::int64_t crossing = crossing_count();
  // Does everyone get a whole chunk? Tokens within the budget, blocks within the free ones.
  const std::int64_t cap = s.config.prefill_chunk_tokens;
  std::int64_t tokens = count_;
  std::int64_t blocks = crossing;
  for (const Entry& e : explicit_) {
    const RequestState& r = *e.request;
    std::int64_t n = r.remaining();
    if (chunked && cap > 0) n = std::min(n, cap);
    tokens += n;
    blocks += std::max<std::int64_t>(0, kv_.blocks_for(r.num_computed_tokens + n) - r.num_blocks());
  }
  if ((use_budget && tokens > budget) || blocks > kv_.free_blocks()) {
    make_all_explicit(s.running);
    return false;
  }
  // The policy's loop, in running order; each allocation succeeds (checked above). The
  // crossers' blocks first, where the policy's loop interleaves them by running order:
  // the same number of blocks leave the free queue, so the same ones are evicted.
  allocate_crossers_blocks(crossing);
  for (const Entry& e : explicit_) {
    RequestState& r = *e.request;
    const std::int64_t n = chunked ? sched::chunk_tokens(s, r, budget) : r.remaining();
    const bool allocated = kv_.allocate(r, n);
    SS_ASSERT(allocated, "a whole-chunk step ran out of KV blocks");
    sched::add_chunk(plan, r, n);
    if (use_budget) budget -= n;
  }
  add_count_to_plan(plan);
  if (use_budget) budget -= count_;
  return true;
}

std::int64_t LazyDecodes::quiet_steps(std::int64_t most, bool& ends_due) {
  SS_ASSERT(!in_step_ && explicit_.empty() && count_ > 0, "a quiet stretch is all lazy decodes");
  // Up to the first due request's step, which ends the stretch (a stale heap entry only
  // ends it early).
  bool due_within = false;
  if (!due_.empty() && due_.front().key - steps_ended_ + 1 <= most) {
    most = due_.front().key - steps_ended_ + 1;
    due_within = true;
  }
  ends_due = false;
  if (most <= 0) return 0;
  // While the free blocks cover every new block the stretch starts: a slot's lazy decodes
  // all start one at the steps of its residue (their next crossing is the slot's next).
  std::int64_t free = kv_.free_blocks();
  // Each lazy decode sits in one wheel slot, and `most` steps visit a slot at most
  // ceil(most / block_size) times: when the free blocks cover that many blocks a decode,
  // the loop below could not run short, so it is spared.
  if (count_ * ((most + block_size_ - 1) / block_size_) <= free) {
    ends_due = due_within;
    return most;
  }
  for (std::int64_t k = 0; k < most; ++k) {
    free -= slot_counts_[slot_of(steps_ended_ + k)];
    if (free < 0) return k;
  }
  ends_due = due_within;
  return most;
}

void LazyDecodes::plan_quiet_step(StepPlan& plan) {
  start_quiet_step();
  add_count_to_plan(plan);
}

void LazyDecodes::charge_step_start(std::int64_t decode_units, Tick start_ns) {
  SS_ASSERT(count_ > 0 && start_ns == last_end_ns_, "lazy decodes decode in back-to-back steps");
  gpu_units_ += decode_units;
  in_step_ = true;
}

void LazyDecodes::note_class_count(std::size_t cls) {
  std::vector<CountRun>& runs = pending_runs_[cls];
  const std::size_t from = pending_count_;
  if (!runs.empty() && runs.back().from == from) {
    runs.back().count = per_class_[cls];  // no gap came with the count it replaces
  } else {
    runs.push_back(CountRun{from, per_class_[cls]});
  }
}

void LazyDecodes::flush_gaps() {
  if (pending_count_ == 0) return;
  for (std::size_t cls = 0; cls < per_class_.size(); ++cls) {
    std::vector<CountRun>& runs = pending_runs_[cls];
    if (!runs.empty()) measurements_.on_token_gap_runs(static_cast<int>(cls), std::span<const Tick>(pending_gaps_.data(), pending_count_), runs);
    runs.clear();
    if (per_class_[cls] > 0) runs.push_back(CountRun{0, per_class_[cls]});
  }
  pending_count_ = 0;
}

void LazyDecodes::charge_step_end(const StepSplit& split, Tick end_ns) {
  SS_ASSERT(in_step_ || count_ == 0, "a step left its lazy decodes out");
  ++steps_ended_;
  last_end_ns_ = end_ns;
  planned_ = false;
  if (!in_step_) return;
  in_step_ = false;
  add_step_increments(split.total_ns, split.extra_ns, split.decode_ns);
}

}  // namespace servesim
