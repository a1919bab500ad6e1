// Engine-overhead calibration by Nelder-Mead over whole replays.
#include "sim/study/overhead_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/core/errors.h"
#include "sim/hardware/nelder_mead.h"

namespace servesim {
namespace {

// Each knob is searched as x with value = |x| x unit (never negative; linear, so a knob
// near 0 still moves the objective as much as one far from it); the unit is a typical
// size, so one simplex step moves every knob by a comparable amount.
struct Knob {
  std::string name;
  double unit_ns;
  Tick EngineOverheads::*field;
};

const std::vector<Knob>& all_knobs() {
  static const std::vector<Knob> knobs = {
      {"per_step", 1e6, &EngineOverheads::per_step_ns},      // 1 ms: Python scheduling of one step
      {"per_request", 1e6, &EngineOverheads::per_request_ns},  // 1 ms: admitting one request
      {"per_token", 1e4, &EngineOverheads::per_token_ns},    // 10 us: sampling and detokenising one token
  };
  return knobs;
}

const Knob& knob_named(const std::string& name) {
  for (const Knob& k : all_knobs()) {
    if (k.name == name) return k;
  }
  std::string names;
  for (const Knob& k : all_knobs()) names += (names.empty() ? "" : ", ") + k.name;
  throw ConfigError("", 0, "--fit", "unknown engine overhead '" + name + "' (valid: " + names + ")");
}

// The overheads at search point x: each knob |x| x its unit, in whole nanoseconds; the
// knobs not searched keep the start's values.
EngineOverheads overheads_at(const std::vector<const Knob*>& knobs, const EngineOverheads& start,
                             const std::vector<double>& x) {
  EngineOverheads o = start;
  for (std::size_t i = 0; i < knobs.size(); ++i) o.*(knobs[i]->field) = std::llround(std::fabs(x[i]) * knobs[i]->unit_ns);
  return o;
}

// A replay is deterministic in the overheads, which are whole nanoseconds: points the
// simplex visits again (restarts begin where the last one ended; near convergence many
// points round to the same nanoseconds; the identifiability check revisits) are looked
// up, not simulated again. The same objective values come back, so the same fit.
class ReplayMemo {
 public:
  ReplayMemo(const std::vector<const Knob*>& knobs, const EngineOverheads& start,
             const std::function<double(const EngineOverheads&)>& objective_of)
      : knobs_(knobs), start_(start), objective_of_(objective_of) {}

  double operator()(const std::vector<double>& x) {
    const EngineOverheads o = overheads_at(knobs_, start_, x);
    std::vector<Tick> key;
    for (const Knob* k : knobs_) key.push_back(o.*(k->field));
    const auto [it, fresh] = replayed_.try_emplace(std::move(key), 0.0);
    if (fresh) it->second = objective_of_(o);
    return it->second;
  }

