// `servesim capacity SCENARIO.yaml --slo ttft_p99=2s,itl_p99=100ms [--class NAME]
//  [--rate-key KEY] [--max-rate R] [--tolerance 1%]`: the highest arrival rate (or
// concurrency) whose SLO percentiles hold (docs/sweeps.md). Exit 0 with the rate and the
// figures at it; exit 1 if no rate is feasible.
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "sim/cli/capacity_search.h"
#include "sim/cli/commands.h"
#include "sim/cli/run_judgement.h"
#include "sim/cli/options.h"
#include "sim/cluster/saturation_watch.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/io/atomic_write.h"
#include "sim/io/percent.h"
#include "sim/io/scenario_loader.h"
#include "sim/io/slo_targets.h"
#include "sim/io/summary_writer.h"
#include "sim/metrics/replicate_intervals.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace servesim::cli {
namespace {

// What the search turns: one scenario key set to x, or (scale) every class's rate key set to
// its own value times x.
struct Knob {
  std::vector<std::pair<std::string, double>> keys;  // key, the scenario's value
  bool scale = false;
  bool integer = false;
  std::string unit;  // for reports: "req/s", "users", "x"
  double start = 1;

  std::vector<std::string> overrides(double x) const {
    std::vector<std::string> out;
    // nlohmann prints the shortest text that reads back as the same double.
    for (const auto& [key, base] : keys) out.push_back(key + "=" + ojson(scale ? base * x : x).dump());
    return out;
  }
};

std::string fmt(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

// The rate key of one class: its arrival rate, its concurrency (closed loop) or its
// trace's speedup. `scalable`: whether "scale every class" touches it (closed loops keep
// their users: they are not a rate).
struct ClassKnob {
  std::string key;
  double value = 0;
  bool integer = false;
  std::string unit;
  bool scalable = true;
};

ClassKnob class_knob(const Scenario& s, std::size_t i) {
  const ClassSpec& c = s.workload[i];
  const std::string prefix = "workload." + std::to_string(i) + ".";
  if (c.arrival && c.arrival->process == ArrivalSpec::Process::closed)
    return {prefix + "arrival.concurrency", static_cast<double>(c.arrival->concurrency), true, "users", false};
  if (c.arrival) return {prefix + "arrival.rate", c.arrival->rate_per_s, false, "req/s", true};
  if (c.trace) return {prefix + "trace.speedup", c.trace->speedup, false, "x trace speed", true};
  throw ConfigError(s.source_file, 0, prefix + "arrival", "the class has neither an arrival process nor a trace");
}

// How much longer than asked a trial may run to be long enough to judge.
constexpr double kMaxLengthening = 16;

std::optional<double> known_value(const Scenario& s, const std::string& key) {
  for (std::size_t i = 0; i < s.workload.size(); ++i) {
    const ClassKnob k = class_knob(s, i);
    if (k.key == key) return k.value;
  }
  return std::nullopt;
}


}  // namespace

int capacity_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim capacity SCENARIO.yaml --slo ttft_p99=2s,... [options]");
  std::string scenario_path, slo_text, class_name, rate_key, tolerance = "1%", max_rejected = "0%", out_dir,
      sustain = "5%";
  std::vector<std::string> sets;
  double max_rate = 0, start = 0;
  opts.add_options()("help,h", "show this help")
      ("slo", po::value(&slo_text), "objectives: METRIC_STAT=DURATION,... (ttft|itl|tpot|e2el|queue, "
                                    "mean|p50|p90|p95|p99|p999|every; none: p99); default: each class's slo:")
      ("class", po::value(&class_name), "search this class's rate and check the SLO on it (default: scale "
                                        "every class's rate together, check the SLO overall)")
      ("rate-key", po::value(&rate_key), "the scenario key to search instead (e.g. workload.0.arrival.concurrency)")
      ("start", po::value(&start), "first value tried (default: the scenario's own value)")
      ("max-rate", po::value(&max_rate), "never try above this value")
      ("tolerance", po::value(&tolerance), "stop when the bracket is this narrow, relative (default 1%)")
      ("integer", "the searched value is a whole number (implied for *.concurrency)")
      ("max-rejected", po::value(&max_rejected), "share of requests that may be rejected (default 0%)")
      ("sustain-tolerance", po::value(&sustain),
       "a run must serve the offered rate within this share over the second half of its arrivals; "
       "a run too short to tell is lengthened up to 16x (default 5%)")
      ("no-early-stop", "run every trial to its end, even when its queue plainly grows without bound")
      ("set", po::value(&sets)->composing(), "override a scenario key: --set stop.requests=20000")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed")
      ("replicates", po::value<int>(),
       "search again with the seeds after it, K searches in all, and give the capacity as the mean with its "
       "95% interval (the trials shown are the first seed's)")
      ("out,o", po::value(&out_dir), "also write capacity.json and the run at capacity's summary.json here")
      ("json", "print the result as JSON")
      ("quiet,q", "print only the result line");
  const char* about =
      "Finds the highest arrival rate (or concurrency) whose SLOs hold: doubling until a run\n"
      "fails, then bisection. A run whose queue grows without bound fails as saturated,\n"
      "stopped as soon as that is plain. Exit 0 with the rate; 1 if no rate is feasible.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("capacity", args, opts, about, scenario_path, vm, out, err)) return *done;
  const double tol = parse_percent_or_throw(tolerance, "--tolerance");
  if (!(tol > 0)) throw ConfigError("--tolerance", 0, tolerance, "must be > 0%");
  const double reject_share = parse_percent_or_throw(max_rejected, "--max-rejected");
  const double sustain_tolerance = parse_percent_or_throw(sustain, "--sustain-tolerance");
  if (!(sustain_tolerance > 0 && sustain_tolerance < 1))
    throw ConfigError("--sustain-tolerance", 0, sustain, "must be between 0% and 100%");
  if (vm.count("max-rate") && !(max_rate > 0)) throw ConfigError("--max-rate", 0, fmt(max_rate), "must be > 0");
  if (vm.count("start") && !(start > 0)) throw ConfigError("--start", 0, fmt(start), "must be > 0");
  const int replicates = vm.count("replicates") ? vm["replicates"].as<int>() : 1;
  if (replicates < 1 || replicates > 1000)
    throw ConfigError("", 0, "--replicates", "must be a whole number from 1 to 1000, got " + std::to_string(replicates));

