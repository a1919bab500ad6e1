// Calibration of engine overheads to a benchmark's aggregate figures.
#include "sim/study/summary_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/metrics/guidellm_distribution.h"

namespace servesim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One completed simulated request, in ms.
struct Done {
  double ttft_ms = 0;
  double e2el_ms = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
};

struct WeightedFigure {
  double value = 0;
  double weight = 1;
};

// The values (and weights) a tool summarises for `metric` (benchmark_summary.h).
std::vector<WeightedFigure> values_of(const std::string& format, const std::string& metric, const std::vector<Done>& done) {
  const bool guidellm = format == "guidellm";
  const bool inference_perf = format == "inference-perf";
  std::vector<WeightedFigure> out;
  for (const Done& r : done) {
    const double gaps = static_cast<double>(r.output_tokens - 1);
    const double decode_ms = r.e2el_ms - r.ttft_ms;
    if (metric == "ttft") {
      // inference-perf has a TTFT only for a response streamed in two chunks or more.
      if (!inference_perf || r.output_tokens > 1) out.push_back({r.ttft_ms, 1});
    } else if (metric == "e2el") {
      out.push_back({r.e2el_ms, 1});
    } else if (metric == "ntpot") {
      out.push_back({r.output_tokens > 0 ? r.e2el_ms / static_cast<double>(r.output_tokens) : 0.0, 1});
    } else if (metric == "tpot" && guidellm) {
      if (r.output_tokens > 0) {
        out.push_back({r.e2el_ms / static_cast<double>(r.output_tokens), static_cast<double>(r.output_tokens)});
      }
    } else if (metric == "tpot") {
      if (r.output_tokens > 1) out.push_back({decode_ms / gaps, 1});
    } else if (metric == "itl") {
      // Every gap, the decode time spread evenly over a request's gaps: the total over the
      // count (the mean) is exact; GuideLLM weighs each request's mean gap the same way.
      if (r.output_tokens > 1) out.push_back({decode_ms / gaps, gaps});
    }
  }
  return out;
}

// numpy's linear-interpolation percentile of the values each repeated `weight` times
// (whole weights: 1, or a request's gap count).
double expanded_percentile(std::vector<WeightedFigure> values, double percent) {
  std::sort(values.begin(), values.end(), [](const WeightedFigure& a, const WeightedFigure& b) { return a.value < b.value; });
  double total = 0;
  for (const WeightedFigure& v : values) total += v.weight;
  const double rank = percent / 100 * (total - 1);
  const double lo_rank = std::floor(rank);
  const auto at = [&](double r) {
    double seen = 0;
    for (const WeightedFigure& v : values) {
      seen += v.weight;
      if (r < seen) return v.value;
    }
    return values.back().value;
  };
  const double lo = at(lo_rank);
  const double hi = at(std::min(lo_rank + 1, total - 1));
  return lo + (hi - lo) * (rank - lo_rank);
}

double statistic(const std::string& format, const std::vector<WeightedFigure>& values, double percent) {
  if (values.empty()) return kNaN;
  if (format == "guidellm") {
    std::vector<GuidellmValue> g;
    for (const WeightedFigure& v : values) g.push_back({v.value, v.weight});
    const nlohmann::ordered_json d = guidellm_distribution(std::move(g));
    if (percent < 0) return d["mean"].get<double>();
    char key[16];
    std::snprintf(key, sizeof key, "p%02d", static_cast<int>(percent));
    return d["percentiles"][key].get<double>();
  }
  if (percent < 0) {
    double sum = 0, weight = 0;
    for (const WeightedFigure& v : values) {
      sum += v.value * v.weight;
      weight += v.weight;
    }
    return weight > 0 ? sum / weight : kNaN;
  }
  return expanded_percentile(values, percent);
}

// Relative difference of two positive figures.
double relative_gap(double a, double b) { return std::fabs(a / b - 1); }

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

const char* process_name(ArrivalSpec::Process p) {
  switch (p) {
    case ArrivalSpec::Process::poisson: return "poisson";
    case ArrivalSpec::Process::gamma: return "gamma";
    case ArrivalSpec::Process::constant: return "constant";
    case ArrivalSpec::Process::closed: return "closed";
  }
  return "?";
}

