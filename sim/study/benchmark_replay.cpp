// BenchmarkReplay: the benchmark's succeeded requests through the scenario's deployment.
#include "sim/study/benchmark_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"

namespace servesim {

BenchmarkReplay::BenchmarkReplay(Scenario base, BenchmarkRun benchmark)
    : scenario_(std::move(base)), benchmark_(std::move(benchmark)) {
  for (std::size_t i = 0; i < benchmark_.requests.size(); ++i) {
    if (benchmark_.requests[i].succeeded) {
      replayed_.push_back(i);
    } else {
      ++failed_;
    }
  }
  if (replayed_.empty()) {
    throw ConfigError(benchmark_.path, 0, "requests",
                      "no request of the benchmark succeeded (" + std::to_string(failed_) +
                          " failed), so there is nothing to replay");
  }
  if (scenario_.workload.empty()) throw ConfigError(scenario_.source_file, 0, "workload", "has no class");
  // The benchmark's requests take the place of the first class, keeping its name (pools
  // and admission rules refer to it), priority and SLOs; every other class goes.
  ClassSpec replay_class = scenario_.workload.front();
  replay_class.arrival.reset();
  replay_class.input.reset();
  replay_class.output.reset();
  replay_class.prompt.clear();
  replay_class.session.reset();
  TraceSpec trace;
  trace.format = benchmark_.format;
  trace.path = benchmark_.path;
  trace.preloaded = std::make_shared<const BenchmarkRun>(benchmark_);
  replay_class.trace = trace;
  scenario_.workload = {replay_class};
  scenario_.stop = StopSpec{};  // the benchmark's requests, all of them, then drain
}

SimulatedReplay BenchmarkReplay::simulate(const std::optional<EngineOverheads>& overheads) const {
  ClusterConfig cluster = scenario_.cluster;
  if (overheads) {
    for (PoolConfig& pool : cluster.pools) pool.engine.overheads = *overheads;
  }
  const std::size_t n = replayed_.size();
  SimulatedReplay out;
  out.arrival_ns.assign(n, -1);
  out.finish_ns.assign(n, -1);
  out.latency.assign(n, RequestLatency{});
  Simulation sim(scenario_.seed, scenario_.stop, scenario_.workload, cluster);
  // The source sends the succeeded requests in benchmark order and the simulation numbers
  // arrivals from 0, so a record's id is its position in replayed_.
  sim.add_request_sink([&](const RequestRecord& r) {
    if (r.id >= n) return;
    const std::size_t i = static_cast<std::size_t>(r.id);
    out.arrival_ns[i] = r.arrival_ns;
    out.latency[i].output_tokens = r.output_tokens_done;
    if (r.outcome == Outcome::completed) {
      out.finish_ns[i] = r.finish_ns;
      out.latency[i].ttft_ns = r.ttft_ns();
      out.latency[i].e2el_ns = r.e2el_ns();
    }
  });
  const RunResult result = sim.run();
  out.completed = result.completed;
  out.rejected = result.rejected;
  out.unfinished = result.unfinished;
  out.saturated = result.saturation.saturated;
  if (result.saturation.saturated) out.saturation_note = result.summary.overall.label("saturation_note");
  const SummaryBlock& s = result.summary.overall;
  if (std::isfinite(s.get("mean_itl_ms"))) {
    LatencyFigures itl;
    itl.mean_ms = s.get("mean_itl_ms");
    itl.p50_ms = s.get("p50_itl_ms");
    itl.p90_ms = s.get("p90_itl_ms");
    itl.p99_ms = s.get("p99_itl_ms");
    out.itl = itl;
  }
  return out;
}

double BenchmarkReplay::measured_span_s(const std::vector<std::size_t>& members, bool whole_stage, int stage) const {
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  bool timed = true;
  for (std::size_t m : members) {
    const BenchmarkRequest& r = benchmark_.requests[replayed_[m]];
    if (!r.start_ns || r.e2el_ns < 0) {
      timed = false;
      break;
    }
    first = std::min(first, *r.start_ns);
    last = std::max(last, *r.start_ns + r.e2el_ns);
  }
  if (timed && !members.empty()) return static_cast<double>(last - first) / 1e9;
  // Without send times, only a whole stage (or the whole run) has a known span: the
  // duration the tool measured.
  if (!whole_stage) return 0;
  double span_s = 0;
  for (std::size_t k = 0; k < benchmark_.stages.size(); ++k) {
    if (stage >= 0 && static_cast<int>(k) != stage) continue;
    if (!benchmark_.stages[k].duration_s) return 0;
    span_s += *benchmark_.stages[k].duration_s;
  }
  return span_s;
}

ReplaySet BenchmarkReplay::compare(const std::string& name, const std::vector<std::size_t>& members,
                                   const SimulatedReplay& simulated, bool whole_run) const {
  ReplaySet set;
  set.name = name;
  set.requests = static_cast<std::int64_t>(members.size());
  std::vector<RequestLatency> measured, sim;
  std::vector<double> gaps_ms;
  bool has_gaps = false;
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  for (std::size_t m : members) {
    const BenchmarkRequest& r = benchmark_.requests[replayed_[m]];
    measured.push_back({r.ttft_ns, r.e2el_ns, r.output_tokens});
    if (!r.itl_ns.empty()) has_gaps = true;
    for (Tick gap : r.itl_ns) gaps_ms.push_back(static_cast<double>(gap) / 1e6);
    if (simulated.finish_ns[m] >= 0) {
      sim.push_back(simulated.latency[m]);
      first = std::min(first, simulated.arrival_ns[m]);
      last = std::max(last, simulated.finish_ns[m]);
    }
  }
  int stage = -1;
  bool whole_stage = whole_run;
  if (!whole_run && !members.empty()) {
    // A set is a whole stage when it is exactly the replayed requests of one stage.
    stage = benchmark_.requests[replayed_[members.front()]].stage;
    std::size_t in_stage = 0;
    for (std::size_t i : replayed_) in_stage += benchmark_.requests[i].stage == stage;
    whole_stage = in_stage == members.size() &&
                  std::all_of(members.begin(), members.end(),
                              [&](std::size_t m) { return benchmark_.requests[replayed_[m]].stage == stage; });
  }
  // Throughput needs a set that covers a span whole: the run or one stage. Interleaved
  // windows (calibration's split) share their span with the windows between them.
  const double span_s = whole_stage ? measured_span_s(members, whole_stage, whole_run ? -1 : stage) : 0;
  set.measured = benchmark_figures(measured, span_s,
                                   has_gaps ? std::optional(gaps_ms) : std::nullopt);
  const double sim_span_s = sim.empty() ? 0 : static_cast<double>(last - first) / 1e9;
  set.simulated = benchmark_figures(sim, set.measured.span_s > 0 ? sim_span_s : 0, std::nullopt);
  if (whole_run) set.simulated.itl = simulated.itl;
  set.rows = compare_figures(set.measured, set.simulated);
  return set;
}

std::vector<ReplaySet> BenchmarkReplay::compare_all(const SimulatedReplay& simulated) const {
  std::vector<std::size_t> all(replayed_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<ReplaySet> sets = {compare("all", all, simulated, true)};
  if (benchmark_.stages.size() > 1) {
    for (std::size_t k = 0; k < benchmark_.stages.size(); ++k) {
      std::vector<std::size_t> members;
      for (std::size_t m = 0; m < replayed_.size(); ++m) {
        if (benchmark_.requests[replayed_[m]].stage == static_cast<int>(k)) members.push_back(m);
      }
      if (!members.empty()) sets.push_back(compare(benchmark_.stages[k].name, members, simulated, false));
    }
  }
  return sets;
}

}  // namespace servesim
