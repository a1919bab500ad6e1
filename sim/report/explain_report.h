#pragma once
// `servesim explain`'s two forms of the explain study (sim/study/explain_study.h):
// explain.json and the text report (docs/explain.md).
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/explain_study.h"

namespace servesim {

nlohmann::ordered_json explain_to_json(const ExplainStudy& study);
std::string explain_text(const ExplainStudy& study);

}  // namespace servesim