// The file's key for a stage's rate.
std::string rate_key(const std::string& format) {
  if (format == "vllm-bench") return "request_rate";
  if (format == "inference-perf") return "load_summary.requested_rate";
  return "config.strategy.rate";
}

// The file's key for a stage's concurrency.
std::string concurrency_key(const std::string& format) {
  if (format == "vllm-bench") return "max_concurrency";
  if (format == "inference-perf") return "load_summary.concurrency";
  return "config.strategy";
}

// The stated arrival of `stage` against the scenario's first class, as `head` words it.
void check_arrival(const std::string& format, const SummaryStage& stage, const ClassSpec& cls,
                   const std::string& stage_head, SummaryWorkloadCheck& out) {
  std::string head = stage_head;
  if (!cls.arrival) {
    out.notes.push_back(head + "the scenario's class " + cls.name + " has no arrival process (a trace): its " +
                        "arrivals are not compared with the benchmark's");
    return;
  }
  const ArrivalSpec& a = *cls.arrival;
  const bool open = a.process != ArrivalSpec::Process::closed;
  if (stage.all_at_once && !stage.concurrency) {
    out.mismatches.push_back(head + "the benchmark sent every request at once (request rate inf, no concurrency " +
                             "cap), which no scenario arrival process expresses");
    return;
  }
  if (stage.rate_per_s && stage.concurrency) {
    out.mismatches.push_back(head + "the benchmark sent at " + number_text(*stage.rate_per_s) +
                             " requests/s with at most " + std::to_string(*stage.concurrency) +
                             " in flight; a scenario's arrival is either a rate or a number of users, not both");
    return;
  }
  if (stage.concurrency) {
    head += concurrency_key(format) + ": ";
    if (open || a.concurrency != *stage.concurrency) {
      out.mismatches.push_back(head + "the benchmark kept " + std::to_string(*stage.concurrency) +
                               " requests in flight, the scenario's class " + cls.name + " is " +
                               (open ? std::string(process_name(a.process)) + " at " + number_text(a.rate_per_s) + "/s"
                                     : "closed with " + std::to_string(a.concurrency) + " users"));
    }
    return;
  }
  if (!stage.rate_per_s) return;
  head += rate_key(format) + ": ";
  // The same rate written twice (YAML and the tool's JSON) differs only by decimal
  // rounding, far below 1e-9.
  if (!open || !a.stages.empty() || relative_gap(a.rate_per_s, *stage.rate_per_s) > 1e-9) {
    out.mismatches.push_back(head + "the benchmark's rate is " + number_text(*stage.rate_per_s) +
                             " requests/s, the scenario's class " + cls.name + " is " +
                             (!open ? "closed with " + std::to_string(a.concurrency) + " users"
                                    : !a.stages.empty() ? std::string("staged")
                                                        : std::string(process_name(a.process)) + " at " +
                                                              number_text(a.rate_per_s) + "/s"));
    return;
  }
  if (stage.evenly_spaced && a.process != ArrivalSpec::Process::constant) {
    out.mismatches.push_back(head + "the benchmark spaced its requests evenly, the scenario's class " + cls.name +
                             " arrives " + process_name(a.process));
  }
  if (stage.burstiness) {
    // vllm's burstiness is the gamma shape of the gaps, 1 / cv^2 (1: Poisson).
    const double shape = a.process == ArrivalSpec::Process::poisson ? 1.0
                         : a.process == ArrivalSpec::Process::gamma ? 1.0 / (a.cv * a.cv)
                                                                    : std::numeric_limits<double>::infinity();
    // 1e-6: a shape derived from a cv written to a few digits (1 / cv^2) still agrees.
    if (!std::isfinite(shape) || relative_gap(shape, *stage.burstiness) > 1e-6) {
      out.mismatches.push_back(stage_head + "burstiness: the benchmark's gaps have gamma shape " +
                               number_text(*stage.burstiness) + ", the scenario's class " + cls.name + " arrives " +
                               process_name(a.process) +
                               (std::isfinite(shape) ? " (shape " + number_text(shape) + ")" : std::string()));
    }
  }
}

