#include "sim/hardware/vidur_table.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "sim/core/errors.h"

namespace servesim {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream ss(line);
  while (std::getline(ss, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    out.push_back(cell);
  }
  return out;
}

double number(const std::string& path, int line, const std::string& column, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw ConfigError(path, line, column, "must be a number, got '" + text + "'");
}

// Where the table's columns are, found by name in the header.
struct VidurColumns {
  int tokens = 0;
  int tp = 0;
  int dims[6] = {};  // n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size, use_gated_mlp
  std::vector<std::pair<int, std::string>> ops;  // column, operator
};

VidurColumns vidur_columns(const std::string& path, const std::vector<std::string>& header) {
  const auto find = [&](const std::string& name) -> int {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw ConfigError(path, 1, name, "not a Vidur per-operator table (mlp.csv): no column '" + name + "'");
    }
    return static_cast<int>(it - header.begin());
  };
  VidurColumns cols;
  cols.tokens = find("num_tokens");
  cols.tp = find("num_tensor_parallel_workers");
  const int dims[] = {find("n_head"), find("n_kv_head"), find("n_embd"), find("n_expanded_embd"),
                      find("vocab_size"), find("use_gated_mlp")};
  std::copy(std::begin(dims), std::end(dims), std::begin(cols.dims));
  const std::string prefix = "time_stats.", suffix = ".median";
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& h = header[c];
    if (h.size() > prefix.size() + suffix.size() && h.rfind(prefix, 0) == 0 &&
        h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0) {
      cols.ops.emplace_back(static_cast<int>(c), h.substr(prefix.size(), h.size() - prefix.size() - suffix.size()));
    }
  }
  if (cols.ops.empty()) throw ConfigError(path, 1, "", "no time_stats.<op>.median column");
  return cols;
}

// The first row's model shape becomes the table's; every later row must have the same.
void read_row_shape(const std::string& path, int line_no, const std::vector<std::string>& header,
                    const std::vector<std::string>& cells, const VidurColumns& cols, bool& first, VidurOpTable& t) {
  int d[6];
  for (int i = 0; i < 5; ++i) d[i] = static_cast<int>(number(path, line_no, header[cols.dims[i]], cells[cols.dims[i]]));
  const std::string gated = cells[cols.dims[5]];
  d[5] = gated == "True" || gated == "true" || gated == "1";
  if (first) {
    t.n_head = d[0];
    t.n_kv_head = d[1];
    t.n_embd = d[2];
    t.n_expanded_embd = d[3];
    t.vocab_size = d[4];
    t.gated_mlp = d[5];
    first = false;
  } else if (d[0] != t.n_head || d[1] != t.n_kv_head || d[2] != t.n_embd ||
             d[3] != t.n_expanded_embd || d[5] != t.gated_mlp) {
    throw ConfigError(path, line_no, "n_embd", "rows of different model shapes in one table");
  }
}

// tp -> op -> tokens -> (sum, count), to average repeated points.
using VidurSums = std::map<int, std::map<std::string, std::map<double, std::pair<double, int>>>>;

// A row's operator times, added to the sums at its tp and token count.
void add_row_times(const std::string& path, int line_no, const std::vector<std::string>& header,
                   const std::vector<std::string>& cells, const VidurColumns& cols, VidurSums& acc) {
  const double tokens = number(path, line_no, header[cols.tokens], cells[cols.tokens]);
  const int tp = static_cast<int>(number(path, line_no, header[cols.tp], cells[cols.tp]));
  if (!(tokens >= 1) || tp < 1) {
    throw ConfigError(path, line_no, "num_tokens", "num_tokens and num_tensor_parallel_workers must be >= 1");
  }
  for (const auto& [col, op] : cols.ops) {
    if (cells[col].empty()) continue;  // an operator the row did not time
    const double ms = number(path, line_no, header[col], cells[col]);
    if (ms < 0) throw ConfigError(path, line_no, header[col], "a time cannot be negative");
    auto& slot = acc[tp][op][tokens];
    slot.first += ms;
    slot.second += 1;
  }
}

}  // namespace

std::vector<int> VidurOpTable::tp_degrees() const {
  std::vector<int> out;
  for (const auto& [tp, ops] : series) out.push_back(tp);
  return out;
}

VidurOpTable read_vidur_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, 0, "", "cannot open the profiling table");
  std::string line;
  if (!std::getline(in, line)) throw ConfigError(path, 1, "", "empty file: expected a header");
  const std::vector<std::string> header = split(line);
  const VidurColumns cols = vidur_columns(path, header);

  VidurOpTable t;
  t.path = path;
  VidurSums acc;
  int line_no = 1;
  bool first = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() < header.size()) {
      throw ConfigError(path, line_no, "", "expected " + std::to_string(header.size()) +
                                               " cells, got " + std::to_string(cells.size()));
    }
    read_row_shape(path, line_no, header, cells, cols, first, t);
    add_row_times(path, line_no, header, cells, cols, acc);
  }
  if (first) throw ConfigError(path, 2, "", "no data rows");
  // Repeated points averaged; the token counts come out sorted, as the map keeps them.
  for (const auto& [tp, ops] : acc) {
    for (const auto& [op, points] : ops) {
      auto& s = t.series[tp][op];
      for (const auto& [tokens, sum_count] : points) s.emplace_back(tokens, sum_count.first / sum_count.second);
    }
  }
  return t;
}

std::optional<double> interpolate_ms(const std::vector<std::pair<double, double>>& points,
                                     double tokens) {
  if (points.empty() || tokens < points.front().first || tokens > points.back().first) {
    return std::nullopt;
  }
  const auto hi = std::lower_bound(points.begin(), points.end(), tokens,
                                   [](const auto& p, double t) { return p.first < t; });
  if (hi->first == tokens) return hi->second;
  const auto lo = hi - 1;
  const double f = (tokens - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

}  // namespace servesim
