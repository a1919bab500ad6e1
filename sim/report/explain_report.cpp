#include "sim/report/explain_report.h"
#include "sim/core/json_values.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace servesim {
namespace {

std::string signed_percent(double change) {
  if (!std::isfinite(change)) return "n/a";
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << change * 100 << "%";
  return os.str();
}

// |change| as "42.1%".
std::string magnitude(double change) { return signed_percent(std::fabs(change)).substr(1); }


}  // namespace

nlohmann::ordered_json explain_to_json(const ExplainStudy& s) {
  const auto& metrics = explain_metrics();
  nlohmann::ordered_json j;
  j["scenario"] = s.scenario;
  j["seed"] = s.seed;
  j["threshold"] = kExplainMovesThreshold;
  nlohmann::ordered_json jbase = nlohmann::ordered_json::object();
  for (const auto& m : metrics) jbase[m.field] = json_number_or_null(s.base.get(m.field));
  j["base"] = jbase;
  j["base_overload"] = s.base_overload;
  j["base_too_short"] = s.base_too_short;
  j["lengthened"] = s.lengthened;
  j["variants"] = nlohmann::ordered_json::array();
  for (const ExplainVariant& r : s.variants) {
    const Lever& l = s.levers[r.lever];
    nlohmann::ordered_json v;
    v["lever"] = l.name;
    v["phase"] = l.phase;
    v["overrides"] = l.overrides;
    v["compared_with"] = r.compared_with;
    nlohmann::ordered_json values = nlohmann::ordered_json::object(), changes = nlohmann::ordered_json::object();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      values[metrics[m].field] = json_number_or_null(r.values[m]);
      changes[metrics[m].field] = json_number_or_null(r.changes[m]);
    }
    v["metrics"] = values;
    v["change"] = changes;
    v["overloaded"] = !r.overload.empty();
    v["overload"] = r.overload;
    v["too_short_to_judge"] = !r.too_short.empty();
    v["too_short"] = r.too_short;
    v["several_tokens_per_step"] = r.several_tokens;
    j["variants"].push_back(v);
  }
  j["skipped"] = nlohmann::ordered_json::array();
  for (const auto& l : s.levers)
    if (!l.skip_reason.empty()) j["skipped"].push_back({{"lever", l.name}, {"phase", l.phase}, {"reason", l.skip_reason}});
  j["metrics"] = nlohmann::ordered_json::object();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const ExplainMetric& metric = metrics[m];
    const ExplainRanking& rank = s.rankings[m];
    nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
    for (const std::size_t v : rank.order) {
      const ExplainVariant& r = s.variants[v];
      const Lever& l = s.levers[r.lever];
      const std::string why = r.not_comparable(metric);
      nlohmann::ordered_json entry = {{"lever", l.name},
                                      {"phase", l.phase},
                                      {"change", json_number_or_null(r.changes[m])},
                                      {"comparable", why.empty()}};
      if (!why.empty()) entry["not_comparable_because"] = why;
      ranking.push_back(std::move(entry));
    }
    // Saturated or too short to judge: their change is no lever's effect, so not ranked.
    nlohmann::ordered_json not_ranked = nlohmann::ordered_json::array();
    for (const std::size_t v : rank.not_ranked) {
      const ExplainVariant& r = s.variants[v];
      const Lever& l = s.levers[r.lever];
      not_ranked.push_back({{"lever", l.name},
                            {"phase", l.phase},
                            {"change", json_number_or_null(r.changes[m])},
                            {"because", r.not_comparable(metric)}});
    }
    nlohmann::ordered_json jm = {{"label", metric.label}, {"base", json_number_or_null(s.base.get(metric.field))},
                                 {"owner", rank.owner}, {"ranking", ranking}, {"not_ranked", not_ranked}};
    if (metric.per_gap) {
      jm["note"] = "per inter-token gap: not printed; per-token latency is ranked by TPOT, and variants that emit "
                   "several tokens per step are ranked last here";
    }
    j["metrics"][metric.field] = std::move(jm);
  }
  return j;
}

