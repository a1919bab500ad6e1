#pragma once
// The sweep study (`servesim sweep`, docs/sweeps.md): one full run per point of the axes
// (their cartesian product, or zipped), on `jobs` threads, every point loaded and validated
// before any runs; the result is the sweep table (sim/study/sweep_table.h) with its Pareto
// front. A point whose configuration cannot be built is a row with its error, not a failure
// of the sweep.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/study/sweep_spec.h"
#include "sim/study/sweep_table.h"

namespace servesim {

struct SweepRequest {
  std::string scenario_path;
  std::vector<SweepAxis> axes;
  SweepMode mode = SweepMode::product;
  std::optional<SweepShard> shard;        // run only this shard's points
  std::vector<std::string> sets;          // --set overrides of every point (axes win)
  std::optional<std::uint64_t> seed;      // every point's seed; the scenario's without it
  int replicates = 1;                     // seeds per point (intervals in the rows)
  int jobs = 1;
  std::optional<std::vector<ParetoObjective>> objectives;  // default_objectives() without

  // Throws ConfigError naming the field for what needs no scenario to refuse (replicates,
  // jobs). run_sweep calls it first.
  void validate() const;
};

// A point too short to judge whether it kept up (summary too_short_to_judge), with the
// length that would judge it: lengthened as `explain` and `capacity` lengthen theirs (by what
// the run asks, at least 2x; run_judgement.h). The sweep runs every point at the length it
// was given, so that rows stay comparable; this says how to rerun.
struct SweepTooShort {
  std::size_t point = 0;
  std::string stop_key;   // "stop.requests" or "stop.time"; "" when the scenario has neither
  std::string stop_value; // its value that would judge the point ("800", "120s")
};

struct SweepStudy {
  SweepTable table;
  std::size_t failed = 0;  // points that could not be built
  std::vector<SweepTooShort> too_short;  // by point
};

// `on_loaded` sees the table's header (no rows yet) once every point is loaded, before any
// runs; `on_point` each point as its run ends (its index, its summary or nullptr and the
// error), from any thread, one at a time. `on_warning` gets, before any runs, the long-run
// warning of the largest point (sim/scenario/run_size.h) when it would take too long.
// Throws ConfigError on bad input.
SweepStudy run_sweep(const SweepRequest& request, const std::function<void(const SweepTable&)>& on_loaded = {},
                     const std::function<void(std::size_t, const RunSummary*, const std::string&)>& on_point = {},
                     const std::function<void(const std::string&)>& on_warning = {});

}  // namespace servesim
