#pragma once
// Test helper: the rows of a requests.csv as exact integers, read independently of the
// simulator's own code (times are printed as exact decimals of whole nanoseconds).
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace servesim::testing {

struct CsvRequest {
  std::int64_t id = 0;
  std::string outcome;
  std::int64_t arrival_ns = 0;
  std::int64_t queue_ns = -1;  // -1: empty cell
  std::int64_t ttft_ns = -1;
  std::int64_t e2el_ns = -1;
  std::int64_t tpot_ns = -1;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens_done = 0;
  std::int64_t cached_prompt_tokens = 0;
};

// "12.5" with `decimals` digits after the point -> 12500... as an integer; "" -> -1.
inline std::int64_t scaled_integer(const std::string& text, int decimals) {
  if (text.empty()) return -1;
  const std::size_t dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  fraction.resize(static_cast<std::size_t>(decimals), '0');
  return std::stoll(whole + fraction);
}

// The rows of requests.csv text (class and pool names must hold no comma).
inline std::vector<CsvRequest> parse_requests_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::size_t> column;
  {
    std::istringstream header(line);
    std::string name;
    for (std::size_t i = 0; std::getline(header, name, ','); ++i) column[name] = i;
  }
  std::vector<CsvRequest> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    auto at = [&](const char* name) { return cells.at(column.at(name)); };
    CsvRequest r;
    r.id = std::stoll(at("id"));
    r.outcome = at("outcome");
    r.arrival_ns = scaled_integer(at("arrival_s"), 9);
    r.queue_ns = scaled_integer(at("queue_ms"), 6);
    r.ttft_ns = scaled_integer(at("ttft_ms"), 6);
    r.e2el_ns = scaled_integer(at("e2el_ms"), 6);
    r.tpot_ns = scaled_integer(at("tpot_ms"), 6);
    r.prompt_tokens = std::stoll(at("prompt_tokens"));
    r.output_tokens_done = std::stoll(at("output_tokens_done"));
    r.cached_prompt_tokens = std::stoll(at("cached_prompt_tokens"));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace servesim::testing
