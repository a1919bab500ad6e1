#include "sim/study/compare_study.h"

#include "sim/core/errors.h"
#include "sim/study/json_file.h"
#include "sim/study/sweep_table.h"

namespace servesim {

Comparison compare_files(const std::string& baseline, const std::string& candidate, const Tolerances& tolerances) {
  const auto base = read_json_file(baseline);
  const auto cand = read_json_file(candidate);
  if (is_sweep_table_json(base) || is_sweep_table_json(cand)) {
    if (!is_sweep_table_json(base) || !is_sweep_table_json(cand))
      throw ConfigError(is_sweep_table_json(base) ? candidate : baseline, 0, "servesim_sweep",
                        "missing: one file is a sweep table and the other is not; compare like with like");
    return compare_sweep_tables(sweep_table_from_json(base, baseline), sweep_table_from_json(cand, candidate), baseline,
                                candidate, tolerances);
  }
  return compare_summaries(base, cand, baseline, candidate, tolerances);
}

}  // namespace servesim