 private:
  const std::vector<const Knob*>& knobs_;
  const EngineOverheads& start_;
  const std::function<double(const EngineOverheads&)>& objective_of_;
  std::map<std::vector<Tick>, double> replayed_;
};

// A replay is piecewise smooth in the overheads (a step more or less in a batch jumps),
// so a simplex can collapse on a ledge; restarting it from the best point with a fresh
// simplex, until a restart gains nothing, escapes that (a standard Nelder-Mead remedy).
NelderMeadResult restarted_nelder_mead(const std::function<double(const std::vector<double>&)>& objective,
                                       const std::vector<double>& from, int max_evaluations, int& evaluations) {
  NelderMeadResult best = nelder_mead(objective, from, 0.5, max_evaluations, 1e-6);
  evaluations = best.evaluations;
  while (evaluations < max_evaluations) {
    const NelderMeadResult again = nelder_mead(objective, best.x, 0.25, max_evaluations - evaluations, 1e-6);
    evaluations += again.evaluations;
    const bool better = again.value < best.value * (1 - 1e-3);
    if (again.value < best.value) best = again;
    if (!better) break;
  }
  return best;
}

// The best restarted search from x0 and from `starts` - 1 further starts, each knob one
// more unit (its typical size) above the start: a valley where the knobs trade against
// each other can hold a simplex short of the minimum from one side and not from another.
NelderMeadResult best_of_overhead_starts(const std::function<double(const std::vector<double>&)>& objective,
                                         const std::vector<double>& x0, int starts, int max_evaluations,
                                         int& evaluations) {
  evaluations = 0;
  NelderMeadResult best = restarted_nelder_mead(objective, x0, max_evaluations, evaluations);
  for (int s = 1; s < starts; ++s) {
    std::vector<double> from = x0;
    for (double& v : from) v += s;
    int more = 0;
    const NelderMeadResult other = restarted_nelder_mead(objective, from, max_evaluations, more);
    evaluations += more;
    if (other.value < best.value) best = other;
  }
  return best;
}

// Identifiability: a knob whose unit step either way leaves the objective where it is
// (async scheduling hides CPU overheads shorter than the GPU's step) cannot be fitted.
std::vector<bool> flat_knobs(const std::function<double(const std::vector<double>&)>& objective,
                             const std::vector<double>& x, double best_value) {
  std::vector<bool> flat(x.size(), true);
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (const double delta : {1.0, -1.0}) {
      std::vector<double> moved = x;
      moved[i] = x[i] + delta;
      if (moved[i] < 0) continue;
      if (std::fabs(objective(moved) - best_value) > 1e-4 * best_value + 1e-12) flat[i] = false;
    }
  }
  return flat;
}

// Why a flat knob could not be fitted, and the setting of the first pool with async
// scheduling under which it would show.
UnidentifiedKnob unidentified_knob(const Knob& knob, const std::vector<PoolConfig>& pools) {
  const std::string unit = knob.unit_ns >= 1e6 ? std::to_string(std::llround(knob.unit_ns / 1e6)) + " ms"
                                               : std::to_string(std::llround(knob.unit_ns / 1e3)) + " us";
  UnidentifiedKnob u{knob.name, "the fitted figures are the same with " + knob.name + " " + unit + " more or less", ""};
  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (!pools[p].engine.async_scheduling) continue;
    u.why = "pool " + pools[p].name + "'s engine runs async scheduling, which hides CPU overheads under the " +
            "GPU's step: " + u.why;
    u.setting = "engine.async_scheduling: false (--set cluster.pools." + std::to_string(p) +
                ".engine.async_scheduling=false), if the benchmarked server ran without async scheduling";
    break;
  }
  return u;
}

}  // namespace

const std::vector<std::string>& overhead_knob_names() {
  static const std::vector<std::string> names = {"per_step", "per_request", "per_token"};
  return names;
}

bool is_fitted_figure(const std::string& figure) {
  const bool metric = figure.rfind("ttft_", 0) == 0 || figure.rfind("tpot_", 0) == 0 || figure.rfind("e2el_", 0) == 0;
  const bool statistic = figure.find("_mean_") != std::string::npos || figure.find("_p50_") != std::string::npos ||
                         figure.find("_p90_") != std::string::npos;
  return metric && statistic;
}

double calibration_objective(const ReplaySet& set) {
  double sum = 0;
  int rows = 0;
  for (const FigureComparison& row : set.rows) {
    if (!is_fitted_figure(row.figure) || !std::isfinite(row.error)) continue;
    sum += row.error * row.error;
    ++rows;
  }
  // A replay where nothing completed has no rows: the worst possible fit.
  return rows > 0 ? sum / rows : 1e6;
}

