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

// A figure with samples on one side only (null: no samples, docs/metrics.md) has no change
// to judge: lost samples regress, new ones are named as such, neither reads as "ok".
bool one_side_only(const FieldChange& c) { return c.baseline.has_value() != c.candidate.has_value(); }

const char* verdict(const FieldChange& c) {
  if (c.regression) return one_side_only(c) ? "REGRESSION: no samples now" : "REGRESSION";
  if (c.improved) return "improved";
  if (one_side_only(c)) return "new: no samples in the baseline";
  if (c.direction == Direction::neutral) return "(not gated)";
  return "ok";
}

const char* json_verdict(const FieldChange& c) {
  if (c.regression) return "regression";
  if (c.improved) return "improved";
  if (one_side_only(c)) return "no_baseline_samples";
  return "ok";
}

// "hardware h100-sxm -> h200-sxm" for one difference.
std::string difference_text(const DeploymentDifference& d) {
  return d.key + " " + d.baseline + " -> " + d.candidate;
}

}  // namespace

void print_comparison(const Comparison& cmp, bool all, std::ostream& out) {
  std::vector<std::vector<std::string>> lines = {{"block", "field", "baseline", "candidate", "change", "tolerance", ""}};
  for (const auto& c : cmp.changes) {
    if (!all && !c.regression && !c.improved && !one_side_only(c)) continue;
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

std::vector<std::string> deployment_lines(const Comparison& cmp, const std::string& baseline_path,
                                          const std::string& candidate_path) {
  std::vector<std::string> lines;
  if (!cmp.deployment) return lines;
  const DeploymentCheck& d = *cmp.deployment;
  if (!d.checked) {
    lines.push_back("deployment not checked: " + d.why_unchecked +
                    ", so the two runs may be of different models or hardware");
    return lines;
  }
  if (d.differences.empty()) return lines;
  lines.push_back("deployments differ (" + baseline_path + " -> " + candidate_path +
                  "): the figures compare two deployments as a what-if, not one deployment before and after");
  // One line for the scenario file, then one per pool, its differences in file order.
  std::vector<std::pair<std::string, std::string>> by_pool;
  for (const DeploymentDifference& diff : d.differences) {
    auto it = std::find_if(by_pool.begin(), by_pool.end(), [&](const auto& p) { return p.first == diff.pool; });
    if (it == by_pool.end()) it = by_pool.insert(by_pool.end(), {diff.pool, ""});
    it->second += (it->second.empty() ? "" : ", ") + difference_text(diff);
  }
  for (const auto& [pool, text] : by_pool) lines.push_back("  " + (pool.empty() ? text : "pool " + pool + ": " + text));
  return lines;
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
    e["verdict"] = json_verdict(c);
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
  if (cmp.deployment) {
    nlohmann::ordered_json d = nlohmann::ordered_json::object();
    d["checked"] = cmp.deployment->checked;
    if (!cmp.deployment->checked) d["why_unchecked"] = cmp.deployment->why_unchecked;
    nlohmann::ordered_json differences = nlohmann::ordered_json::array();
    for (const DeploymentDifference& diff : cmp.deployment->differences)
      differences.push_back({{"pool", diff.pool.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(diff.pool)},
                             {"key", diff.key},
                             {"baseline", diff.baseline},
                             {"candidate", diff.candidate}});
    d["differences"] = std::move(differences);
    j["deployment"] = std::move(d);
  }
  return j;
}


}  // namespace servesim
