#include "sim/report/search_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "sim/study/run_energy.h"
#include "sim/study/sweep_table.h"

namespace servesim {

using ojson = nlohmann::ordered_json;

namespace {



ojson opt(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

std::string fixed(double v, int precision) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << v;
  return os.str();
}

const SummaryBlock* block_of(const RunSummary& s, const std::string& class_name) {
  if (class_name.empty()) return &s.overall;
  for (const auto& [name, block] : s.classes)
    if (name == class_name) return &block;
  return nullptr;
}

void print_aligned(const std::vector<std::vector<std::string>>& lines, std::ostream& out) {
  std::vector<std::size_t> widths;
  for (const auto& line : lines)
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], line[i].size());
    }
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) out << (i ? "  " : "") << std::setw(static_cast<int>(widths[i])) << line[i];
    out << "\n";
  }
}

}  // namespace

std::string candidate_label(const SearchReport& report, std::size_t index) {
  std::string label;
  for (std::size_t a = 0; a < report.axes.size(); ++a) {
    std::string v = report.candidates[index].values[a];
    if (v.size() > 48) v = v.substr(0, 45) + "...";
    label += (a ? ", " : "") + report.axes[a] + "=" + v;
  }
  return label;
}

std::string search_objective_note(const SearchReport& report, const SearchCandidate& winner) {
  switch (report.objective) {
    case SearchObjective::energy:
      return "; ranked by energy per output token (--objective energy): " +
             (winner.energy_per_output_token_j ? fixed(*winner.energy_per_output_token_j, 4) + " J" : "-");
    case SearchObjective::total_cost:
      return "; ranked by GPU plus electricity cost per hour (--objective total-cost), $" +
             fixed(winner.energy_cost_per_hour.value_or(0), 2) + "/hour of it electricity";
    case SearchObjective::cost: break;
  }
  return "";
}

ojson search_report_to_json(const SearchReport& report) {
  ojson j = ojson::object();
  j["servesim_search"] = 1;
  j["scenario"] = report.scenario;
  j["space"] = report.space_path;
  j["target"] = report.rate_key.empty() ? ojson(nullptr) : ojson{{"key", report.rate_key}, {"rate", report.rate}};
  j["slo"] = ojson::array();
  for (const auto& [cls, t] : report.slo)
    j["slo"].push_back({{"class", cls.empty() ? ojson(nullptr) : ojson(cls)}, {"field", t.field()}, {"max", t.bound_ms}});
  j["axes"] = report.axes;
  j["candidates"] = report.candidates.size();
  j["runs"] = report.runs;
  j["pruned"] = report.pruned;
  j["prune"] = report.prune;
  j["replicates"] = report.replicates;
  // Only off the default, so a search by cost writes what it always wrote.
  if (report.objective != SearchObjective::cost) j["objective"] = search_objective_name(report.objective);
  j["unpriced_hardware"] = report.unpriced;
  j["winner"] = report.ranking.empty() ? ojson(nullptr) : ojson(report.ranking.front());
  j["ranking"] = report.ranking;
  j["rows"] = ojson::array();
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const SearchCandidate& c = report.candidates[i];
    const PlanEntry& p = report.plan[i];
    const ojson sweep_row = make_sweep_row(i, report.axes, c.values, c.summary ? &*c.summary : nullptr, "");
    const auto rank = std::find(report.ranking.begin(), report.ranking.end(), i);
    ojson row = ojson::object();
    row["candidate"] = i;
    row["values"] = sweep_row["values"];
    row["status"] = candidate_status_name(p.status);
    row["rank"] = rank == report.ranking.end() ? ojson(nullptr) : ojson(rank - report.ranking.begin() + 1);
    row["ran"] = p.ran;
    row["gpus"] = c.built ? ojson(c.gpus) : ojson(nullptr);
    row["cost_per_hour"] = c.built ? ojson(c.cost_per_hour) : ojson(nullptr);
    row["cost_per_1m_output_tokens"] = opt(candidate_cost_per_million(c, "output_throughput"));
    row["cost_per_1m_total_tokens"] = opt(candidate_cost_per_million(c, "total_token_throughput"));
    row["offered_rate"] = opt(c.offered_rate);
    row["served_rate"] = opt(c.served_rate);
    if (report.metered_energy) {
      row["energy_kwh"] = opt(c.energy_kwh);
      row["energy_per_output_token_j"] = opt(c.energy_per_output_token_j);
      row["energy_cost_per_hour"] = opt(c.energy_cost_per_hour);
    }
    if (report.replicates >= 2) {
      row["replicates_met"] = c.replicates_met;
      row["slo_probability"] = c.slo_probability ? ojson(c.slo_probability->mean) : ojson(nullptr);
      row["slo_probability_lo"] = c.slo_probability ? ojson(c.slo_probability->lo) : ojson(nullptr);
      row["slo_probability_hi"] = c.slo_probability ? ojson(c.slo_probability->hi) : ojson(nullptr);
      row["tied_with_winner"] = c.tied_with_winner;
    }
    row["reason"] = p.reason.empty() ? ojson(nullptr) : ojson(p.reason);
    row["summary"] = sweep_row["summary"];
    j["rows"].push_back(std::move(row));
  }
  return j;
}

