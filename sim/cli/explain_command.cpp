// `servesim explain SCENARIO.yaml [--out DIR] [--set KEY=VALUE]... [--json] [--jobs N]`:
// runs the scenario and one-lever variants of it (explain_levers.h) and reports, for TTFT
// p50/p99, TPOT p50/p99 (ITL beside them) and throughput, how far each lever moves each
// metric, ranked, and which phase owns each metric (docs/explain.md). Variants whose figures
// cannot be set against the base's (explain_comparable.h) are marked and ranked last.
#include <boost/program_options.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "sim/cli/commands.h"
#include "sim/cli/explain_comparable.h"
#include "sim/cli/explain_levers.h"
#include "sim/cli/options.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/report/atomic_write.h"
#include "sim/scenario/scenario_loader.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace servesim::cli {
namespace {

struct Metric {
  const char* field;  // summary.json field
  const char* label;
  const char* unit;
  bool higher_is_better;
  // A per-gap figure (ITL): a variant that emits several tokens per step records gaps of 0
  // for its extra tokens, so its change is not comparable with the other levers'.
  bool per_gap = false;
  // Printed as a block of its own; the others are in the JSON and beside a printed one.
  bool printed = true;
  const char* beside = nullptr;  // the field printed next to each variant's change
};

// Per-token latency is ranked by TPOT, each request's (finish - first token) / (output - 1):
// it counts every token whether it came alone or with accepted draft tokens. p50 as for TTFT,
// with p99 for the tail; ITL is printed beside them.
const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"median_ttft_ms", "TTFT p50", "ms", false},
      {"p99_ttft_ms", "TTFT p99", "ms", false},
      {"median_tpot_ms", "TPOT p50", "ms", false, false, true, "median_itl_ms"},
      {"p99_tpot_ms", "TPOT p99", "ms", false, false, true, "p99_itl_ms"},
      {"median_itl_ms", "ITL p50", "ms", false, true, false},
      {"p99_itl_ms", "ITL p99", "ms", false, true, false},
      {"output_throughput", "throughput", "tok/s", true}};
  return m;
}

std::size_t metric_index(const std::string& field) {
  for (std::size_t m = 0; m < metrics().size(); ++m)
    if (field == metrics()[m].field) return m;
  return metrics().size();
}

// A lever improves a metric when it changes it by more than this; smaller moves are noise
// of a finite run, not an effect worth acting on.
constexpr double kMovesThreshold = 0.01;

struct Outcome {
  std::optional<RunSummary> summary;
  std::string error;
};

// (variant - base) / base; NaN when either is missing or the base is 0.
double relative_change(double base, double variant) {
  if (!std::isfinite(base) || !std::isfinite(variant) || base == 0) return std::nan("");
  return (variant - base) / base;
}

std::string percent(double change) {
  if (!std::isfinite(change)) return "n/a";
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << change * 100 << "%";
  return os.str();
}

// |change| as "42.1%".
std::string magnitude(double change) { return percent(std::fabs(change)).substr(1); }

nlohmann::ordered_json number_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr; }

}  // namespace

