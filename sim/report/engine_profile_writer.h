#pragma once
// Writing the engine profile `servesim calibrate --from-benchmark` fits: a preset file that
// starts from the scenario's preset and sets the fitted overheads, with the fit recorded
// in its comments (the benchmark, the split, every figure before and after, fitted and
// held out), so the file says where its numbers came from.
#include <ostream>
#include <string>

#include "sim/study/overhead_calibration.h"

namespace servesim {

struct EngineProfileProvenance {
  std::string command;        // the command line that made it
  std::string base_preset;    // the scenario's engine preset ("" if none)
  std::string benchmark;      // describe_benchmark(...)
};

void write_engine_profile(std::ostream& os, const OverheadCalibration& fit, const EngineProfileProvenance& provenance);

// A duration as the engine keys take it: "412.5us" (microseconds, 1 decimal).
std::string engine_duration_text(Tick ns);

}  // namespace servesim
