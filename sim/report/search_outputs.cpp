#include "sim/report/search_outputs.h"

#include <filesystem>
#include <ostream>

#include "sim/report/atomic_write.h"
#include "sim/report/search_report.h"

namespace servesim {

SearchFiles write_search_files(const SearchReport& report, std::string out_dir) {
  if (out_dir.empty()) out_dir = "results/" + report.scenario + "-search";
  SearchFiles files;
  files.json = search_report_to_json(report);
  files.json_path = (std::filesystem::path(out_dir) / "search.json").string();
  files.csv_path = (std::filesystem::path(out_dir) / "search.csv").string();
  write_file_atomically(files.json_path, "--out", [&](std::ostream& f) { f << files.json.dump(2) << "\n"; });
  write_file_atomically(files.csv_path, "--out", [&](std::ostream& f) { write_search_csv(files.json, f); });
  return files;
}

void print_search_scope(const SearchReport& loaded, std::ostream& out) {
  out << "servesim search: " << loaded.scenario << ", " << loaded.candidates.size() << " candidates over "
      << loaded.axes.size() << (loaded.axes.size() == 1 ? " key" : " keys");
  if (!loaded.rate_key.empty())
    out << " at " << loaded.rate_key << " = " << nlohmann::ordered_json(loaded.rate).dump() << " req/s";
  out << "; SLO ";
  for (std::size_t i = 0; i < loaded.slo.size(); ++i)
    out << (i ? ", " : "") << loaded.slo[i].second.text()
        << (loaded.slo[i].first.empty() ? "" : " (" + loaded.slo[i].first + ")");
  out << "\n";
}

void print_search_winner(const SearchReport& report, std::ostream& out) {
  if (report.ranking.empty()) {
    out << "no candidate is feasible\n";
    return;
  }
  out << "winner: candidate " << report.ranking.front() << " (" << candidate_label(report, report.ranking.front())
      << ")" << search_objective_note(report, report.candidates[report.ranking.front()]) << "\n";
}

void print_search_outcome(const SearchReport& report, std::size_t top, const SearchFiles& files, std::ostream& out) {
  out << report.runs << " of " << report.candidates.size() << " candidates ran";
  if (report.pruned)
    out << "; " << report.pruned << " settled without a run by the replica order (fewer replicas than a failing "
           "candidate fail, more than a feasible one cost more; --no-prune runs them)";
  out << "\n";
  print_search_report(report, top, out);
  out << "wrote " << files.json_path << ", " << files.csv_path << "\n";
}

}  // namespace servesim
