#pragma once
// The sweep table on the console (`servesim sweep`): a short view, one line per point;
// sweep.csv and sweep.json (sim/study/sweep_table.h) hold everything.
#include <iosfwd>

#include "sim/study/sweep_table.h"

namespace servesim {

// point, each axis, completed, req/s, out tok/s, TTFT p99, ITL p99, each Pareto objective's
// field these lack, and * on the Pareto front; a point that could not run shows its error.
void print_sweep_table(const SweepTable& table, std::ostream& out);

}  // namespace servesim