void write_search_csv(const ojson& j, std::ostream& out) {
  std::vector<std::string> fixed_columns = {"status", "rank", "ran", "gpus", "cost_per_hour",
                                            "cost_per_1m_output_tokens", "cost_per_1m_total_tokens",
                                            "offered_rate", "served_rate", "reason"};
  const ojson& rows = j["rows"];
  if (!rows.empty() && rows.front().contains("energy_kwh"))
    fixed_columns.insert(fixed_columns.end() - 1, {"energy_kwh", "energy_per_output_token_j", "energy_cost_per_hour"});
  if (j.value("replicates", 1) >= 2)
    fixed_columns.insert(fixed_columns.end() - 1, {"replicates_met", "slo_probability", "slo_probability_lo",
                                                   "slo_probability_hi", "tied_with_winner"});
  std::vector<std::string> classes;
  for (const auto& row : j["rows"])
    if (row["summary"].is_object() && row["summary"].contains("classes"))
      for (const auto& [name, _] : row["summary"]["classes"].items())
        if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);

  out << "candidate";
  for (const auto& a : j["axes"]) out << "," << table_csv_cell(a);
  for (const auto& c : fixed_columns) out << "," << c;
  for (const auto& f : sweep_fields()) out << "," << f;
  for (const auto& cls : classes)
    for (const auto& f : sweep_fields()) out << "," << table_csv_cell("classes." + cls + "." + f);
  out << "\n";
  for (const auto& row : j["rows"]) {
    out << row["candidate"].dump();
    for (const auto& a : j["axes"]) out << "," << table_csv_cell(row["values"][a.get<std::string>()]);
    for (const auto& c : fixed_columns) out << "," << table_csv_cell(row[c]);
    const ojson& s = row["summary"];
    for (const auto& f : sweep_fields()) out << "," << (s.is_object() ? table_csv_cell(s[f]) : "");
    for (const auto& cls : classes)
      for (const auto& f : sweep_fields()) {
        const bool has = s.is_object() && s.contains("classes") && s["classes"].contains(cls);
        out << "," << (has ? table_csv_cell(s["classes"][cls][f]) : "");
      }
    out << "\n";
  }
}