  const Scenario base = load_scenario(scenario_path, sets);
  int class_index = -1;
  if (!class_name.empty()) {
    for (std::size_t i = 0; i < base.workload.size(); ++i)
      if (base.workload[i].name == class_name) class_index = static_cast<int>(i);
    if (class_index < 0) throw ConfigError(scenario_path, 0, "--class", "no workload class is named '" + class_name + "'");
  } else if (base.workload.size() == 1) {
    class_index = 0;  // one class: its own rate, in its own unit
  }

  // The knob.
  Knob knob;
  if (!rate_key.empty()) {
    const auto value = known_value(base, rate_key);
    knob.keys.push_back({rate_key, value.value_or(0)});
    knob.integer = rate_key.size() >= 11 && rate_key.compare(rate_key.size() - 11, 11, "concurrency") == 0;
    knob.unit = knob.integer ? "users" : rate_key.find("rate") != std::string::npos ? "req/s" : "";
    if (!value && !vm.count("start"))
      throw ConfigError(scenario_path, 0, rate_key, "its value is not known to capacity; give --start VALUE");
    knob.start = value.value_or(1);
  } else if (class_index >= 0) {
    const ClassKnob k = class_knob(base, static_cast<std::size_t>(class_index));
    knob.keys.push_back({k.key, k.value});
    knob.integer = k.integer;
    knob.unit = k.unit;
    knob.start = k.value;
  } else {
    knob.scale = true;
    knob.unit = "x the scenario's rates";
    for (std::size_t i = 0; i < base.workload.size(); ++i) {
      const ClassKnob k = class_knob(base, i);
      if (k.scalable) knob.keys.push_back({k.key, k.value});
    }
    if (knob.keys.empty())
      throw ConfigError(scenario_path, 0, "workload", "no class has a rate to scale (closed loops only): use --rate-key");
  }
  if (vm.count("integer")) knob.integer = true;
  if (vm.count("start")) knob.start = start;
  if (!(knob.start > 0)) throw ConfigError(scenario_path, 0, knob.keys.front().first, "is not > 0; give --start VALUE");

  // The objectives.
  std::vector<SloScope> scopes;
  if (!slo_text.empty()) {
    scopes.push_back({class_name, parse_slo_targets(slo_text)});
  } else {
    for (const auto& c : base.workload)
      if (!class_name.empty() ? c.name == class_name : true) {
        auto targets = slo_targets_from_spec(c.slo);
        if (!targets.empty()) scopes.push_back({c.name, std::move(targets)});
      }
    if (scopes.empty()) throw ConfigError(scenario_path, 0, "--slo", "give --slo ttft_p99=2s,... or an slo: in the class");
  }