std::string explain_text(const ExplainStudy& s) {
  const auto& metrics = explain_metrics();
  std::ostringstream text;
  text << "servesim explain: " << s.scenario << " (seed " << s.seed << "), base and " << s.variants.size()
       << " one-lever variants\nbase:";
  for (std::size_t m = 0; m < metrics.size(); ++m)
    text << (m ? ", " : " ") << metrics[m].label << " " << std::fixed << std::setprecision(2)
         << s.base.get(metrics[m].field) << " " << metrics[m].unit;
  text << std::defaultfloat << "\n";
  if (!s.base_overload.empty())
    text << "base overloaded (" << s.base_overload << "): its latencies describe a queue that never settled; "
         << "read the changes as how far a lever gets it out\n";
  if (!s.base_too_short.empty())
    text << "base too short to judge whether it kept up (" << s.base_too_short
         << "): its latencies may describe a queue that never settled\n";
  if (!s.lengthened.empty()) text << s.lengthened << "\n";
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const ExplainMetric& metric = metrics[m];
    if (!metric.printed) continue;
    const ExplainRanking& rank = s.rankings[m];
    const std::string& owner = rank.owner;
    text << "\n" << metric.label << " (base " << std::fixed << std::setprecision(2) << s.base.get(metric.field)
         << " " << metric.unit << std::defaultfloat << "): ";
    if (owner == "none") {
      text << "no lever improves it (or undoes a setting that helps it) by more than " << kExplainMovesThreshold * 100
           << "%\n";
    } else {
      text << "owned by " << (owner == "capacity" ? "queueing (capacity)" : owner) << ": " << owner
           << " levers move it by up to " << magnitude(rank.by_phase.at(owner)) << " ("
           << rank.top_of_phase.at(owner) << ")";
      for (const char* phase : {"prefill", "decode", "capacity"}) {
        if (phase == owner || !rank.by_phase.count(phase)) continue;
        const double move = rank.by_phase.at(phase);
        text << "; " << phase << " levers " << (move > 0 ? "at most " + magnitude(move) : std::string("none"));
      }
      text << "\n";
    }
    const std::size_t beside = metric.beside ? explain_metric_index(metric.beside) : metrics.size();
    for (const std::size_t v : rank.order) {
      const ExplainVariant& r = s.variants[v];
      const Lever& l = s.levers[r.lever];
      text << "  " << std::setw(8) << signed_percent(r.changes[m]) << "  " << l.name << " [" << l.phase << "]";
      if (beside < metrics.size()) {
        text << "  " << metrics[beside].label << " " << signed_percent(r.changes[beside]);
        if (r.several_tokens) text << " (several tokens per step)";
      }
      const std::string why = r.not_comparable(metric);
      if (!why.empty()) text << "  " << why << ", ranked last";
      text << "\n";
    }
    for (const std::size_t v : rank.not_ranked) {
      const ExplainVariant& r = s.variants[v];
      const Lever& l = s.levers[r.lever];
      text << "  not ranked: " << l.name << " [" << l.phase << "] " << signed_percent(r.changes[m]) << ": "
           << r.not_comparable(metric) << "\n";
    }
  }
  const char* why_tpot =
      " several tokens per step (speculative decoding): accepted draft tokens arrive in the step's one chunk, "
      "so an ITL gap is a whole verify step, not one token's latency; judge by TPOT\n";
  if (s.base_several_tokens) {
    text << "\nthe base emits" << why_tpot;
  } else {
    for (const ExplainVariant& r : s.variants)
      if (r.several_tokens) text << "\n" << s.levers[r.lever].name << ": emits" << why_tpot;
  }
  for (const ExplainVariant& r : s.variants) {
    if (r.compared_with != "base") text << "\n" << s.levers[r.lever].name << ": compared with the " << r.compared_with << "\n";
  }
  bool skipped = false;
  for (const auto& l : s.levers) skipped |= !l.skip_reason.empty();
  if (skipped) {
    text << "\nskipped:\n";
    for (const auto& l : s.levers)
      if (!l.skip_reason.empty()) text << "  " << l.name << ": " << l.skip_reason << "\n";
  }
  return text.str();
}

}  // namespace servesim