OverheadSearch search_overheads(const std::vector<std::string>& knob_names, const EngineOverheads& start,
                                const std::vector<PoolConfig>& pools, int max_evaluations,
                                const std::function<double(const EngineOverheads&)>& objective_of, int starts) {
  std::vector<const Knob*> knobs;
  for (const std::string& name : knob_names) knobs.push_back(&knob_named(name));
  if (knobs.empty()) throw ConfigError("", 0, "--fit", "names no engine overhead to fit");
  std::vector<double> x0;
  for (const Knob* k : knobs) x0.push_back(static_cast<double>(start.*(k->field)) / k->unit_ns);
  ReplayMemo memo(knobs, start, objective_of);
  const std::function<double(const std::vector<double>&)> objective = [&](const std::vector<double>& x) {
    return memo(x);
  };
  OverheadSearch out;
  const NelderMeadResult best = best_of_overhead_starts(objective, x0, starts, max_evaluations, out.evaluations);
  // A knob that cannot be fitted keeps the start's value.
  std::vector<double> x = best.x;
  for (double& v : x) v = std::fabs(v);
  const std::vector<bool> flat = flat_knobs(objective, x, best.value);
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    if (!flat[i]) continue;
    out.unidentified.push_back(unidentified_knob(*knobs[i], pools));
    x[i] = static_cast<double>(start.*(knobs[i]->field)) / knobs[i]->unit_ns;
  }
  out.fitted = overheads_at(knobs, start, x);
  return out;
}

OverheadCalibration calibrate_overheads(const BenchmarkReplay& replay, const OverheadCalibrationOptions& options) {
  for (const std::string& name : options.knobs) knob_named(name);
  if (options.knobs.empty()) throw ConfigError("", 0, "--fit", "names no engine overhead to fit");

  // Which replayed requests are fitted on and which are held out.
  const BenchmarkRun& bench = replay.benchmark();
  const std::vector<std::size_t>& replayed = replay.replayed();
  std::vector<std::size_t> fit, held_out;
  OverheadCalibration out;
  if (bench.stages.size() > 1) {
    const int last = static_cast<int>(bench.stages.size()) - 1;
    for (std::size_t m = 0; m < replayed.size(); ++m) {
      (bench.requests[replayed[m]].stage == last ? held_out : fit).push_back(m);
    }
    out.split = "fitted on stages 0-" + std::to_string(last - 1) + ", checked on stage " + std::to_string(last) +
                " (" + bench.stages.back().name + ")";
  }
  if (fit.empty() || held_out.empty()) {
    fit.clear();
    held_out.clear();
    const int windows = std::max(2, options.windows);
    for (std::size_t m = 0; m < replayed.size(); ++m) {
      const std::size_t window = m * static_cast<std::size_t>(windows) / replayed.size();
      (window % 2 == 0 ? fit : held_out).push_back(m);
    }
    out.split = "fitted on the even and checked on the odd of " + std::to_string(windows) +
                " consecutive windows of the run's requests";
  }
  if (fit.empty() || held_out.empty()) {
    throw ConfigError(bench.path, 0, "requests", "too few succeeded requests to fit on some and check on others");
  }

  out.knobs = options.knobs;
  out.start = replay.scenario().cluster.pools.front().engine.overheads;
  const SimulatedReplay before = replay.simulate(out.start);
  out.fit_before = replay.compare("fit", fit, before, false);
  out.held_out_before = replay.compare("held out", held_out, before, false);
  out.objective_before = calibration_objective(out.fit_before);

  const OverheadSearch search = search_overheads(
      options.knobs, out.start, replay.scenario().cluster.pools, options.max_evaluations,
      [&](const EngineOverheads& o) { return calibration_objective(replay.compare("fit", fit, replay.simulate(o), false)); },
      options.starts);
  out.unidentified = search.unidentified;
  out.fitted = search.fitted;
  out.evaluations = search.evaluations;
  const SimulatedReplay after = replay.simulate(out.fitted);
  out.fit_after = replay.compare("fit", fit, after, false);
  out.held_out_after = replay.compare("held out", held_out, after, false);
  out.objective_after = calibration_objective(out.fit_after);
  return out;
}

}  // namespace servesim
