#include "sim/report/capacity_report.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "sim/study/run_energy.h"
#include "sim/study/run_judgement.h"
#include "sim/study/summary_json.h"

namespace servesim {

namespace {

using ojson = nlohmann::ordered_json;

// "-" for a figure without samples (TTFT when every output is 0 tokens): it cannot miss.
std::string fmt(double v) {
  if (std::isnan(v)) return "-";
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

ojson opt(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

std::string fixed(double v, int precision) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << v;
  return os.str();
}

// Four significant digits: J per output token spans 0.005 to 1 across models and loads.
std::string sig4(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

constexpr double kJoulesPerKwh = 3.6e6;  // 1 kWh = 1000 W x 3600 s

// USD of electricity per million output tokens: J per token x 1e6 tokens, in kWh, at the
// price. Empty without the per-token figure or a price.
std::optional<double> energy_cost_per_million(const RunSummary& summary, double price_per_kwh) {
  const auto j = overall_energy_field(summary, "energy_per_output_token_j");
  if (!j || !(price_per_kwh > 0)) return std::nullopt;
  return *j * 1e6 / kJoulesPerKwh * price_per_kwh;
}

// capacity.json's "energy" (--objective energy): the run at capacity's overall energy
// figures, what its mean power costs an hour and per 1M output tokens at
// cluster.energy.price_per_kwh (with a price), and the feasible trial that spent the least
// per output token.
ojson energy_at_capacity_json(const CapacityStudy& study, const CapacityTrialRun& best) {
  const RunSummary& s = best.summary;
  ojson e = ojson::object();
  for (const char* field : {"energy_kwh", "energy_per_output_token_j", "mean_power_w", "peak_power_w"})
    e[field] = opt(overall_energy_field(s, field));
  const double price = study.plan.price_per_kwh;
  const bool powered = price > 0 && overall_energy_field(s, "mean_power_w");
  e["energy_cost_per_hour"] = powered ? ojson(energy_cost_per_hour(s, price)) : ojson(nullptr);
  e["energy_cost_per_1m_output_tokens"] = opt(energy_cost_per_million(s, price));
  const CapacityTrialRun* least = study.least_energy();
  e["least_energy"] = least ? ojson{{"value", least->x},
                                    {"energy_per_output_token_j",
                                     opt(overall_energy_field(least->summary, "energy_per_output_token_j"))}}
                            : ojson(nullptr);
  return e;
}

}  // namespace

ojson capacity_to_json(const CapacityStudy& study, double sustain_tolerance) {
  const CapacityPlan& plan = study.plan;
  const CapacityTrialRun* best = study.at_capacity();
  ojson report = ojson::object();
  report["scenario"] = plan.scenario_name;
  report["keys"] = ojson::object();
  report["slo"] = ojson::array();
  for (const auto& sc : plan.scopes)
    for (const auto& t : sc.targets)
      report["slo"].push_back({{"class", sc.class_name.empty() ? ojson(nullptr) : ojson(sc.class_name)},
                               {"field", t.field()}, {"max", t.bound_ms}});
  report["unit"] = plan.knob.unit;
  report["feasible"] = best != nullptr;
  report["capacity"] = best ? ojson(best->x) : ojson(nullptr);
  report["capped"] = study.search.capped;
  report["lowest_infeasible"] = study.search.lowest_infeasible ? ojson(*study.search.lowest_infeasible) : ojson(nullptr);
  if (study.search.fails_at_any_load) report["fails_at_any_load"] = true;
  // Only off the default, so a search for the load writes what it always wrote.
  const bool energy = plan.objective == CapacityObjective::energy;
  if (energy) report["objective"] = "energy";
  if (best)
    for (const auto& [key, b] : plan.knob.keys) report["keys"][key] = plan.knob.scale ? b * best->x : best->x;
  report["figures"] = best ? summary_to_json(best->summary) : ojson(nullptr);
  if (energy) report["energy"] = best ? energy_at_capacity_json(study, *best) : ojson(nullptr);
  report["trials"] = ojson::array();
  for (const CapacityTrialRun& t : study.trials) {
    ojson trial = {{"value", t.x}, {"feasible", t.feasible}, {"reason", t.reason}};
    // Offered and served rates over the second half of the arrivals (0 when not measured:
    // the run saturated or completed nothing), and whether the run had to be lengthened.
    trial["offered_rate"] = t.sustained.offered_per_s;
    trial["sustained_rate"] = t.sustained.served_per_s;
    trial["too_short"] = t.too_short;
    trial["lengthened"] = t.lengthened.empty() ? ojson(nullptr) : ojson(t.lengthened);
    if (energy) {
      trial["energy_per_output_token_j"] = opt(overall_energy_field(t.summary, "energy_per_output_token_j"));
      trial["mean_power_w"] = opt(overall_energy_field(t.summary, "mean_power_w"));
    }
    report["trials"].push_back(trial);
  }
  report["sustain_tolerance"] = sustain_tolerance;
  if (const auto& rep = study.replicates) {
    ojson r = {{"n", rep->seeds.size()}, {"seeds", rep->seeds}, {"capacities", ojson::array()}};
    for (const auto& c : rep->capacities) r["capacities"].push_back(c ? ojson(*c) : ojson(nullptr));
    r["infeasible"] = static_cast<int>(rep->capacities.size()) - rep->found();
    r["capped"] = rep->capped;
    r["mean"] = rep->interval ? ojson(rep->interval->mean) : ojson(nullptr);
    r["lo"] = rep->interval ? ojson(rep->interval->lo) : ojson(nullptr);
    r["hi"] = rep->interval ? ojson(rep->interval->hi) : ojson(nullptr);
    report["replicates"] = r;
  }
  return report;
}

void print_capacity_header(const CapacityPlan& plan, std::ostream& out) {
  std::string slo_line;
  for (const auto& sc : plan.scopes)
    for (const auto& t : sc.targets)
      slo_line += (slo_line.empty() ? "" : ", ") + t.text() + (sc.class_name.empty() ? "" : " (" + sc.class_name + ")");
  out << "servesim capacity: " << plan.scenario_name << ", searching "
      << (plan.knob.scale ? "a multiplier of every class's rate" : plan.knob.keys.front().first) << " for " << slo_line
      << "\n";
}

void print_capacity_trial(const CapacityPlan& plan, const CapacityTrialRun& t, std::ostream& out) {
  out << "  " << std::setw(12) << fmt(t.x) << " " << plan.knob.unit << "  " << (t.feasible ? "ok  " : "FAIL") << "  ";
  if (t.feasible)
    for (const auto& sc : plan.scopes)
      for (const auto& tg : sc.targets) out << tg.field() << " " << fmt(summary_block_of(t.summary, sc.class_name)->get(tg.field())) << "  ";
  // A failed trial too: a saturated run stopped early has drawn power all the same.
  if (plan.objective == CapacityObjective::energy)
    if (const auto j = overall_energy_field(t.summary, "energy_per_output_token_j"))
      out << "J/out tok " << sig4(*j) << "  ";
  out << t.reason << (t.lengthened.empty() ? "" : (t.reason.empty() ? "" : "; ") + t.lengthened) << "\n";
}

namespace {

// "energy at capacity: 0.0601 J per output token, 269.0 W mean (peak 601.0 W), 0.0123 kWh
// over the run; $0.03/hour of electricity, $0.002 per 1M output tokens", then the feasible
// trial with the least J per output token when it is not the one at capacity.
void print_energy_at_capacity(const CapacityStudy& study, const CapacityTrialRun& best, std::ostream& out) {
  const RunSummary& s = best.summary;
  const auto figure = [&](const char* field, bool watts) {
    const auto v = overall_energy_field(s, field);
    return v ? (watts ? fixed(*v, 1) : sig4(*v)) : std::string("-");
  };
  out << "energy at capacity: " << figure("energy_per_output_token_j", false) << " J per output token, "
      << figure("mean_power_w", true) << " W mean (peak " << figure("peak_power_w", true) << " W), "
      << figure("energy_kwh", false) << " kWh over the run";
  const double price = study.plan.price_per_kwh;
  if (price > 0) {
    out << "; $" << sig4(energy_cost_per_hour(s, price)) << "/hour of electricity";
    if (const auto m = energy_cost_per_million(s, price)) out << ", $" << sig4(*m) << " per 1M output tokens";
  }
  out << "\n";
  const CapacityTrialRun* least = study.least_energy();
  if (least && least != &best)
    out << "least energy per output token among the feasible trials: " << fmt(least->x) << " "
        << study.plan.knob.unit << " at "
        << sig4(*overall_energy_field(least->summary, "energy_per_output_token_j")) << " J\n";
}

}  // namespace

void print_capacity_result(const CapacityStudy& study, std::ostream& out) {
  const CapacityPlan& plan = study.plan;
  const CapacityTrialRun* best = study.at_capacity();
  if (!best) {
    if (study.search.fails_at_any_load) {
      out << "no feasible value: " << fmt(study.search.lowest_infeasible.value_or(0)) << " " << plan.knob.unit
          << " fails by rejections that come at any load, so no lower value was tried ("
          << study.trials.back().reason << ")\n";
      return;
    }
    out << "no feasible value: even " << fmt(study.search.lowest_infeasible.value_or(0)) << " " << plan.knob.unit
        << " fails (" << study.trials.back().reason << ")\n";
    return;
  }
  if (!best->lengthened.empty()) out << "(" << best->lengthened << " to judge the rate at capacity)\n";
  const double x = best->x;
  out << "capacity: " << fmt(x) << " " << plan.knob.unit;
  if (study.search.capped)
    out << " (the highest value tried, at --max-rate or after 40 doublings: the limit may be higher)";
  else
    out << " (" << fmt(*study.search.lowest_infeasible) << " fails)";
  out << "\n";
  if (const auto& rep = study.replicates) {
    out << "over " << rep->seeds.size() << " seeds (" << rep->seeds.front() << ".." << rep->seeds.back() << "): ";
    if (rep->interval)
      out << "capacity " << fmt(rep->interval->mean) << " " << plan.knob.unit << ", 95% interval of the mean ["
          << fmt(rep->interval->lo) << ", " << fmt(rep->interval->hi) << "] from " << rep->found() << " seeds";
    else
      out << "too few seeds found a capacity for an interval";
    const int missing = static_cast<int>(rep->capacities.size()) - rep->found();
    if (missing > 0) out << "; " << missing << " found no feasible value";
    if (rep->capped) out << "; " << rep->capped << " stopped at the highest value tried";
    out << "\n";
  }
  if (plan.knob.scale)
    for (const auto& [key, b] : plan.knob.keys) out << "  " << key << " = " << fmt(b * x) << "\n";
  const SummaryBlock& at = best->summary.overall;
  out << "at capacity: completed " << fmt(at.get("completed")) << ", served " << fmt(best->sustained.served_per_s)
      << " of " << fmt(best->sustained.offered_per_s) << " req/s offered over the second half of the arrivals (whole run "
      << fmt(at.get("request_throughput")) << " req/s with the drain), output_throughput "
      << fmt(at.get("output_throughput")) << " tok/s";
  for (const auto& sc : plan.scopes)
    for (const auto& t : sc.targets)
      out << ", " << (sc.class_name.empty() ? "" : sc.class_name + ".") << t.field() << " "
          << fmt(summary_block_of(best->summary, sc.class_name)->get(t.field()));
  out << "\n";
  if (plan.objective == CapacityObjective::energy) print_energy_at_capacity(study, *best, out);
}

}  // namespace servesim