  const bool quiet = vm.count("quiet") > 0, json = vm.count("json") > 0;
  std::string slo_line;
  for (const auto& sc : scopes)
    for (const auto& t : sc.targets)
      slo_line += (slo_line.empty() ? "" : ", ") + t.text() + (sc.class_name.empty() ? "" : " (" + sc.class_name + ")");
  if (!quiet && !json)
    out << "servesim capacity: " << base.name << ", searching "
        << (knob.scale ? "a multiplier of every class's rate" : knob.keys.front().first) << " for " << slo_line << "\n";

  std::vector<RunSummary> summaries;  // one per trial, in trial order
  std::vector<RunJudgement> judgements;  // the same, without their results
  std::vector<std::string> notes;       // how long each trial ran when it was lengthened
  const std::uint64_t first_seed = vm.count("seed") ? vm["seed"].as<std::uint64_t>() : base.seed;
  // One trial: the scenario with the knob at x, run with `seed` and judged.
  auto judge_at = [&](double x, std::uint64_t seed, std::string* note) {
    std::vector<std::string> overrides = sets;
    for (auto& o : knob.overrides(x)) overrides.push_back(std::move(o));
    Scenario s = load_scenario(scenario_path, overrides);
    s.seed = seed;
    return judge_long_enough(s, scopes, reject_share, vm.count("no-early-stop") == 0, false, sustain_tolerance,
                             kMaxLengthening, note);
  };
  auto evaluate = [&](double x) {
    std::string note;
    RunJudgement judged = judge_at(x, first_seed, &note);
    const RunResult& r = judged.result;
    summaries.push_back(r.summary);
    notes.push_back(note);

    CapacityTrial t;
    t.feasible = judged.feasible;
    t.reason = std::move(judged.reason);
    if (!quiet && !json) {
      out << "  " << std::setw(12) << fmt(x) << " " << knob.unit << "  " << (t.feasible ? "ok  " : "FAIL") << "  ";
      if (t.feasible)
        for (const auto& sc : scopes)
          for (const auto& tg : sc.targets) out << tg.field() << " " << fmt(summary_block_of(r.summary, sc.class_name)->get(tg.field())) << "  ";
      out << t.reason << (note.empty() ? "" : (t.reason.empty() ? "" : "; ") + note) << "\n";
    }
    judged.result = RunResult{};  // the summary is kept above
    judgements.push_back(std::move(judged));
    return t;
  };

  CapacitySearchParams params;
  params.start = knob.start;
  if (vm.count("max-rate")) params.max_x = max_rate;
  params.tolerance = tol;
  params.integer = knob.integer;
  const CapacitySearchResult result = search_capacity(params, evaluate);

  // Replicates: the same search under the seeds after the first; the capacity of each, and
  // their mean with its 95% interval over the seeds that found one.
  std::vector<std::uint64_t> seeds = {first_seed};
  std::vector<std::optional<double>> capacities = {result.best ? std::optional<double>(result.trials[*result.best].x)
                                                               : std::nullopt};
  int capped_replicates = result.best && result.capped ? 1 : 0;
  for (int k = 1; k < replicates; ++k) {
    const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(k);
    const CapacitySearchResult again = search_capacity(params, [&](double x) {
      std::string note;
      RunJudgement judged = judge_at(x, seed, &note);
      return CapacityTrial{x, judged.feasible, std::move(judged.reason)};
    });
    seeds.push_back(seed);
    capacities.push_back(again.best ? std::optional<double>(again.trials[*again.best].x) : std::nullopt);
    capped_replicates += again.best && again.capped ? 1 : 0;
    if (!quiet && !json) out << "  seed " << seed << ": " << (again.best ? fmt(*capacities.back()) + " " + knob.unit : "no feasible value") << "\n";
  }
  std::vector<double> found;
  for (const auto& c : capacities)
    if (c) found.push_back(*c);
  const std::optional<FigureInterval> capacity_interval =
      found.size() >= 2 ? std::optional<FigureInterval>(mean_interval(found)) : std::nullopt;

