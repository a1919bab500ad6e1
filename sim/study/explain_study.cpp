#include "sim/study/explain_study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/explain_comparable.h"
#include "sim/study/run_judgement.h"
#include "sim/study/study_runs.h"

namespace servesim {
namespace {

// (variant - base) / base; NaN when either is missing or the base is 0.
double relative_change(double base, double variant) {
  if (!std::isfinite(base) || !std::isfinite(variant) || base == 0) return std::nan("");
  return (variant - base) / base;
}

struct RunOutcomeOrError {
  std::optional<RunSummary> summary;
  std::string error;
  double needed_scale = 1;  // > 1: too short to judge, lengthen it this much
};

// Per metric: levers ranked by how far they move it, and the phase whose levers move it most.
ExplainRanking rank(const ExplainStudy& s, std::size_t m) {
  const ExplainMetric& metric = explain_metrics()[m];
  ExplainRanking r;
  // A variant that saturated, or cannot tell, is no lever's effect: listed apart, unranked.
  for (std::size_t v = 0; v < s.variants.size(); ++v) (s.variants[v].ranked() ? r.order : r.not_ranked).push_back(v);
  // Comparable variants first, then ITL of a several-tokens variant whatever its change;
  // within each, largest move first, NaN last, ties keep the lever order (stable).
  std::stable_sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t c) {
    const ExplainVariant& va = s.variants[a];
    const ExplainVariant& vc = s.variants[c];
    const bool ka = va.not_comparable(metric).empty(), kc = vc.not_comparable(metric).empty();
    if (ka != kc) return ka;
    const double x = std::isfinite(va.changes[m]) ? std::fabs(va.changes[m]) : -1;
    const double y = std::isfinite(vc.changes[m]) ? std::fabs(vc.changes[m]) : -1;
    return x > y;
  });
  // A phase owns the metric when its levers improve it most: a lever that only makes the
  // metric worse (speculation's draft prefill adds to TTFT) shows what it costs, not where
  // the problem lies. A lever that undoes a setting of the base counts the other way: what
  // turning it off costs is what the setting gives. Variants that cannot be compared do not
  // count.
  for (const std::size_t v : r.order) {
    const ExplainVariant& variant = s.variants[v];
    if (!variant.not_comparable(metric).empty()) continue;
    const Lever& l = s.levers[variant.lever];
    double c = std::isfinite(variant.changes[m])
                   ? (metric.higher_is_better ? variant.changes[m] : -variant.changes[m])
                   : 0;
    if (l.undoes_base) c = -c;
    if (!r.by_phase.count(l.phase) || c > r.by_phase[l.phase]) {
      r.by_phase[l.phase] = c;
      r.top_of_phase[l.phase] = l.name;
    }
  }
  double owner_move = kExplainMovesThreshold;
  for (const char* phase : {"prefill", "decode", "capacity"}) {
    if (r.by_phase.count(phase) && r.by_phase[phase] > owner_move) {
      r.owner = phase;
      owner_move = r.by_phase[phase];
    }
  }
  return r;
}

}  // namespace

// Per-token latency is ranked by TPOT, each request's (finish - first token) / (output - 1):
// it counts every token whether it came alone or with accepted draft tokens. p50 as for
// TTFT, with p99 for the tail; ITL is printed beside them.
const std::vector<ExplainMetric>& explain_metrics() {
  static const std::vector<ExplainMetric> m = {
      {"median_ttft_ms", "TTFT p50", "ms", false},
      {"p99_ttft_ms", "TTFT p99", "ms", false},
      {"median_tpot_ms", "TPOT p50", "ms", false, false, true, "median_itl_ms"},
      {"p99_tpot_ms", "TPOT p99", "ms", false, false, true, "p99_itl_ms"},
      {"median_itl_ms", "ITL p50", "ms", false, true, false},
      {"p99_itl_ms", "ITL p99", "ms", false, true, false},
      {"output_throughput", "throughput", "tok/s", true}};
  return m;
}

