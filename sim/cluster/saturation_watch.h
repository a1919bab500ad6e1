#pragma once
// Tells a queue that grows without bound from one that is merely long, from the backlog at
// each arrival (docs/sweeps.md, "Saturation"). Fed by Simulation::set_arrival_observer.
//
// The excess E(n) is the number of requests inside after the n-th arrival minus the slots
// the cluster runs at once (replicas x max_num_seqs): what waits beyond full batches. In a
// stable system E fluctuates around a level; past saturation it grows by (1 - capacity /
// arrival rate) per arrival, so it is proportional to n and doubles between n/2 and n.
#include <cstdint>
#include <vector>

namespace servesim {

class SaturationWatch {
 public:
  // REQUIRES: slots >= 0.
  explicit SaturationWatch(std::int64_t slots);

  // After each arrival: `arrived` counts from 1 and grows by one per call. Returns true when
  // the growth is already unmistakable, so the run can stop: at a power-of-two arrival
  // n >= kEarliestCheck, E(n) >= max(n/16, 8 sqrt(n)), and E grew by half or more over each
  // of the last two doublings: E(n) >= 1.5 E(n/2) and E(n/2) >= 1.5 E(n/4). A queue at
  // exactly full load wanders like a random walk, about sqrt(n) after n arrivals, so 8 sqrt(n)
  // is 8 of its standard deviations (for Poisson arrivals and steady service); an overload
  // by a share d of the arrivals passes it once n >= 64 / d^2 (n = 1600 at 25% overload).
  // The two growth steps keep a burst in a stable queue (a trace's rush hour) from
  // passing for a trend.
  bool observe(std::int64_t arrived, std::int64_t in_flight);

  // After the run: E at the last arrival is at least max(A/100, 3 sqrt(A), 8) for A arrivals
  // and at least 1.5 times E at the power-of-two arrival in (A/4, A/2]. Also true when
  // observe() returned true. False with fewer than 64 arrivals (too few to say).
  bool saturated() const;
  bool tripped_early() const { return early_; }
  std::int64_t excess() const { return last_excess_; }

  static constexpr std::int64_t kEarliestCheck = 1024;

 private:
  std::int64_t slots_;
  std::int64_t arrived_ = 0;
  std::int64_t last_excess_ = 0;
  std::vector<std::int64_t> excess_at_pow2_;  // E at arrival 1, 2, 4, 8, ...
  bool early_ = false;
};

}  // namespace servesim