  ojson report = ojson::object();
  report["scenario"] = base.name;
  report["keys"] = ojson::object();
  report["slo"] = ojson::array();
  for (const auto& sc : scopes)
    for (const auto& t : sc.targets)
      report["slo"].push_back({{"class", sc.class_name.empty() ? ojson(nullptr) : ojson(sc.class_name)},
                               {"field", t.field()}, {"max", t.bound_ms}});
  report["unit"] = knob.unit;
  report["feasible"] = result.best.has_value();
  report["capacity"] = result.best ? ojson(result.trials[*result.best].x) : ojson(nullptr);
  report["capped"] = result.capped;
  report["lowest_infeasible"] = result.lowest_infeasible ? ojson(*result.lowest_infeasible) : ojson(nullptr);
  if (result.best)
    for (const auto& [key, b] : knob.keys) report["keys"][key] = knob.scale ? b * result.trials[*result.best].x : result.trials[*result.best].x;
  report["figures"] = result.best ? summary_to_json(summaries[*result.best]) : ojson(nullptr);
  report["trials"] = ojson::array();
  for (std::size_t i = 0; i < result.trials.size(); ++i) {
    const CapacityTrial& t = result.trials[i];
    const SustainedRate& m = judgements[i].sustained;
    ojson trial = {{"value", t.x}, {"feasible", t.feasible}, {"reason", t.reason}};
    // Offered and served rates over the second half of the arrivals (0 when not measured:
    // the run saturated or completed nothing), and whether the run had to be lengthened.
    trial["offered_rate"] = m.offered_per_s;
    trial["sustained_rate"] = m.served_per_s;
    trial["too_short"] = judgements[i].too_short;
    trial["lengthened"] = notes[i].empty() ? ojson(nullptr) : ojson(notes[i]);
    report["trials"].push_back(trial);
  }
  report["sustain_tolerance"] = sustain_tolerance;
  if (replicates >= 2) {
    ojson rep = {{"n", replicates}, {"seeds", seeds}, {"capacities", ojson::array()}};
    for (const auto& c : capacities) rep["capacities"].push_back(c ? ojson(*c) : ojson(nullptr));
    rep["infeasible"] = replicates - static_cast<int>(found.size());
    rep["capped"] = capped_replicates;
    rep["mean"] = capacity_interval ? ojson(capacity_interval->mean) : ojson(nullptr);
    rep["lo"] = capacity_interval ? ojson(capacity_interval->lo) : ojson(nullptr);
    rep["hi"] = capacity_interval ? ojson(capacity_interval->hi) : ojson(nullptr);
    report["replicates"] = rep;
  }

  if (!out_dir.empty()) {
    write_file_atomically((fs::path(out_dir) / "capacity.json").string(), "--out",
                          [&](std::ostream& f) { f << report.dump(2) << "\n"; });
    if (result.best)
      write_file_atomically((fs::path(out_dir) / "summary.json").string(), "--out",
                            [&](std::ostream& f) { write_summary_json(summaries[*result.best], f); });
  }
  if (json) {
    out << report.dump(2) << "\n";
    return result.best ? 0 : 1;
  }
  if (!result.best) {
    out << "no feasible value: even " << fmt(result.lowest_infeasible.value_or(0)) << " " << knob.unit << " fails ("
        << result.trials.back().reason << ")\n";
    return 1;
  }
  if (!notes[*result.best].empty()) out << "(" << notes[*result.best] << " to judge the rate at capacity)\n";
  const double x = result.trials[*result.best].x;
  out << "capacity: " << fmt(x) << " " << knob.unit;
  if (result.capped) out << " (the highest value tried, at --max-rate or after 40 doublings: the limit may be higher)";
  else out << " (" << fmt(*result.lowest_infeasible) << " fails)";
  out << "\n";
  if (replicates >= 2) {
    out << "over " << replicates << " seeds (" << seeds.front() << ".." << seeds.back() << "): ";
    if (capacity_interval)
      out << "capacity " << fmt(capacity_interval->mean) << " " << knob.unit << ", 95% interval of the mean ["
          << fmt(capacity_interval->lo) << ", " << fmt(capacity_interval->hi) << "] from " << found.size() << " seeds";
    else
      out << "too few seeds found a capacity for an interval";
    if (found.size() < capacities.size()) out << "; " << capacities.size() - found.size() << " found no feasible value";
    if (capped_replicates) out << "; " << capped_replicates << " stopped at the highest value tried";
    out << "\n";
  }
  if (knob.scale)
    for (const auto& [key, b] : knob.keys) out << "  " << key << " = " << fmt(b * x) << "\n";
  const SummaryBlock& at = summaries[*result.best].overall;
  const SustainedRate& held = judgements[*result.best].sustained;
  out << "at capacity: completed " << fmt(at.get("completed")) << ", served " << fmt(held.served_per_s) << " of "
      << fmt(held.offered_per_s) << " req/s offered over the second half of the arrivals (whole run "
      << fmt(at.get("request_throughput")) << " req/s with the drain), output_throughput "
      << fmt(at.get("output_throughput")) << " tok/s";
  for (const auto& sc : scopes)
    for (const auto& t : sc.targets)
      out << ", " << (sc.class_name.empty() ? "" : sc.class_name + ".") << t.field() << " "
          << fmt(summary_block_of(summaries[*result.best], sc.class_name)->get(t.field()));
  out << "\n";
  return 0;
}

}  // namespace servesim::cli
