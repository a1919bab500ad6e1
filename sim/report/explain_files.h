#pragma once
// What `servesim explain` writes: explain.json (sim/report/explain_report.h) in its output
// folder.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/explain_study.h"

namespace servesim {

struct ExplainFiles {
  nlohmann::ordered_json json;  // explain.json's content (explain_to_json), which --json prints
  std::string json_path;
};

// Writes explain.json under `out_dir` (default results/NAME-explain), whole or not at all.
// Throws ConfigError(path, 0, "--out", ...) when it cannot be written.
ExplainFiles write_explain_files(const ExplainStudy& study, std::string out_dir);

}  // namespace servesim