std::size_t explain_metric_index(const std::string& field) {
  for (std::size_t m = 0; m < explain_metrics().size(); ++m)
    if (field == explain_metrics()[m].field) return m;
  return explain_metrics().size();
}

std::string ExplainVariant::not_comparable(const ExplainMetric& m) const {
  if (!overload.empty()) return "overloaded: " + overload;
  if (!too_short.empty()) return "too short to judge: " + too_short;
  if (m.per_gap && several_tokens) return "several tokens per step: accepted draft tokens arrive in the step's one chunk, so a gap is not a token";
  return "";
}

namespace {

// The runs of an explain study: the base, each lever's variant, and the roofline-priced
// bases that variants leaving the measured kernel tables are compared with.
struct ExplainRuns {
  static constexpr std::size_t kNoLever = static_cast<std::size_t>(-1);
  std::vector<Scenario> scenarios;
  std::vector<std::size_t> lever_of_run;  // kNoLever for a base
  std::vector<std::size_t> base_of_run;   // the run each one is compared with
  std::vector<std::string> baseline_of_lever;
};

// Loads every variant first: one that does not validate is skipped with the loader's
// message, before anything runs. A variant that leaves the measured kernel tables (int4
// weights, fp8 on a GPU without fp8 rows) is priced by the roofline; it is compared with the
// base priced by the roofline too, so the change is the lever's and not the gap between the
// two models.
ExplainRuns load_explain_runs(const std::string& scenario_path, const std::vector<std::string>& sets,
                              const Scenario& base, std::vector<Lever>& levers) {
  constexpr std::size_t kNoLever = ExplainRuns::kNoLever;
  ExplainRuns runs;
  runs.scenarios = {base};
  runs.lever_of_run = {kNoLever};
  runs.base_of_run = {0};
  runs.baseline_of_lever.assign(levers.size(), "base");
  std::map<std::string, std::size_t> roofline_bases;
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
          runs.scenarios.push_back(std::move(rb));
          runs.lever_of_run.push_back(kNoLever);
          runs.base_of_run.push_back(runs.scenarios.size() - 1);
          it = roofline_bases.emplace(key, runs.scenarios.size() - 1).first;
        }
        base_run = it->second;
        runs.baseline_of_lever[i] = "base priced by the roofline (" + key.substr(0, key.size() - 1) +
                                    "): the variant leaves the measured kernel tables";
      }
      runs.scenarios.push_back(std::move(s));
      runs.lever_of_run.push_back(i);
      runs.base_of_run.push_back(base_run);
    } catch (const ConfigError& e) {
      levers[i].skip_reason = e.message();
    }
  }
  return runs;
}

// Runs them all. A run too short to judge whether it kept up cannot be ranked: every run is
// lengthened alike (the base's figures must stay those of the variants' length), by what
// the shortest asks and at least 2x, as `capacity` does (judge_long_enough), up to
// kExplainMaxLengthen; `lengthened` then says how far.
std::vector<RunOutcomeOrError> run_explain_runs(const std::vector<Scenario>& scenarios, int jobs, const Scenario& base,
                                                std::string& lengthened_note) {
  std::vector<RunOutcomeOrError> outcomes(scenarios.size());
  const auto run_all = [&](double scale) {
    const auto errors = run_each(scenarios.size(), jobs, [&](std::size_t i) {
      const Scenario s = lengthened(scenarios[i], scale);
      outcomes[i] = RunOutcomeOrError{};
      Simulation sim(s.seed, s.stop, s.workload, s.cluster);
      RunResult r = sim.run();
      if (r.saturation.too_short) outcomes[i].needed_scale = r.saturation.sustained.needed_scale;
      outcomes[i].summary = std::move(r.summary);
    });
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      if (errors[i]) outcomes[i].error = errors[i]->message();
  };
  run_all(1);
  double scale = 1;
  const bool can_lengthen = base.stop.requests || base.stop.time_ns;
  for (;;) {
    double need = 1;
    for (const auto& o : outcomes) need = std::max(need, o.needed_scale);
    if (need <= 1 || !can_lengthen || scale >= kExplainMaxLengthen) break;
    scale = std::min(kExplainMaxLengthen, scale * std::max(2.0, 1.25 * need));
    run_all(scale);
    char buf[200];
    const Scenario longer = lengthened(base, scale);
    if (longer.stop.requests)
      std::snprintf(buf, sizeof buf, "every run lengthened %.3gx to %lld requests, so each can be judged", scale,
                    static_cast<long long>(*longer.stop.requests));
    else
      std::snprintf(buf, sizeof buf, "every run lengthened %.3gx to %.4g s, so each can be judged", scale,
                    seconds_from_ticks(*longer.stop.time_ns));
    lengthened_note = buf;
  }
  return outcomes;
}

