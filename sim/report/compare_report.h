#pragma once
// `servesim compare`'s two forms of a comparison (sim/study/compare_study.h): the table of
// regressions and improvements (every figure with `all`) and the JSON object.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "sim/study/summary_compare.h"

namespace servesim {

void print_comparison(const Comparison& cmp, bool all, std::ostream& out);
nlohmann::ordered_json comparison_to_json(const Comparison& cmp);

}  // namespace servesim