// The file's key for a stage's request count, in words.
std::string count_key(const std::string& format) {
  if (format == "vllm-bench") return "num_prompts";
  if (format == "inference-perf") return "load_summary.count";
  return "metrics.request_totals.total";
}

}  // namespace

bool is_fitted_summary_figure(const SummaryFigure& f) {
  if (f.metric == "itl") return f.percent < 0;
  return f.percent < 0 || f.percent == 50 || f.percent == 90;
}

Scenario summary_stage_scenario(const Scenario& scenario, const BenchmarkSummary& summary, std::size_t k) {
  Scenario out = scenario;
  const SummaryStage& stage = summary.stages.at(k);
  // A class that replays the run's own inference-perf config.yaml sends that stage's
  // requests alone (workload.md, "inference-perf configs"): the config states its rate
  // and count, so nothing of the scenario is changed for it.
  if (!out.workload.empty() && out.workload.front().trace &&
      out.workload.front().trace->format == "inference-perf-config" && summary.stages.size() > 1) {
    out.workload.front().trace->stage = stage.stage_id.value_or(static_cast<int>(k));
    if (k > 0) out.stop = StopSpec{};
    return out;
  }
  if (k == 0) {
    if (!out.stop.requests && stage.requests) out.stop.requests = stage.requests;
    return out;
  }
  out.stop = StopSpec{};
  out.stop.requests = stage.requests;
  if (!out.workload.empty() && out.workload.front().arrival) {
    ArrivalSpec& a = *out.workload.front().arrival;
    if (stage.concurrency && a.process == ArrivalSpec::Process::closed) a.concurrency = *stage.concurrency;
    if (stage.rate_per_s && a.process != ArrivalSpec::Process::closed) {
      a.rate_per_s = *stage.rate_per_s;
      a.stages.clear();
    }
  }
  return out;
}

SummaryStageResult simulate_summary_stage(const Scenario& scenario, const BenchmarkSummary& summary, std::size_t k,
                                          const std::optional<EngineOverheads>& overheads) {
  const Scenario s = summary_stage_scenario(scenario, summary, k);
  ClusterConfig cluster = s.cluster;
  if (overheads) {
    for (PoolConfig& pool : cluster.pools) pool.engine.overheads = *overheads;
  }
  std::vector<Done> done;
  Simulation sim(s.seed, s.stop, s.workload, cluster);
  sim.add_request_sink([&](const RequestRecord& r) {
    if (r.outcome != Outcome::completed) return;
    Done d;
    d.e2el_ms = static_cast<double>(r.e2el_ns()) / 1e6;
    // A completed request with no output token is complete when its prefill is (as the
    // benchmark writers put it).
    d.ttft_ms = r.first_token_ns >= 0 ? static_cast<double>(r.ttft_ns()) / 1e6 : d.e2el_ms;
    d.prompt_tokens = r.prompt_tokens;
    d.output_tokens = r.output_tokens_done;
    done.push_back(d);
  });
  const RunResult result = sim.run();
  const SummaryStage& stage = summary.stages[k];
  SummaryStageResult out;
  out.name = stage.name;
  out.simulated_completed = static_cast<std::int64_t>(done.size());
  out.saturated = result.saturation.saturated;
  std::string metric;
  std::vector<WeightedFigure> values;
  double sum = 0;
  int fitted = 0;
  for (const SummaryFigure& f : stage.figures) {
    if (f.metric != metric) {
      metric = f.metric;
      values = values_of(summary.format, metric, done);
    }
    SummaryRow row;
    row.figure = f.name();
    row.measured_ms = f.measured_ms;
    row.simulated_ms = statistic(summary.format, values, f.percent);
    row.error = f.measured_ms > 0 ? row.simulated_ms / f.measured_ms - 1 : kNaN;
    row.fitted = is_fitted_summary_figure(f);
    if (row.fitted && f.measured_ms > 0) {
      // A figure the simulation has no value for (nothing completed) is the worst fit.
      // 1e3 (100000% off) ranks a missing figure below any real one.
      const double e = std::isfinite(row.error) ? row.error : 1e3;
      sum += e * e;
      ++fitted;
    }
    out.rows.push_back(row);
  }
  out.objective = fitted > 0 ? sum / fitted : 1e6;  // calibration_objective's value for no rows
  return out;
}

