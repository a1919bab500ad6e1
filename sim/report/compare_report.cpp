#include "sim/report/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

namespace servesim {
namespace {

std::string number(const std::optional<double>& v) {
  if (!v) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

std::string change_text(double change) {
  if (std::isnan(change)) return "n/a";
  if (std::isinf(change)) return change > 0 ? "+inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", change * 100);
  return buf;
}

const char* verdict(const FieldChange& c) {
  if (c.regression) return "REGRESSION";
  if (c.improved) return "improved";
  if (c.direction == Direction::neutral) return "(not gated)";
  return "ok";
}

}  // namespace

void print_comparison(const Comparison& cmp, bool all, std::ostream& out) {
  std::vector<std::vector<std::string>> lines = {{"block", "field", "baseline", "candidate", "change", "tolerance", ""}};
  for (const auto& c : cmp.changes) {
    if (!all && !c.regression && !c.improved) continue;
    char tol[32];
    std::snprintf(tol, sizeof tol, "%g%%", c.tolerance * 100);
    lines.push_back({c.block, c.field, number(c.baseline), number(c.candidate), change_text(c.change),
                     c.direction == Direction::neutral ? "-" : tol, verdict(c)});
  }
  if (lines.size() > 1) {
    std::vector<std::size_t> w(lines[0].size(), 0);
    for (const auto& l : lines)
      for (std::size_t i = 0; i < l.size(); ++i) w[i] = std::max(w[i], l[i].size());
    for (const auto& l : lines) {
      for (std::size_t i = 0; i < l.size(); ++i)
        out << (i ? "  " : "") << (i < 2 || i + 1 == l.size() ? std::left : std::right)
            << std::setw(i + 1 == l.size() ? 0 : static_cast<int>(w[i])) << l[i];
      out << std::left << "\n";
    }
  }
  out << cmp.regressions << " regression" << (cmp.regressions == 1 ? "" : "s") << " beyond tolerance ("
      << cmp.compared << " gated figures compared)\n";
}

nlohmann::ordered_json comparison_to_json(const Comparison& cmp) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["regressions"] = cmp.regressions;
  j["compared"] = cmp.compared;
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const auto& c : cmp.changes) {
    nlohmann::ordered_json e = nlohmann::ordered_json::object();
    e["block"] = c.block;
    e["field"] = c.field;
    e["baseline"] = c.baseline ? nlohmann::ordered_json(*c.baseline) : nlohmann::ordered_json(nullptr);
    e["candidate"] = c.candidate ? nlohmann::ordered_json(*c.candidate) : nlohmann::ordered_json(nullptr);
    e["change"] = std::isfinite(c.change) ? nlohmann::ordered_json(c.change) : nlohmann::ordered_json(change_text(c.change));
    e["tolerance"] = c.tolerance;
    e["direction"] = c.direction == Direction::higher_is_worse ? "higher_is_worse"
                     : c.direction == Direction::lower_is_worse ? "lower_is_worse" : "neutral";
    e["verdict"] = c.regression ? "regression" : c.improved ? "improved" : "ok";
    changes.push_back(std::move(e));
  }
  j["changes"] = std::move(changes);
  return j;
}


}  // namespace servesim
