#include "sim/study/sweep_study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/set_overrides.h"
#include "sim/scenario/run_size.h"
#include "sim/study/replicates.h"
#include "sim/study/run_judgement.h"
#include "sim/study/scenario_context.h"
#include "sim/study/study_runs.h"
#include "sim/study/sweep_fingerprint.h"
#include "sim/study/search_cost.h"
#include "sim/study/summary_json.h"

namespace servesim {

namespace {

struct PointResult {
  std::optional<RunSummary> summary;
  std::optional<double> cost_per_hour;  // the cluster's, USD; nullopt: some GPU has no price
  std::string error;  // why the point could not run (its configuration cannot be built)
  std::optional<ReplicateIntervals> replicates;
  bool too_short = false;   // too short to judge whether it kept up
  double needed_scale = 1;  // then this much longer would judge it
};

// USD per hour of the whole cluster: an autoscaled fleet's paid time over the run
// (summary.json's fleet_cost_usd), else every replica at its GPUs' price_per_gpu_hour;
// nullopt when some GPU has no price, so that no cost reads as 0.
std::optional<double> cluster_cost_per_hour(const Scenario& s, const RunResult& r) {
  const ClusterCost cost = cluster_cost(s.cluster, {});
  if (!cost.unpriced.empty()) return std::nullopt;
  // A fixed fleet's paid time is its list price exactly: cost.per_hour keeps its figure
  // (summary.json's fleet_cost_usd, present for every priced run, would round differently).
  const bool scales = std::any_of(s.cluster.pools.begin(), s.cluster.pools.end(),
                                  [](const PoolConfig& p) { return p.autoscale.has_value(); });
  const double fleet_usd = r.summary.overall.get("fleet_cost_usd");
  if (scales && std::isfinite(fleet_usd) && r.end_ns > 0) return fleet_usd / (static_cast<double>(r.end_ns) / 3.6e12);
  return cost.per_hour;
}

// A cost objective ranks points by price: a pool without one would rank as free. Refused
// before any run, naming the pool and the key that sets the price.
void check_prices(const std::vector<ParetoObjective>& objectives, const std::vector<Scenario>& scenarios,
                  const std::vector<std::size_t>& indices) {
  for (const auto& o : objectives) {
    if (!is_cost_field(o.field)) continue;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      for (std::size_t p = 0; p < scenarios[i].cluster.pools.size(); ++p) {
        const PoolConfig& pool = scenarios[i].cluster.pools[p];
        if (pool.hardware.price_per_gpu_hour > 0) continue;
        throw option_error("--pareto", objective_text(o),
                          "ranks points by cost, but point " + std::to_string(indices[i]) + "'s pool '" + pool.name +
                              "' (cluster.pools." + std::to_string(p) + ".hardware) runs on '" + pool.hardware.name +
                              "', which has no price: set price_per_gpu_hour (USD) in that hardware profile");
      }
  }
}

// The points this shard runs, each loaded (and so validated) with its overrides and seed.
struct SweepPoints {
  std::vector<std::size_t> indices;  // the points' numbers in the whole sweep
  std::vector<Scenario> scenarios;
};

// The objectives --pareto names (or the default ones), checked to be columns of the table.
void check_sweep_objectives(const SweepRequest& request, SweepTable& table) {
  if (request.objectives) table.objectives = *request.objectives;
  std::string text;
  for (const auto& o : table.objectives) text += (text.empty() ? "" : ",") + objective_text(o);
  check_objective_fields(table.objectives, pareto_fields(), "--pareto", text);
}

// The table's header: what was swept, how, and the fingerprint a merge checks shards by.
void describe_sweep_table(const SweepRequest& request, const Scenario& base, std::size_t total, SweepTable& table) {
  table.scenario = base.name;
  table.mode = sweep_mode_name(request.mode);
  for (const auto& a : request.axes) table.axes.push_back(a.key);
  table.points = static_cast<std::int64_t>(total);
  table.shard = request.shard;
  table.defined_by =
      sweep_fingerprint(base.source_file, request.axes, request.mode, request.sets, request.seed, request.replicates);
  table.context = scenario_context(base);
  if (request.seed) table.context["seed"] = *request.seed;
}

// Every point is loaded (and so validated) before any runs: a bad value fails in seconds,
// not after hours of the points before it.
SweepPoints load_sweep_points(const SweepRequest& request, std::size_t total) {
  SweepPoints points;
  for (std::size_t p = 0; p < total; ++p) {
    if (request.shard && !request.shard->has(p)) continue;
    std::vector<std::string> overrides = request.sets;
    for (auto& o : sweep_point_overrides(request.axes, request.mode, p)) overrides.push_back(std::move(o));
    points.scenarios.push_back(load_scenario(request.scenario_path, overrides));
    if (request.seed) points.scenarios.back().seed = *request.seed;
    points.indices.push_back(p);
  }
  return points;
}

// The long-run warning once per sweep, for its largest point: every other point takes less.
void warn_largest_point(const SweepRequest& request, const SweepPoints& points,
                        const std::function<void(const std::string&)>& on_warning) {
  const std::vector<Scenario>& scenarios = points.scenarios;
  std::size_t largest = 0;
  for (std::size_t i = 1; i < scenarios.size(); ++i)
    if (estimate_run_size(scenarios[i]).wall_s > estimate_run_size(scenarios[largest]).wall_s) largest = i;
  if (scenarios.empty()) return;
  std::string w = long_run_warning(scenarios[largest]);
  if (w.empty()) return;
  const std::string it = "this run";
  if (const auto at = w.find(it); at != std::string::npos)
    w.replace(at, it.size(), "point " + std::to_string(points.indices[largest]) + ", the sweep's largest,");
  if (request.replicates >= 2) w += " Each point runs " + std::to_string(request.replicates) + " times.";
  on_warning(w);
}

// Runs every point on request.jobs threads; a point that cannot be built has its error in
// its result, named by the scenario's file.
std::vector<PointResult> run_sweep_points(
    const SweepRequest& request, const SweepPoints& points,
    const std::function<void(std::size_t, const RunSummary*, const std::string&)>& on_point) {
  std::vector<PointResult> results(points.indices.size());
  const auto run_point = [&](std::size_t i) {
    const Scenario& s = points.scenarios[i];
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    RunResult run = sim.run();
    describe_deployment(run.summary, s);  // the point's own deployment, in --point-summaries
    results[i].too_short = run.saturation.too_short;
    if (run.saturation.too_short) results[i].needed_scale = std::max(1.0, run.saturation.sustained.needed_scale);
    results[i].cost_per_hour = cluster_cost_per_hour(s, run);
    results[i].summary = std::move(run.summary);
    if (request.replicates >= 2) results[i].replicates = run_replicates(s, *results[i].summary, request.replicates);
  };
  run_each(points.indices.size(), request.jobs, run_point, [&](std::size_t i, const ConfigError* e) {
    if (e)
      results[i].error = format_config_error(e->file().empty() ? points.scenarios[i].source_file : e->file(),
                                             e->line(), e->column(), e->key(), e->message());
    if (on_point) on_point(points.indices[i], results[i].summary ? &*results[i].summary : nullptr, results[i].error);
  });
  return results;
}

// One row per point, in point order: its axis values, summary or error, cost and
// replicate intervals; a point too short to judge gets the length that would judge it.
void tabulate_sweep_points(const SweepRequest& request, const SweepPoints& points,
                           const std::vector<PointResult>& results, SweepStudy& study) {
  SweepTable& table = study.table;
  for (std::size_t i = 0; i < points.indices.size(); ++i) {
    const auto at = sweep_point_indices(request.axes, request.mode, points.indices[i]);
    std::vector<std::string> values;
    for (std::size_t a = 0; a < request.axes.size(); ++a) values.push_back(request.axes[a].values[at[a]]);
    const RunSummary* summary = results[i].summary ? &*results[i].summary : nullptr;
    study.failed += summary ? 0 : 1;
    table.rows.push_back(make_sweep_row(points.indices[i], table.axes, values, summary, results[i].error));
    add_sweep_cost(table.rows.back(), results[i].cost_per_hour);
    if (results[i].replicates) add_sweep_replicates(table.rows.back(), *results[i].replicates);
    if (summary && results[i].too_short) {
      // The length that would judge it, found as capacity and explain lengthen a run.
      auto [key, value] = length_to_judge(points.scenarios[i], results[i].needed_scale);
      study.too_short.push_back(SweepTooShort{points.indices[i], std::move(key), std::move(value)});
    }
  }
}

}  // namespace

SweepStudy run_sweep(const SweepRequest& request, const std::function<void(const SweepTable&)>& on_loaded,
                     const std::function<void(std::size_t, const RunSummary*, const std::string&)>& on_point,
                     const std::function<void(const std::string&)>& on_warning) {
  request.validate();
  check_axes_apart(request.axes);
  const std::size_t total = sweep_point_count(request.axes, request.mode);
  SweepStudy study;
  check_sweep_objectives(request, study.table);
  for (const auto& a : request.axes) check_set_not_overwritten(request.sets, a.key, "the sweep axis");
  const Scenario base = load_scenario(request.scenario_path, request.sets);
  describe_sweep_table(request, base, total, study.table);
  const SweepPoints points = load_sweep_points(request, total);
  check_prices(study.table.objectives, points.scenarios, points.indices);
  if (on_loaded) on_loaded(study.table);
  if (on_warning) warn_largest_point(request, points, on_warning);
  const std::vector<PointResult> results = run_sweep_points(request, points, on_point);
  tabulate_sweep_points(request, points, results, study);
  mark_pareto(study.table);
  return study;
}

}  // namespace servesim