SummaryWorkloadCheck check_summary_workload(const BenchmarkSummary& summary, const Scenario& scenario) {
  SummaryWorkloadCheck out;
  if (scenario.workload.empty()) {
    out.mismatches.push_back("the scenario has no workload class to run the benchmark's load with");
    return out;
  }
  if (scenario.workload.size() > 1) {
    out.notes.push_back("the scenario has " + std::to_string(scenario.workload.size()) + " workload classes; " +
                        "the benchmark's load is compared with the first's (" + scenario.workload.front().name + ")");
  }
  for (std::size_t k = 0; k < summary.stages.size(); ++k) {
    const SummaryStage& stage = summary.stages[k];
    const std::string head = summary.stages.size() > 1 ? stage.name + ": " : "";
    const Scenario s = summary_stage_scenario(scenario, summary, k);
    const std::optional<TraceSpec>& trace = s.workload.front().trace;
    if (trace && trace->format == "inference-perf-config" && trace->stage) {
      out.notes.push_back(head + "run as stage " + std::to_string(*trace->stage) + " of " + trace->path +
                          ", which the scenario's class " + s.workload.front().name + " replays");
    } else if (k == 0 && stage.requests) {
      if (!scenario.stop.requests) {
        out.notes.push_back(head + "stop.requests set to the benchmark's " + count_key(summary.format) + " (" +
                            std::to_string(*stage.requests) + ")");
      } else if (*scenario.stop.requests != *stage.requests) {
        out.mismatches.push_back(head + count_key(summary.format) + ": the benchmark sent " +
                                 std::to_string(*stage.requests) + " requests, the scenario's stop.requests is " +
                                 std::to_string(*scenario.stop.requests));
      }
    }
    if (k > 0 && s.workload.front().arrival) {
      out.notes.push_back(head + "run as the scenario at the stage's own " +
                          (stage.concurrency ? std::string("concurrency") : std::string("rate")) +
                          (stage.requests ? " and request count" : ""));
    }
    if (!trace || trace->format != "inference-perf-config") check_arrival(summary.format, stage, s.workload.front(), head, out);
    if (!stage.mean_input_tokens && !stage.mean_output_tokens) continue;
    // The lengths: one run of the stage at the scenario's own overheads.
    double prompt = 0, output = 0;
    std::int64_t n = 0, sent = 0;
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    sim.add_request_sink([&](const RequestRecord& r) {
      ++sent;
      if (r.outcome != Outcome::completed) return;
      prompt += static_cast<double>(r.prompt_tokens);
      output += static_cast<double>(r.output_tokens_done);
      ++n;
    });
    sim.run();
    // A trace's requests are its own: their count is compared here (a synthetic class
    // sends stop.requests, compared above).
    if (!s.workload.front().arrival && stage.requests && sent != *stage.requests) {
      out.mismatches.push_back(head + count_key(summary.format) + ": the benchmark sent " +
                               std::to_string(*stage.requests) + " requests, the scenario's trace " +
                               std::to_string(sent));
    }
    if (n == 0) {
      out.mismatches.push_back(head + "no request of the scenario completed, so its lengths cannot be compared");
      continue;
    }
    const auto compare = [&](const std::optional<double>& file, double simulated, const std::string& what,
                             const std::string& key) {
      if (!file || *file <= 0) return;
      if (relative_gap(simulated, *file) > kLengthTolerance) {
        out.mismatches.push_back(head + key + ": the benchmark's completed requests had " + number_text(*file) + " " +
                                 what + " tokens on average, the scenario's " + number_text(simulated) +
                                 " (more than " + number_text(100 * kLengthTolerance) + "% apart)");
      }
    };
    const bool vllm = summary.format == "vllm-bench";
    const bool ip = summary.format == "inference-perf";
    compare(stage.mean_input_tokens, prompt / static_cast<double>(n), "prompt",
            vllm ? "total_input_tokens" : ip ? "successes.prompt_tokens.total" : "metrics.prompt_token_count");
    compare(stage.mean_output_tokens, output / static_cast<double>(n), "output",
            vllm ? "total_output_tokens" : ip ? "successes.output_tokens.total" : "metrics.output_token_count");
  }
  return out;
}

