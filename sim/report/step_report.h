#pragma once
// `servesim step`'s two forms of a priced step (sim/study/step_study.h): the table and
// the JSON object (docs/cost-model.md, section 6).
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "sim/study/step_study.h"

namespace servesim {

nlohmann::ordered_json step_to_json(const StepStudy& step);
void print_step_table(const StepStudy& step, std::ostream& out);

}  // namespace servesim
