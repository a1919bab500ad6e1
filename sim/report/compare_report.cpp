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
      << cmp.compared << " gated figures compared";
  if (!cmp.skipped.empty()) out << "; " << cmp.skipped.size() << " only in one file, not compared";
  out << ")\n";
}

std::vector<std::string> comparison_warnings(const Comparison& cmp, const std::string& baseline_path,
                                             const std::string& candidate_path) {
  std::vector<std::string> lines;
  for (const bool from_candidate : {true, false}) {
    // Field by field in first-seen order, with the blocks that lack it.
    std::vector<std::pair<std::string, std::vector<std::string>>> fields;
    for (const auto& s : cmp.skipped) {
      if (s.missing_from_candidate != from_candidate) continue;
      auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == s.field; });
      if (it == fields.end()) it = fields.insert(fields.end(), {s.field, {}});
      it->second.push_back(s.block);
    }
    if (fields.empty()) continue;
    std::string list;
    for (const auto& [field, blocks] : fields) {
      list += (list.empty() ? "" : ", ") + field + " (";
      if (blocks.size() <= 3) {
        for (std::size_t i = 0; i < blocks.size(); ++i) list += (i ? ", " : "") + blocks[i];
      } else {
        list += std::to_string(blocks.size()) + " blocks";
      }
      list += ")";
    }
    lines.push_back((from_candidate ? candidate_path : baseline_path) + " lacks " + std::to_string(fields.size()) +
                    " figure" + (fields.size() == 1 ? "" : "s") + " the other file has (an older servesim?); " +
                    "compared only the figures both have, skipped: " + list);
  }
  for (const auto& note : cmp.notes) lines.push_back(note);
  return lines;
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
  // Only when there are any, so the comparison of two files of one format reads as before.
  if (!cmp.skipped.empty()) {
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const auto& s : cmp.skipped)
      skipped.push_back({{"block", s.block}, {"field", s.field},
                         {"missing_from", s.missing_from_candidate ? "candidate" : "baseline"}});
    j["skipped"] = std::move(skipped);
  }
  if (!cmp.notes.empty()) j["notes"] = cmp.notes;
  return j;
}


}  // namespace servesim