SummaryCalibration calibrate_overheads_to_summary(const BenchmarkSummary& summary, const Scenario& scenario,
                                                  const SummaryCalibrationOptions& options) {
  const int stages = static_cast<int>(summary.stages.size());
  std::vector<bool> fit_on(summary.stages.size(), false);
  for (int k : options.fit_stages) {
    if (k < 0 || k >= stages) {
      throw ConfigError(summary.path, 0, "--fit-stages",
                        "stage " + std::to_string(k) + " is not in the file (it has stages 0-" +
                            std::to_string(stages - 1) + ")");
    }
    fit_on[static_cast<std::size_t>(k)] = true;
  }
  const auto fit_count = std::count(fit_on.begin(), fit_on.end(), true);
  if (fit_count == 0) throw ConfigError(summary.path, 0, "--fit-stages", "names no stage to fit on");
  if (stages > 1 && fit_count == stages) {
    throw ConfigError(summary.path, 0, "--fit-stages",
                      "names every stage of the file; leave one or more out to check the fit on");
  }
  SummaryCalibration out;
  out.knobs = options.knobs;
  out.start = scenario.cluster.pools.front().engine.overheads;
  std::string fitted_names, checked_names;
  for (std::size_t k = 0; k < summary.stages.size(); ++k) {
    std::string& names = fit_on[k] ? fitted_names : checked_names;
    names += (names.empty() ? "" : ", ") + summary.stages[k].name;
  }
  out.split = "fitted on " + fitted_names +
              (checked_names.empty() ? std::string("; the file has no other stage to check the fit on")
                                     : "; checked on " + checked_names);

  const auto run_all = [&](const std::optional<EngineOverheads>& o, bool fit_only) {
    std::vector<SummaryStageResult> results;
    for (std::size_t k = 0; k < summary.stages.size(); ++k) {
      if (fit_only && !fit_on[k]) continue;
      results.push_back(simulate_summary_stage(scenario, summary, k, o));
      results.back().fitted_on = fit_on[k];
    }
    return results;
  };
  const auto objective_of = [&](const std::vector<SummaryStageResult>& results) {
    double sum = 0;
    int n = 0;
    for (const SummaryStageResult& r : results) {
      if (!r.fitted_on) continue;
      sum += r.objective;
      ++n;
    }
    return n > 0 ? sum / n : 1e6;
  };
  out.before = run_all(out.start, false);
  out.objective_before = objective_of(out.before);
  const OverheadSearch search =
      search_overheads(options.knobs, out.start, scenario.cluster.pools, options.max_evaluations,
                       [&](const EngineOverheads& o) { return objective_of(run_all(o, true)); }, options.starts);
  out.unidentified = search.unidentified;
  out.fitted = search.fitted;
  out.evaluations = search.evaluations;
  out.after = run_all(out.fitted, false);
  out.objective_after = objective_of(out.after);
  return out;
}

OverheadCalibration as_overhead_calibration(const SummaryCalibration& fit) {
  OverheadCalibration out;
  static_cast<OverheadFit&>(out) = fit;  // the fit itself; its stages as replay sets below
  const auto as_set = [](const SummaryStageResult& r) {
    ReplaySet set;
    set.name = r.name;
    set.requests = r.simulated_completed;
    for (const SummaryRow& row : r.rows) set.rows.push_back({row.figure, row.measured_ms, row.simulated_ms, row.error});
    return set;
  };
  bool have_fit = false, have_check = false;
  for (std::size_t k = 0; k < fit.after.size() && k < fit.before.size(); ++k) {
    const bool fitted = fit.after[k].fitted_on;
    if (fitted && !have_fit) {
      out.fit_before = as_set(fit.before[k]);
      out.fit_after = as_set(fit.after[k]);
      have_fit = true;
    }
    if (!fitted && !have_check) {
      out.held_out_before = as_set(fit.before[k]);
      out.held_out_after = as_set(fit.after[k]);
      have_check = true;
    }
  }
  return out;
}

}  // namespace servesim
