#pragma once
// Tells a queue that grows without bound from one that is merely long, from the backlog at
// each arrival (docs/reliability.md, "Saturation"), and names the limit that binds while it
// grows. Fed by Simulation::admit_one (the backlog) and Simulation::on_head_blocked (why).
//
// The excess E(n) after the n-th arrival is the larger of two backlogs: the requests that
// arrived and were never scheduled (waiting at a replica for a first step, whatever holds
// them there: slots, KV blocks, token budget, compute), and the requests inside beyond the
// slots the cluster runs at once (replicas x max_num_seqs; this one also sees work queued
// past the first step, e.g. at a disaggregated decode pool). In a stable system E
// fluctuates around a level; past saturation it grows by (1 - capacity / arrival rate) per
// arrival, so it is proportional to n and doubles between n/2 and n.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace servesim {

class SaturationWatch {
 public:
  // Causes counted per step that left requests waiting, in HeadBlock's order
  // (sim/engine/replica.h): max_num_seqs, token_budget, kv_cache, compute.
  using Causes = std::array<std::int64_t, 4>;
  static constexpr const char* kCauseNames[4] = {"max_num_seqs", "token_budget", "kv_cache", "compute"};

  // REQUIRES: slots >= 0.
  explicit SaturationWatch(std::int64_t slots);

  // One step left its waiting queue's head waiting because of cause `kind` (0..3).
  void note_blocked(int kind) { ++causes_[static_cast<std::size_t>(kind)]; }

  // After each arrival: `arrived` counts from 1 and grows by one per call; `in_flight` the
  // requests inside, `unscheduled` those of them never scheduled (Simulation leaves out the
  // arrivals of the current instant, which wait by design). Returns true when
  // the growth is already unmistakable, so the run can stop: at a power-of-two arrival
  // n >= kEarliestCheck, E(n) >= max(n/16, 8 sqrt(n)), and E grew by half or more over each
  // of the last two doublings: E(n) >= 1.5 E(n/2) and E(n/2) >= 1.5 E(n/4). A queue at
  // exactly full load wanders like a random walk, about sqrt(n) after n arrivals, so 8 sqrt(n)
  // is 8 of its standard deviations (for Poisson arrivals and steady service); an overload
  // by a share d of the arrivals passes it once n >= 64 / d^2 (n = 1600 at 25% overload).
  // The two growth steps keep a burst in a stable queue (a trace's rush hour) from
  // passing for a trend.
  bool observe(std::int64_t arrived, std::int64_t in_flight, std::int64_t unscheduled);

  // After the run: E at the last arrival is at least max(A/100, 3 sqrt(A), 8) for A arrivals
  // and at least 1.5 times E at the power-of-two arrival in (A/4, A/2]. Also true when
  // observe() returned true. False with fewer than 64 arrivals (too few to say).
  bool saturated() const;
  bool tripped_early() const { return early_; }
  std::int64_t excess() const { return last_excess_; }

  // The limit that bound while the backlog grew: the cause counted most often between the
  // power-of-two arrival in (A/4, A/2] and the last arrival (the window saturated() judges
  // growth over; the drain after the last arrival is left out), ties to the earlier name;
  // "compute" when no step left anyone waiting there (the backlog grew between steps'
  // queues, e.g. in KV hand-overs). "none" when not saturated().
  std::string saturated_by() const;
  // The same cause whether or not the backlog grew: what held the queue's head over that
  // window, for a run judged saturated by its served rate (saturation_verdict.h).
  std::string binding_cause() const;
  // The counts behind saturated_by(), over that window.
  Causes causes_in_window() const;
  // The requests inside (observe's `in_flight`) at the last arrival less those at the start
  // of that window: how far this queue grew while it was judged. Compares the pools of one
  // run (saturation_verdict.h, name_binding_pool): the short one grows in proportion to the
  // arrivals, the others only wander.
  std::int64_t inside_growth() const;

  static constexpr std::int64_t kEarliestCheck = 1024;

 private:
  std::size_t window_start() const;  // index into *_at_pow2_ of the arrival in (A/4, A/2]

  std::int64_t slots_;
  std::int64_t arrived_ = 0;
  std::int64_t last_excess_ = 0;
  std::vector<std::int64_t> excess_at_pow2_;  // E at arrival 1, 2, 4, 8, ...
  std::int64_t last_inside_ = 0;
  std::vector<std::int64_t> inside_at_pow2_;  // in_flight at arrival 1, 2, 4, 8, ...
  Causes causes_{};                            // running totals
  Causes causes_at_last_arrival_{};
  std::vector<Causes> causes_at_pow2_;  // totals at arrival 1, 2, 4, 8, ...
  bool early_ = false;
};

}  // namespace servesim
