#pragma once
// `servesim compare`'s two forms of a comparison (sim/study/compare_study.h): the table of
// regressions and improvements (every figure with `all`) and the JSON object.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/summary_compare.h"

namespace servesim {

void print_comparison(const Comparison& cmp, bool all, std::ostream& out);
// One line per thing the table does not show: the figures only one file has (by field, with
// the blocks), and the comparison's notes. Empty when the two files match in form.
std::vector<std::string> comparison_warnings(const Comparison& cmp, const std::string& baseline_path,
                                             const std::string& candidate_path);
nlohmann::ordered_json comparison_to_json(const Comparison& cmp);

}  // namespace servesim
