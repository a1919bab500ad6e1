#pragma once
// A class's `slo:` block (docs/scenario.md, "slo"): each of ttft, tpot, itl, e2el either a
// bound (`ttft: 2s`, stated for the p99) or a mapping from one statistic to its bound
// (`itl: {every: 50ms}`, `tpot: {mean: 40ms}`).
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// Fails at the offending key (file, line) on an unknown metric or statistic, a bound without
// a unit, or a bound <= 0.
SloSpec parse_slo_block(const Field& f);

}  // namespace servesim
