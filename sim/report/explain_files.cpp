#include "sim/report/explain_files.h"

#include <filesystem>
#include <ostream>

#include "sim/report/atomic_write.h"
#include "sim/report/explain_report.h"

namespace servesim {

ExplainFiles write_explain_files(const ExplainStudy& study, std::string out_dir) {
  if (out_dir.empty()) out_dir = "results/" + study.scenario + "-explain";
  ExplainFiles files;
  files.json = explain_to_json(study);
  files.json_path = (std::filesystem::path(out_dir) / "explain.json").string();
  write_file_atomically(files.json_path, "--out", [&](std::ostream& f) { f << files.json.dump(2) << "\n"; });
  return files;
}

}  // namespace servesim
