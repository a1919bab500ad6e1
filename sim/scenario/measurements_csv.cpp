#include "sim/scenario/measurements_csv.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"

namespace servesim {

namespace {

const std::vector<std::string> kMeasurementColumns = {
    "kind",   "model",  "prefill_tokens", "past_tokens", "decode_batch", "decode_context",
    "gemm_m", "gemm_k", "gemm_n",         "dtype",       "ms"};

std::string trim_cell(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\"");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_measurement_row(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream ss(line);
  while (std::getline(ss, cell, ',')) out.push_back(trim_cell(cell));
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

struct RowReader {
  const std::string& path;
  int line;
  const std::vector<std::string>& cells;  // already re-joined to kMeasurementColumns.size()

  [[noreturn]] void fail(int column, const std::string& message) const {
    throw ConfigError(path, line, kMeasurementColumns[column], message, column + 1);
  }
  // A blank cell is 0 ("does not apply to this kind of row").
  std::int64_t count(int column) const {
    const std::string& t = cells[column];
    if (t.empty()) return 0;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || v < 0 || v > 1'000'000'000) {
      fail(column, "must be a whole number from 0 to 1e9, got '" + t + "'");
    }
    return v;
  }
};

MeasurementKind kind_of(const std::string& name, const RowReader& r) {
  if (name == "ceiling") return MeasurementKind::ceiling;
  if (name == "gemm") return MeasurementKind::gemm;
  if (name == "prefill" || name == "decode" || name == "mixed") return MeasurementKind::step;
  if (name == "attn_prefill") return MeasurementKind::attn_prefill;
  if (name == "attn_decode") return MeasurementKind::attn_decode;
  r.fail(0, "unknown kind '" + name +
                "'; valid: ceiling, gemm, prefill, decode, mixed, attn_prefill, attn_decode");
}

}  // namespace

std::vector<Measurement> read_measurements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, 0, "", "cannot open the measurements file");
  std::string line;
  if (!std::getline(in, line)) throw ConfigError(path, 1, "", "empty file: expected a header");
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  const std::vector<std::string> header = split_measurement_row(line);
  if (header != kMeasurementColumns) {
    std::string expected;
    for (const auto& c : kMeasurementColumns) expected += (expected.empty() ? "" : ",") + c;
    throw ConfigError(path, 1, "", "header must be exactly: " + expected);
  }

  std::vector<Measurement> rows;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim_cell(line).empty()) continue;
    std::vector<std::string> cells = split_measurement_row(line);
    const std::size_t n = kMeasurementColumns.size();
    if (cells.size() < n) {
      throw ConfigError(path, line_no, "", "expected " + std::to_string(n) + " cells, got " +
                                               std::to_string(cells.size()));
    }
    // Unquoted commas can only sit in the free-text model column: join the extras back.
    while (cells.size() > n) {
      cells[1] += "," + cells[2];
      cells.erase(cells.begin() + 2);
    }
    const RowReader r{path, line_no, cells};
    Measurement m;
    m.kind_name = cells[0];
    m.kind = kind_of(cells[0], r);
    m.model = cells[1];
    m.line = line_no;
    m.prefill_tokens = r.count(2);
    m.past_tokens = r.count(3);
    m.decode_batch = r.count(4);
    m.decode_context = r.count(5);
    m.gemm_m = r.count(6);
    m.gemm_k = r.count(7);
    m.gemm_n = r.count(8);
    if (m.kind != MeasurementKind::ceiling) {
      // Ceiling rows describe their figure in the dtype cell ("4.179 TB/s").
      const auto d = parse_dtype(cells[9].empty() ? "bf16" : cells[9]);
      if (!d) r.fail(9, "must be bf16, fp8, int8 or int4, got '" + cells[9] + "'");
      m.dtype = *d;
    }
    try {
      std::size_t used = 0;
      m.ms = std::stod(cells[10], &used);
      if (used != cells[10].size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      r.fail(10, "must be a number of milliseconds, got '" + cells[10] + "'");
    }
    if (!(m.ms > 0) || !std::isfinite(m.ms)) r.fail(10, "must be > 0 ms");

    const bool step = m.kind == MeasurementKind::step;
    if ((m.kind == MeasurementKind::attn_prefill || (step && m.kind_name == "prefill")) &&
        m.prefill_tokens < 1) {
      r.fail(2, "a " + m.kind_name + " row needs prefill_tokens >= 1");
    }
    if ((m.kind == MeasurementKind::attn_decode || (step && m.kind_name == "decode")) &&
        m.decode_batch < 1) {
      r.fail(4, "a " + m.kind_name + " row needs decode_batch >= 1");
    }
    if (step && m.kind_name == "mixed" && (m.prefill_tokens < 1 || m.decode_batch < 1)) {
      r.fail(2, "a mixed row needs prefill_tokens >= 1 and decode_batch >= 1");
    }
    if (m.kind == MeasurementKind::gemm && (m.gemm_m < 1 || m.gemm_k < 1 || m.gemm_n < 1)) {
      r.fail(6, "a gemm row needs gemm_m, gemm_k and gemm_n >= 1");
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

}  // namespace servesim
