// Console and JSON output of a benchmark replay.
#include "sim/report/replay_report.h"

#include <cmath>
#include <cstdio>

#include "sim/study/benchmark_match.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace servesim {

std::string describe_benchmark(const BenchmarkReplay& replay) {
  const BenchmarkRun& b = replay.benchmark();
  std::string s = b.format + " results " + b.path + ": " + std::to_string(b.requests.size()) + " requests";
  if (!b.model.empty()) s += " to " + b.model;
  s += ", " + std::to_string(replay.failed_requests()) + " failed (counted, not replayed: their output lengths are unknown)";
  if (b.stages.size() > 1) s += ", " + std::to_string(b.stages.size()) + " load stages";
  return s;
}

bool check_benchmark_deployment(const BenchmarkRun& bench, const Scenario& scenario, bool force,
                                const std::string& command, std::ostream& err) {
  const BenchmarkMatch match = match_benchmark(bench, scenario);
  for (const std::string& doubt : match.doubts) err << command << ": warning: " << bench.path << ": " << doubt << "\n";
  if (match.mismatches.empty()) return true;
  for (const std::string& mismatch : match.mismatches) {
    err << command << (force ? ": warning: " : ": error: ") << bench.path << ": " << mismatch << "\n";
  }
  if (force) {
    err << command << ": warning: --force: going on with a benchmark of another deployment than "
        << scenario.source_file << "'s; its comparison is not a test of the scenario\n";
    return true;
  }
  err << command << ": the benchmark measured another deployment than " << scenario.source_file
      << " describes; correct the scenario (or --set its keys), or pass --force to go on anyway\n";
  return false;
}

void print_benchmark_formats(std::ostream& out) {
  char line[200];
  out << "benchmark formats (--format NAME):\n";
  std::snprintf(line, sizeof line, "  %-16s %s\n", "auto", "the default: the first format that recognises the file");
  out << line;
  for (const BenchmarkFormat& f : benchmark_formats()) {
    std::snprintf(line, sizeof line, "  %-16s %s\n", f.name, f.about);
    out << line;
  }
}

void print_replay_set(const ReplaySet& set, std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof line, "%s (%lld requests)\n", set.name.c_str(), static_cast<long long>(set.requests));
  out << line;
  std::snprintf(line, sizeof line, "  %-24s %12s %12s %9s\n", "figure", "measured", "simulated", "error");
  out << line;
  for (const FigureComparison& row : set.rows) {
    char error[32];
    if (std::isfinite(row.error)) {
      std::snprintf(error, sizeof error, "%+.1f%%", 100 * row.error);
    } else {
      std::snprintf(error, sizeof error, "-");
    }
    std::snprintf(line, sizeof line, "  %-24s %12.3f %12.3f %9s\n", row.figure.c_str(), row.measured, row.simulated,
                  error);
    out << line;
  }
}

void print_replay(const BenchmarkReplay& replay, const SimulatedReplay& simulated, const std::vector<ReplaySet>& sets,
                  std::ostream& out) {
  out << describe_benchmark(replay) << "\n";
  // A saturated replay gives the run's own reason (the one saturation rule, docs/metrics.md):
  // a backlog that grew without bound, or a rate served short of the rate offered.
  out << "simulated: " << simulated.completed << " completed, " << simulated.rejected << " rejected, "
      << simulated.unfinished << " unfinished";
  if (simulated.saturated) out << " (saturated: " << simulated.saturation_note << ")";
  out << "\n\n";
  for (const ReplaySet& set : sets) {
    print_replay_set(set, out);
    out << "\n";
  }
}

nlohmann::ordered_json replay_set_json(const ReplaySet& set) {
  nlohmann::ordered_json s;
  s["name"] = set.name;
  s["requests"] = set.requests;
  nlohmann::ordered_json figures = nlohmann::ordered_json::array();
  for (const FigureComparison& row : set.rows) {
    nlohmann::ordered_json f;
    f["figure"] = row.figure;
    f["measured"] = row.measured;
    f["simulated"] = row.simulated;
    f["error"] = std::isfinite(row.error) ? nlohmann::ordered_json(row.error) : nlohmann::ordered_json(nullptr);
    figures.push_back(f);
  }
  s["figures"] = figures;
  return s;
}

nlohmann::ordered_json replay_json(const BenchmarkReplay& replay, const SimulatedReplay& simulated,
                                   const std::vector<ReplaySet>& sets, std::optional<double> tolerance) {
  const BenchmarkRun& b = replay.benchmark();
  nlohmann::ordered_json j;
  j["benchmark"] = {{"path", b.path},
                    {"format", b.format},
                    {"model", b.model},
                    {"requests", b.requests.size()},
                    {"failed", replay.failed_requests()},
                    {"replayed", replay.replayed().size()},
                    {"stages", b.stages.size()}};
  j["scenario"] = replay.scenario().source_file;
  j["simulated"] = {{"completed", simulated.completed},
                    {"rejected", simulated.rejected},
                    {"unfinished", simulated.unfinished},
                    {"saturated", simulated.saturated},
                    {"saturation_note", simulated.saturation_note}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ReplaySet& set : sets) list.push_back(replay_set_json(set));
  j["sets"] = list;
  if (tolerance) {
    j["tolerance"] = *tolerance;
    j["beyond_tolerance"] = count_beyond(sets, *tolerance);
  }
  return j;
}

}  // namespace servesim
