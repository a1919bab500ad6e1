#include "sim/report/sweep_files.h"

#include <filesystem>
#include <ostream>

#include "sim/report/atomic_write.h"
#include "sim/report/summary_writer.h"

namespace fs = std::filesystem;

namespace servesim {

std::string default_sweep_dir(const SweepTable& header) {
  std::string dir = "results/" + header.scenario + "-sweep";
  if (header.shard) dir += "/shard-" + std::to_string(header.shard->index) + "-of-" + std::to_string(header.shard->count);
  return dir;
}

void write_sweep_point_summary(const std::string& out_dir, std::size_t point, const RunSummary& summary) {
  const auto path = fs::path(out_dir) / "points" / std::to_string(point) / "summary.json";
  write_file_atomically(path.string(), "--out", [&](std::ostream& f) { write_summary_json(summary, f); });
}

namespace {

SweepFiles write_sweep_table_to(const SweepTable& table, const fs::path& json_path, const fs::path& csv_path) {
  SweepFiles files{json_path.string(), csv_path.string()};
  write_file_atomically(files.json_path, "--out", [&](std::ostream& f) { write_sweep_json(table, f); });
  write_file_atomically(files.csv_path, "--out", [&](std::ostream& f) { write_sweep_csv(table, f); });
  return files;
}

}  // namespace

SweepFiles write_sweep_files(const SweepTable& table, const std::string& out_dir) {
  return write_sweep_table_to(table, fs::path(out_dir) / "sweep.json", fs::path(out_dir) / "sweep.csv");
}

SweepFiles write_merged_sweep_files(const SweepTable& table, const std::string& out_path) {
  const fs::path out(out_path);
  if (out.extension() != ".json") return write_sweep_files(table, out_path);
  fs::path csv_path = out;
  csv_path.replace_extension(".csv");
  return write_sweep_table_to(table, out, csv_path);
}

}  // namespace servesim
