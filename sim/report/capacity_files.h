#pragma once
// What `servesim capacity --out DIR` writes: capacity.json (sim/report/capacity_report.h)
// and, when some value is feasible, the summary.json of the run at capacity.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/capacity_study.h"

namespace servesim {

// capacity_to_json(study, sustain_tolerance), written to OUT_DIR/capacity.json and with the
// run at capacity's OUT_DIR/summary.json when `out_dir` is not empty (nothing is written
// when it is). Returns the JSON, which --json prints. Throws ConfigError(path, 0, "--out",
// ...) when a file cannot be written.
nlohmann::ordered_json write_capacity_files(const CapacityStudy& study, double sustain_tolerance,
                                            const std::string& out_dir);

}  // namespace servesim
