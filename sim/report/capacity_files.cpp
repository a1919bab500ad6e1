#include "sim/report/capacity_files.h"

#include <filesystem>
#include <ostream>

#include "sim/report/atomic_write.h"
#include "sim/report/capacity_report.h"
#include "sim/report/summary_writer.h"

namespace servesim {

nlohmann::ordered_json write_capacity_files(const CapacityStudy& study, double sustain_tolerance,
                                            const std::string& out_dir) {
  nlohmann::ordered_json report = capacity_to_json(study, sustain_tolerance);
  if (out_dir.empty()) return report;
  const std::filesystem::path dir(out_dir);
  write_file_atomically((dir / "capacity.json").string(), "--out", [&](std::ostream& f) { f << report.dump(2) << "\n"; });
  if (const CapacityTrialRun* best = study.at_capacity())
    write_file_atomically((dir / "summary.json").string(), "--out",
                          [&](std::ostream& f) { write_summary_json(best->summary, f); });
  return report;
}

}  // namespace servesim
