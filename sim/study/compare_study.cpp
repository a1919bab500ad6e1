#include "sim/study/compare_study.h"

#include <filesystem>

#include "sim/core/errors.h"
#include "sim/study/json_file.h"
#include "sim/study/sweep_table.h"

namespace servesim {

std::string comparable_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return path;
  for (const char* name : {"summary.json", "sweep.json"}) {
    const std::filesystem::path inside = std::filesystem::path(path) / name;
    if (std::filesystem::exists(inside, ec)) return inside.string();
  }
  throw ConfigError(path, 0, "", "is a folder holding neither summary.json nor sweep.json; give one of those files");
}

Comparison compare_files(const std::string& baseline_path, const std::string& candidate_path,
                         const Tolerances& tolerances) {
  const std::string baseline = comparable_file(baseline_path);
  const std::string candidate = comparable_file(candidate_path);
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
