#include "sim/report/capacity_report.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

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
  if (best)
    for (const auto& [key, b] : plan.knob.keys) report["keys"][key] = plan.knob.scale ? b * best->x : best->x;
  report["figures"] = best ? summary_to_json(best->summary) : ojson(nullptr);
  report["trials"] = ojson::array();
  for (const CapacityTrialRun& t : study.trials) {
    ojson trial = {{"value", t.x}, {"feasible", t.feasible}, {"reason", t.reason}};
    // Offered and served rates over the second half of the arrivals (0 when not measured:
    // the run saturated or completed nothing), and whether the run had to be lengthened.
    trial["offered_rate"] = t.sustained.offered_per_s;
    trial["sustained_rate"] = t.sustained.served_per_s;
    trial["too_short"] = t.too_short;
    trial["lengthened"] = t.lengthened.empty() ? ojson(nullptr) : ojson(t.lengthened);
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
  out << t.reason << (t.lengthened.empty() ? "" : (t.reason.empty() ? "" : "; ") + t.lengthened) << "\n";
}

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
}

}  // namespace servesim
