#pragma once
// Whether a run sustains the load offered to it, measured on a window of the arrival span
// rather than over the whole run (whose drain dilutes the throughput): the second half of
// the span from the first arrival to the last, after the start-up transient. Over that
// window a stable system completes requests as fast as they arrive, only shifted by their
// latency; an overloaded one completes them at its service rate. So
//   served / offered = completions in the window / arrivals in the window
// is ~1 when the load is sustained and mu / lambda below it.
//
// The ratio is itself noisy: with Poisson arrivals of rate lambda and a mean latency W,
// the completions in the window are the arrivals of a window shifted by W, which differs
// from the window in two stretches of length W, so the ratio's relative standard deviation
// is about sqrt(2 lambda W) / (lambda T) for a window of length T. A run judges a
// tolerance `tol` only when 3 such deviations fit inside it and the latency is at most half
// the window; otherwise it is too short, and `needed_scale` says by how much to lengthen it.
// That estimate holds for a queue whose requests come and go independently (Poisson in,
// Poisson out); near capacity a queue's length wanders much more widely (one burst is
// still being worked off when the next comes), and served / offered over the window is
// (arrivals - change of the requests inside) / arrivals. So the run also samples the
// requests inside at its arrivals (one sample per cell, below), fits a line through the
// window's samples and takes sqrt(2) x their spread about it, over the arrivals, as a
// second deviation; the larger of the two counts. The line removes a steady growth (an
// overload), which is the shortfall itself and not noise. The spread does not shrink
// with a longer window, so it asks for a 3 x deviation / tolerance times longer one.
// A shortfall beyond the tolerance by more than 3 deviations is plain at any length, though
// (`plainly_short`): an overloaded run need not be lengthened to be told from a stable one.
//
// Every run measures it (Simulation), so memory must not grow with the requests: arrivals
// and completions are counted in cells of time since the first arrival, 1 ns wide below
// 512 ns and 2^e ns wide from 256 x 2^e to 512 x 2^e ns (256 cells per doubling, a few
// thousand in all). The window runs from the first cell edge at or after the midpoint of
// the span to the edge of the cell that holds the last arrival, so each end moves inward
// by less than 1/256 of the time since the first arrival: the window is the second half of
// the span to within 0.8%, and arrivals, completions and latencies are counted exactly in it.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

struct RequestRecord;

// The default share by which the served rate may fall short of the offered one.
inline constexpr double kSustainTolerance = 0.05;

struct SustainedRate {
  double window_s = 0;
  std::int64_t arrivals = 0;     // in the window
  std::int64_t completions = 0;  // finishing in the window
  double offered_per_s = 0;      // arrivals / window
  double served_per_s = 0;       // completions / window
  double mean_latency_s = 0;     // end-to-end, of the requests completed in the window
  double noise = 0;              // relative standard deviation of served / offered
  double queue_spread = 0;       // standard deviation of the requests inside about their trend
  bool long_enough = false;
  bool latency_fits = false;     // mean latency at most half the window
  double needed_scale = 1;       // lengthen the run by this factor to judge `tolerance`
  std::string why_short;         // when !long_enough
  bool sustained(double tolerance) const { return served_per_s >= (1 - tolerance) * offered_per_s; }
  // Served short of (1 - tolerance) of the offered rate by more than 3 deviations.
  bool plainly_short(double tolerance) const {
    return latency_fits && served_per_s < (1 - tolerance - 3 * noise) * offered_per_s;
  }
};

class SustainedRateMeter {
 public:
  // Every arrival, in time order (the first one sets the cells' origin), before its record.
  void note_arrival(Tick arrival_ns);
  // Optional, after an arrival at `now_ns`: the requests inside (waiting or running). The
  // first of each cell is kept as its sample.
  void note_in_flight(Tick now_ns, std::int64_t in_flight);
  // Every request the run ends with, in any order: arrivals count unless rejected,
  // completions only when completed. REQUIRES: note_arrival(r.arrival_ns) came first.
  void add(const RequestRecord& r);
  SustainedRate measure(double tolerance) const;

  // The cell holding `offset_ns` >= 0 ns after the first arrival, and a cell's first ns.
  static std::size_t cell_of(Tick offset_ns);
  static Tick cell_start(std::size_t cell);

 private:
  // The standard deviation of the in-flight samples of cells [from, to) about their
  // least-squares line over time (`samples` of them, means t_mean s and n_mean requests).
  double queue_spread(std::size_t from, std::size_t to, double t_mean, double n_mean, double samples) const;
  struct Cell {
    std::int64_t arrivals = 0;     // not rejected, arriving in the cell
    std::int64_t completions = 0;  // finishing in the cell
    double latency_s = 0;          // their end-to-end latencies, summed
    Tick sample_ns = -1;           // note_in_flight's first call in the cell, -1: none
    std::int64_t in_flight = 0;    // its count
  };
  Cell& cell_at(Tick t_ns);

  Tick first_ns_ = -1;
  Tick last_ns_ = -1;
  std::vector<Cell> cells_;
};

}  // namespace servesim