// The variants each run compares with its base, in lever order; a lever whose run (or whose
// roofline-priced base) cannot run is skipped with the reason.
void collect_variants(const ExplainRuns& runs, const std::vector<RunOutcomeOrError>& outcomes, ExplainStudy& study) {
  std::vector<Lever>& levers = study.levers;
  const std::vector<Scenario>& scenarios = runs.scenarios;
  for (std::size_t i = 1; i < scenarios.size(); ++i) {
    if (runs.lever_of_run[i] == ExplainRuns::kNoLever) continue;  // a roofline-priced base
    Lever& lever = levers[runs.lever_of_run[i]];
    if (!outcomes[i].summary) {
      lever.skip_reason = outcomes[i].error;
      continue;
    }
    const RunOutcomeOrError& compared = outcomes[runs.base_of_run[i]];
    if (!compared.summary) {
      lever.skip_reason = "its roofline-priced base cannot run: " + compared.error;
      continue;
    }
    ExplainVariant v;
    v.lever = runs.lever_of_run[i];
    v.overload = overload_of(outcomes[i].summary->overall, &compared.summary->overall);
    v.too_short = too_short_of(outcomes[i].summary->overall);
    v.several_tokens = several_tokens_per_step(scenarios[i]) || several_tokens_per_step(scenarios[runs.base_of_run[i]]);
    v.compared_with = runs.baseline_of_lever[v.lever];
    for (const auto& m : explain_metrics()) {
      v.values.push_back(outcomes[i].summary->overall.get(m.field));
      v.changes.push_back(relative_change(compared.summary->overall.get(m.field), v.values.back()));
    }
    study.variants.push_back(std::move(v));
  }
}

}  // namespace

ExplainStudy run_explain(const ExplainRequest& request) {
  const std::string& scenario_path = request.scenario_path;
  Scenario base = load_scenario(scenario_path, request.sets);
  if (request.seed) base.seed = *request.seed;
  std::string split_skip;
  const std::string split = disaggregation_override(scenario_path, request.sets, split_skip);
  ExplainStudy study;
  study.scenario = base.name;
  study.seed = base.seed;
  study.base_several_tokens = several_tokens_per_step(base);
  study.levers = make_levers(base, split, split_skip);

  const ExplainRuns runs = load_explain_runs(scenario_path, request.sets, base, study.levers);
  const std::vector<RunOutcomeOrError> outcomes = run_explain_runs(runs.scenarios, request.jobs, base, study.lengthened);
  if (!outcomes[0].summary) {
    throw ConfigError(scenario_path, 0, "", "the base scenario cannot run: " + outcomes[0].error);
  }
  study.base = outcomes[0].summary->overall;
  study.base_overload = overload_of(study.base, nullptr);
  study.base_too_short = too_short_of(study.base);
  collect_variants(runs, outcomes, study);
  for (std::size_t m = 0; m < explain_metrics().size(); ++m) study.rankings.push_back(rank(study, m));
  return study;
}

}  // namespace servesim