int explain_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim explain SCENARIO.yaml [options]");
  std::string scenario_path, out_dir;
  std::vector<std::string> sets;
  int jobs = default_jobs();
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_dir), "output folder for explain.json (default results/NAME-explain)")
      ("set", po::value(&sets)->composing(), "override a scenario key of the base: --set stop.requests=2000")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed (every variant uses the same seed)")
      ("jobs,j", po::value(&jobs), "variants run at once on local cores (default: all hardware threads)")
      ("json", "print the result as JSON instead of text");
  const char* about =
      "Runs the scenario and one-lever variants of it (prefix caching, chunk size, batch cap,\n"
      "weight precision, speculative decoding, one more replica per pool) and ranks how far each\n"
      "lever moves TTFT p50/p99, TPOT p50/p99 (ITL beside) and throughput, saying which phase\n"
      "owns each metric. Overloaded variants (saturated, or rejecting requests) are ranked last.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("explain", args, opts, about, scenario_path, vm, out, err)) return *done;
  if (jobs < 1) throw ConfigError("--jobs", 0, std::to_string(jobs), "must be at least 1");

  Scenario base = load_scenario(scenario_path, sets);
  if (vm.count("seed")) base.seed = vm["seed"].as<std::uint64_t>();
  if (out_dir.empty()) out_dir = "results/" + base.name + "-explain";
  std::string split_skip;
  const std::string split = disaggregation_override(scenario_path, sets, split_skip);
  std::vector<Lever> levers = make_levers(base, split, split_skip);

  // Load every variant first: one that does not validate is skipped with the loader's
  // message, before anything runs.
  constexpr std::size_t kNoLever = static_cast<std::size_t>(-1);
  std::vector<Scenario> scenarios = {base};
  std::vector<std::size_t> lever_of_run = {kNoLever};
  // A variant that leaves the measured kernel tables (int4 weights, fp8 on a GPU without
  // fp8 rows) is priced by the roofline; it is compared with the base priced by the
  // roofline too, so the change is the lever's and not the gap between the two models.
  std::vector<std::size_t> base_of_run = {0};
  std::map<std::string, std::size_t> roofline_bases;
  std::vector<std::string> baseline_of_lever(levers.size(), "base");
  for (std::size_t i = 0; i < levers.size(); ++i) {
    if (!levers[i].skip_reason.empty()) continue;
    std::vector<std::string> overrides = sets;
    overrides.insert(overrides.end(), levers[i].overrides.begin(), levers[i].overrides.end());
    try {
      Scenario s = load_scenario(scenario_path, overrides);
      s.seed = base.seed;
      std::vector<std::string> to_roofline;
      if (s.cluster.pools.size() == base.cluster.pools.size()) {
        for (std::size_t p = 0; p < s.cluster.pools.size(); ++p) {
          if (base.cluster.pools[p].cost_model.kind == "kernels" && s.cluster.pools[p].cost_model.kind == "roofline") {
            to_roofline.push_back("cluster.pools." + std::to_string(p) + ".cost_model=roofline");
          }
        }
      }
      std::size_t base_run = 0;
      if (!to_roofline.empty()) {
        std::string key;
        for (const std::string& o : to_roofline) key += o + " ";
        auto it = roofline_bases.find(key);
        if (it == roofline_bases.end()) {
          std::vector<std::string> base_overrides = sets;
          base_overrides.insert(base_overrides.end(), to_roofline.begin(), to_roofline.end());
          Scenario rb = load_scenario(scenario_path, base_overrides);
          rb.seed = base.seed;
          scenarios.push_back(std::move(rb));
          lever_of_run.push_back(kNoLever);
          base_of_run.push_back(scenarios.size() - 1);
          it = roofline_bases.emplace(key, scenarios.size() - 1).first;
        }
        base_run = it->second;
        baseline_of_lever[i] = "base priced by the roofline (" + key.substr(0, key.size() - 1) +
                               "): the variant leaves the measured kernel tables";
      }
      scenarios.push_back(std::move(s));
      lever_of_run.push_back(i);
      base_of_run.push_back(base_run);
    } catch (const ConfigError& e) {
      levers[i].skip_reason = e.message();
    }
  }

  std::vector<Outcome> outcomes(scenarios.size());
  run_parallel(scenarios.size(), jobs, [&](std::size_t i) {
    const Scenario& s = scenarios[i];
    try {
      Simulation sim(s.seed, s.stop, s.workload, s.cluster);
      outcomes[i].summary = sim.run().summary;
    } catch (const ConfigError& e) {
      outcomes[i].error = e.message();
    }
  });
  if (!outcomes[0].summary) {
    throw ConfigError(scenario_path, 0, "", "the base scenario cannot run: " + outcomes[0].error);
  }
  const SummaryBlock& b = outcomes[0].summary->overall;

  // changes[v][m] for each variant that ran.
  struct Ran {
    std::size_t lever;
    std::vector<double> values, changes;
    std::string overload;         // overload_of(): "" when the variant kept up
    bool several_tokens = false;  // it, or the run it is compared with, emits several per step
    // Why its change in metric m cannot be ranked with the others', or "".
    std::string not_comparable(const Metric& m) const {
      if (!overload.empty()) return "overloaded: " + overload;
      if (m.per_gap && several_tokens) return "several tokens per step: accepted draft tokens arrive with gap 0";
      return "";
    }
  };
  std::vector<Ran> ran;
  for (std::size_t i = 1; i < scenarios.size(); ++i) {
    if (lever_of_run[i] == kNoLever) continue;  // a roofline-priced base
    Lever& lever = levers[lever_of_run[i]];
    if (!outcomes[i].summary) {
      lever.skip_reason = outcomes[i].error;
      continue;
    }
    const Outcome& compared = outcomes[base_of_run[i]];
    if (!compared.summary) {
      lever.skip_reason = "its roofline-priced base cannot run: " + compared.error;
      continue;
    }
    Ran r{lever_of_run[i], {}, {}, overload_of(outcomes[i].summary->overall, &compared.summary->overall),
          several_tokens_per_step(scenarios[i]) || several_tokens_per_step(scenarios[base_of_run[i]])};
    for (const auto& m : metrics()) {
      r.values.push_back(outcomes[i].summary->overall.get(m.field));
      r.changes.push_back(relative_change(compared.summary->overall.get(m.field), r.values.back()));
    }
    ran.push_back(std::move(r));
  }

  // Per metric: levers ranked by how far they move it, and the phase whose levers move it most.
  nlohmann::ordered_json j;
  j["scenario"] = base.name;
  j["seed"] = base.seed;
  j["threshold"] = kMovesThreshold;
  nlohmann::ordered_json jbase = nlohmann::ordered_json::object();
  for (const auto& m : metrics()) jbase[m.field] = number_or_null(b.get(m.field));
  j["base"] = jbase;
  const std::string base_overload = overload_of(b, nullptr);
  j["base_overload"] = base_overload;
  j["variants"] = nlohmann::ordered_json::array();
  for (const auto& r : ran) {
    const Lever& l = levers[r.lever];
    nlohmann::ordered_json v;
    v["lever"] = l.name;
    v["phase"] = l.phase;
    v["overrides"] = l.overrides;
    v["compared_with"] = baseline_of_lever[r.lever];
    nlohmann::ordered_json values = nlohmann::ordered_json::object(), changes = nlohmann::ordered_json::object();
    for (std::size_t m = 0; m < metrics().size(); ++m) {
      values[metrics()[m].field] = number_or_null(r.values[m]);
      changes[metrics()[m].field] = number_or_null(r.changes[m]);
    }
    v["metrics"] = values;
    v["change"] = changes;
    v["overloaded"] = !r.overload.empty();
    v["overload"] = r.overload;
    v["several_tokens_per_step"] = r.several_tokens;
    j["variants"].push_back(v);
  }
  j["skipped"] = nlohmann::ordered_json::array();
  for (const auto& l : levers)
    if (!l.skip_reason.empty()) j["skipped"].push_back({{"lever", l.name}, {"phase", l.phase}, {"reason", l.skip_reason}});

  std::ostringstream text;
  text << "servesim explain: " << base.name << " (seed " << base.seed << "), base and " << ran.size()
       << " one-lever variants\nbase:";
  for (std::size_t m = 0; m < metrics().size(); ++m)
    text << (m ? ", " : " ") << metrics()[m].label << " " << std::fixed << std::setprecision(2)
         << b.get(metrics()[m].field) << " " << metrics()[m].unit;
  text << std::defaultfloat << "\n";
  if (!base_overload.empty())
    text << "base overloaded (" << base_overload << "): its latencies describe a queue that never settled; "
         << "read the changes as how far a lever gets it out\n";
  j["metrics"] = nlohmann::ordered_json::object();
  for (std::size_t m = 0; m < metrics().size(); ++m) {
    const Metric& metric = metrics()[m];
    std::vector<const Ran*> order;
    for (const auto& r : ran) order.push_back(&r);
    // Comparable variants first, then the others (overloaded, or ITL of a several-tokens
    // variant) whatever their change; within each, largest move first, NaN last, ties keep
    // the lever order (stable).
    std::stable_sort(order.begin(), order.end(), [&](const Ran* a, const Ran* c) {
      const bool ka = a->not_comparable(metric).empty(), kc = c->not_comparable(metric).empty();
      if (ka != kc) return ka;
      const double x = std::isfinite(a->changes[m]) ? std::fabs(a->changes[m]) : -1;
      const double y = std::isfinite(c->changes[m]) ? std::fabs(c->changes[m]) : -1;
      return x > y;
    });
    // A phase owns the metric when its levers improve it most: a lever that only makes the
    // metric worse (speculation's draft prefill adds to TTFT) shows what it costs, not
    // where the problem lies. A lever that undoes a setting of the base counts the other
    // way: what turning it off costs is what the setting gives.
    // Variants that cannot be compared do not count.
    const bool higher_better = metric.higher_is_better;
    std::map<std::string, double> by_phase;  // phase -> largest effect of its levers
    std::map<std::string, std::string> top_of_phase;
    for (const Ran* r : order) {
      if (!r->not_comparable(metric).empty()) continue;
      const Lever& l = levers[r->lever];
      double c = std::isfinite(r->changes[m]) ? (higher_better ? r->changes[m] : -r->changes[m]) : 0;
      if (l.undoes_base) c = -c;
      if (!by_phase.count(l.phase) || c > by_phase[l.phase]) {
        by_phase[l.phase] = c;
        top_of_phase[l.phase] = l.name;
      }
    }
    std::string owner = "none";
    double owner_move = kMovesThreshold;
    for (const char* phase : {"prefill", "decode", "capacity"}) {
      if (by_phase.count(phase) && by_phase[phase] > owner_move) {
        owner = phase;
        owner_move = by_phase[phase];
      }
    }
    std::ostringstream block;
    block << "\n" << metric.label << " (base " << std::fixed << std::setprecision(2) << b.get(metric.field) << " "
          << metric.unit << std::defaultfloat << "): ";
    if (owner == "none") {
      block << "no lever improves it (or undoes a setting that helps it) by more than " << kMovesThreshold * 100
            << "%\n";
    } else {
      block << "owned by " << (owner == "capacity" ? "queueing (capacity)" : owner) << ": " << owner
            << " levers move it by up to " << magnitude(by_phase[owner]) << " (" << top_of_phase[owner] << ")";
      for (const char* phase : {"prefill", "decode", "capacity"}) {
        if (phase == owner || !by_phase.count(phase)) continue;
        block << "; " << phase << " levers "
              << (by_phase[phase] > 0 ? "at most " + magnitude(by_phase[phase]) : std::string("none"));
      }
      block << "\n";
    }
    const std::size_t beside = metric.beside ? metric_index(metric.beside) : metrics().size();
    nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
    for (const Ran* r : order) {
      const Lever& l = levers[r->lever];
      block << "  " << std::setw(8) << percent(r->changes[m]) << "  " << l.name << " [" << l.phase << "]";
      if (beside < metrics().size()) {
        block << "  " << metrics()[beside].label << " " << percent(r->changes[beside]);
        if (r->several_tokens) block << " (several tokens per step)";
      }
      const std::string why = r->not_comparable(metric);
      if (!why.empty()) block << "  " << why << ", ranked last";
      block << "\n";
      nlohmann::ordered_json entry = {{"lever", l.name},
                                      {"phase", l.phase},
                                      {"change", number_or_null(r->changes[m])},
                                      {"comparable", why.empty()}};
      if (!why.empty()) entry["not_comparable_because"] = why;
      ranking.push_back(std::move(entry));
    }
    if (metric.printed) text << block.str();
    nlohmann::ordered_json jm = {{"label", metric.label}, {"base", number_or_null(b.get(metric.field))},
                                 {"owner", owner}, {"ranking", ranking}};
    if (metric.per_gap) {
      jm["note"] = "per inter-token gap: not printed; per-token latency is ranked by TPOT, and variants that emit "
                   "several tokens per step are ranked last here";
    }
    j["metrics"][metric.field] = std::move(jm);
  }
  const char* why_tpot =
      " several tokens per step (speculative decoding): accepted draft tokens arrive with the step's own, "
      "with gap 0, so ITL understates per-token latency; judge by TPOT\n";
  if (several_tokens_per_step(base)) {
    text << "\nthe base emits" << why_tpot;
  } else {
    for (const auto& r : ran)
      if (r.several_tokens) text << "\n" << levers[r.lever].name << ": emits" << why_tpot;
  }
  for (const auto& r : ran) {
    if (baseline_of_lever[r.lever] != "base") {
      text << "\n" << levers[r.lever].name << ": compared with the " << baseline_of_lever[r.lever] << "\n";
    }
  }
  if (!j["skipped"].empty()) {
    text << "\nskipped:\n";
    for (const auto& l : levers)
      if (!l.skip_reason.empty()) text << "  " << l.name << ": " << l.skip_reason << "\n";
  }

  const std::string json_path = (fs::path(out_dir) / "explain.json").string();
  write_file_atomically(json_path, "--out", [&](std::ostream& f) { f << j.dump(2) << "\n"; });
  if (vm.count("json")) {
    out << j.dump(2) << "\n";
  } else {
    out << text.str() << "\nwrote " << json_path << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
