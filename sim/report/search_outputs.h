#pragma once
// What `servesim search` writes and prints around the table of sim/report/search_report.h:
// search.json and search.csv in the output folder, the line that says what is searched,
// and the closing lines (how many candidates ran, the winner).
#include <cstddef>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/search_study.h"

namespace servesim {

struct SearchFiles {
  nlohmann::ordered_json json;  // search.json's content (search_report_to_json)
  std::string json_path, csv_path;
};

// Writes search.json and search.csv under `out_dir` (default results/NAME-search), each whole
// or not at all. Throws ConfigError(path, 0, "--out", ...) when one cannot be written.
SearchFiles write_search_files(const SearchReport& report, std::string out_dir);

// "servesim search: NAME, N candidates over K keys[ at KEY = RATE req/s]; SLO ...".
void print_search_scope(const SearchReport& loaded, std::ostream& out);

// "winner: candidate I (LABEL)", or "no candidate is feasible".
void print_search_winner(const SearchReport& report, std::ostream& out);

// How many candidates ran (and how many the replica order settled), the winner and
// runners-up table with up to `top` rows, and the files written.
void print_search_outcome(const SearchReport& report, std::size_t top, const SearchFiles& files, std::ostream& out);

}  // namespace servesim
