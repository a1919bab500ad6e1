#pragma once
// What a run that completed no request says instead of a table of empty figures: what
// happened to its arrivals and what changes each outcome. `servesim run` prints it and
// exits 1; the Python API's run passes it on as a warning.
#include <string>

#include "sim/metrics/run_result.h"

namespace servesim {

// "no request completed: arrived N, rejected R, unfinished U" and a line per rejection
// reason with its fix (and one for a stop.time that ended the run first), each line ending
// in a newline. REQUIRES: result.completed == 0.
std::string nothing_served_message(const RunResult& result);

}  // namespace servesim
