#pragma once
// What `servesim sweep` and `servesim merge` write: sweep.json and sweep.csv (the table of
// sim/study/sweep_table.h), and with --point-summaries each point's summary.json.
#include <cstddef>
#include <string>

#include "sim/metrics/summary.h"
#include "sim/study/sweep_table.h"

namespace servesim {

struct SweepFiles {
  std::string json_path, csv_path;
};

// The folder a sweep writes to when no --out is given: results/NAME-sweep, and within it
// shard-I-of-N for one shard's table, so the shards of one sweep sit side by side.
std::string default_sweep_dir(const SweepTable& header);

// OUT_DIR/points/POINT/summary.json, written whole or not at all as the point ends.
// Throws ConfigError(path, 0, "--out", ...) when it cannot be written.
void write_sweep_point_summary(const std::string& out_dir, std::size_t point, const RunSummary& summary);

// Writes sweep.json and sweep.csv under `out_dir`, each whole or not at all. Throws
// ConfigError(path, 0, "--out", ...) when one cannot be written.
SweepFiles write_sweep_files(const SweepTable& table, const std::string& out_dir);

// merge's -o OUT: OUT.json with OUT.csv beside it, or (any other name) a folder for
// sweep.json and sweep.csv. Writes both as write_sweep_files does.
SweepFiles write_merged_sweep_files(const SweepTable& table, const std::string& out_path);

}  // namespace servesim
