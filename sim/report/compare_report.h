#pragma once
// `servesim compare`'s two forms of a comparison (sim/study/compare_study.h): the table of
// regressions and improvements (every figure with `all`) and the JSON object.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/summary_compare.h"

namespace servesim {

// The table: regressions, improvements and figures with samples on one side only (`all`:
// every figure), then the count line.
void print_comparison(const Comparison& cmp, bool all, std::ostream& out);
// What the two summaries deployed differently, as header lines ("deployments differ ...",
// then one line per pool), or why it could not be checked; empty when they match or for
// sweep tables.
std::vector<std::string> deployment_lines(const Comparison& cmp, const std::string& baseline_path,
                                          const std::string& candidate_path);
// One line per thing the table does not show: the figures only one file has (by field, with
// the blocks), and the comparison's notes. Empty when the two files match in form.
std::vector<std::string> comparison_warnings(const Comparison& cmp, const std::string& baseline_path,
                                             const std::string& candidate_path);
nlohmann::ordered_json comparison_to_json(const Comparison& cmp);

}  // namespace servesim