void print_search_report(const SearchReport& report, std::size_t top, std::ostream& out) {
  if (!report.ranking.empty()) {
    std::vector<std::string> head = {"rank", "candidate", "$/hour", "$/1M out tok", "GPUs"};
    // The figures an energy objective ranks by, next to the cost: J per output token, the
    // fleet's mean power and the run's kWh (energy); the electricity's share of $/hour and
    // the mean power (total-cost). The cost objective's table is as it was without them.
    const bool energy = report.objective == SearchObjective::energy;
    const bool total_cost = report.objective == SearchObjective::total_cost;
    if (energy) head.insert(head.end(), {"J/out tok", "mean W", "kWh"});
    if (total_cost) head.insert(head.end(), {"$/hour elec", "mean W"});
    for (const auto& a : report.axes) head.push_back(a.size() > 28 ? "..." + a.substr(a.size() - 25) : a);
    head.push_back("req/s served");
    const bool replicated = report.replicates >= 2;
    if (replicated) head.push_back("P(SLO) [95%]");
    for (const auto& [cls, t] : report.slo) head.push_back((cls.empty() ? "" : cls + ".") + t.field());
    std::vector<std::vector<std::string>> lines = {head};
    for (std::size_t r = 0; r < report.ranking.size() && r < top; ++r) {
      const std::size_t i = report.ranking[r];
      const SearchCandidate& c = report.candidates[i];
      const auto m = candidate_cost_per_million(c, "output_throughput");
      std::vector<std::string> line = {std::to_string(r + 1), std::to_string(i), fixed(c.cost_per_hour, 2),
                                       m ? fixed(*m, 3) : "-", std::to_string(c.gpus)};
      const auto mean_w = overall_energy_field(*c.summary, "mean_power_w");
      const auto figure = [](const std::optional<double>& v, int precision) { return v ? fixed(*v, precision) : "-"; };
      if (energy)
        line.insert(line.end(), {figure(c.energy_per_output_token_j, 4), figure(mean_w, 1), figure(c.energy_kwh, 4)});
      if (total_cost) line.insert(line.end(), {figure(c.energy_cost_per_hour, 2), figure(mean_w, 1)});
      for (const auto& v : c.values) line.push_back(v.size() > 28 ? v.substr(0, 25) + "..." : v);
      line.push_back(fixed(c.served_rate.value_or(c.summary->overall.get("request_throughput")), 2));
      if (replicated)
        line.push_back(c.slo_probability ? std::to_string(c.replicates_met) + "/" + std::to_string(report.replicates) +
                                               " [" + fixed(c.slo_probability->lo, 2) + ", " +
                                               fixed(c.slo_probability->hi, 2) + "]" + (c.tied_with_winner ? " ~" : "")
                                         : "-");
      for (const auto& [cls, t] : report.slo) {
        const SummaryBlock* b = block_of(*c.summary, cls);
        const double v = b ? b->get(t.field()) : NAN;
        line.push_back(std::isnan(v) ? "-" : fixed(v, 2));
      }
      lines.push_back(std::move(line));
    }
    print_aligned(lines, out);
    const std::size_t w = report.ranking.front();
    const SearchCandidate& c = report.candidates[w];
    const auto m = candidate_cost_per_million(c, "output_throughput");
    out << "winner: candidate " << w << " (" << candidate_label(report, w) << "): $" << fixed(c.cost_per_hour, 2)
        << "/hour for " << c.gpus << (c.gpus == 1 ? " GPU" : " GPUs");
    if (m) out << ", $" << fixed(*m, 3) << " per 1M output tokens";
    if (c.slo_probability)
      out << ", met the SLO under " << c.replicates_met << " of " << report.replicates << " seeds";
    out << search_objective_note(report, c) << "\n";
    std::vector<std::size_t> tied;
    for (std::size_t r = 1; r < report.ranking.size(); ++r)
      if (report.candidates[report.ranking[r]].tied_with_winner) tied.push_back(report.ranking[r]);
    if (!tied.empty()) {
      out << "cannot be told apart from the winner at " << report.replicates << " replicates (95% intervals of "
          << "P(SLO) overlap, marked ~): candidate";
      out << (tied.size() == 1 ? " " : "s ");
      for (std::size_t k = 0; k < tied.size(); ++k) out << (k ? ", " : "") << tied[k];
      out << "; more --replicates separate them, or choose among them by cost\n";
    }
  } else {
    out << "no candidate is feasible\n";
  }
  std::size_t shown = 0, others = 0;
  for (std::size_t i = 0; i < report.plan.size(); ++i) {
    if (report.plan[i].status == CandidateStatus::feasible) continue;
    if (others++ == 0) out << "not feasible or not needed:\n";
    if (shown >= 20) continue;
    ++shown;
    out << "  candidate " << i << " (" << candidate_label(report, i) << "): " << candidate_status_name(report.plan[i].status)
        << ", " << report.plan[i].reason << "\n";
  }
  if (others > shown) out << "  ... and " << others - shown << " more (see search.csv)\n";
  for (const auto& hw : report.unpriced)
    out << "warning: hardware '" << hw << "' has no price_per_gpu_hour; its GPUs count as free (give --price "
        << hw << "=USD)\n";
}

}  // namespace servesim
