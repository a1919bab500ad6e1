#include "sim/report/sweep_report.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace servesim {

namespace {

std::string cell(const nlohmann::ordered_json& v, int precision) {
  if (v.is_null()) return "-";
  if (v.is_number_float()) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v.get<double>();
    return os.str();
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

void print_sweep_table(const SweepTable& t, std::ostream& out) {
  std::vector<std::string> head = {"point"};
  for (const auto& a : t.axes) head.push_back(a);
  // "served req/s": over the arrival window, which the drain after the last arrival does not
  // dilute (sustained_served_rate); "$/1M out": paid_per_1m_output_tokens.
  for (const char* h : {"completed", "req/s", "served req/s", "out tok/s", "TTFT p99", "TPOT p99", "ITL p99",
                        "$/1M out", "SLO att."})
    head.push_back(h);
  // The front's objectives the fixed columns lack (min:p99_tpot_ms, min:cost_per_hour), by
  // their field name, so every figure the front was drawn on is on the screen.
  std::vector<std::string> extra;
  for (const auto& o : t.objectives) {
    const std::vector<std::string> shown = {"completed",   "request_throughput", "sustained_served_rate",
                                            "output_throughput", "p99_ttft_ms",  "p99_tpot_ms",
                                            "p99_itl_ms",  "paid_per_1m_output_tokens", "slo_attainment"};
    if (std::find(shown.begin(), shown.end(), o.field) == shown.end() &&
        std::find(extra.begin(), extra.end(), o.field) == extra.end())
      extra.push_back(o.field);
  }
  for (const auto& f : extra) head.push_back(f);
  head.push_back("pareto");
  std::vector<std::vector<std::string>> lines = {head};
  for (const auto& row : t.rows) {
    std::vector<std::string> line = {std::to_string(row["point"].get<std::int64_t>())};
    for (const auto& a : t.axes) line.push_back(cell(row["values"][a], 6));
    const auto& s = row["summary"];
    if (s.is_object()) {
      line.push_back(cell(s["completed"], 0));
      const auto field = [&s](const char* f) { return s.value(f, nlohmann::ordered_json(nullptr)); };
      line.push_back(cell(s["request_throughput"], 2));
      line.push_back(cell(field("sustained_served_rate"), 2));
      line.push_back(cell(s["output_throughput"], 1));
      line.push_back(cell(s["p99_ttft_ms"], 2));
      line.push_back(cell(field("p99_tpot_ms"), 2));
      line.push_back(cell(s["p99_itl_ms"], 2));
      line.push_back(cell(field("paid_per_1m_output_tokens"), 4));
      line.push_back(cell(field("slo_attainment"), 3));
      for (const auto& f : extra) line.push_back(cell(s.value(f, nlohmann::ordered_json(nullptr)), 4));
      line.push_back(row["pareto"].get<bool>() ? "*" : "");
    } else {
      line.push_back("error: " + row["error"].get<std::string>());
    }
    lines.push_back(std::move(line));
  }
  std::vector<std::size_t> widths(head.size(), 0);
  for (const auto& line : lines)
    for (std::size_t i = 0; i < line.size() && line.size() == head.size(); ++i)
      widths[i] = std::max(widths[i], line[i].size());
  for (const auto& line : lines) {
    // An error line has the point and its values, then the message, left unpadded.
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool last_of_error = line.size() != head.size() && i + 1 == line.size();
      out << (i ? "  " : "") << std::setw(last_of_error ? 0 : static_cast<int>(widths[i])) << line[i];
    }
    out << "\n";
  }
}

}  // namespace servesim
