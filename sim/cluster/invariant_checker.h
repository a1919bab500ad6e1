#pragma once
// Watches one Simulation as it runs and checks the invariants of docs/INVARIANTS.md: during
// the run through every replica's step observer (called when a step starts, with its plan
// and cost) and the request sink (one record per request as it leaves), and at the end
// against the RunResult. Violations are collected as text, never thrown, so a caller can
// print the first few with the step that broke. Used by tests/invariants_test.cpp and by
// `servesim run --check-invariants`.
//
// What the observer sees: when a step starts, every request in its plan already holds the
// KV blocks for its chunk, and its counters (computed tokens, outputs emitted) describe the
// state after the previous step. A step that computes all a request had left emits one
// output token at its end (start + cost), plus the draft tokens the verify pass accepted
// under speculative decoding; that is what INV-4 checks.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster/simulation.h"

namespace servesim {

class InvariantChecker {
 public:
  // Adds a step observer to every replica and a request sink to the simulation, beside
  // any others (timeseries.csv, trace.json, requests.csv keep theirs).
  // REQUIRES: `sim` outlives the checker and run() has not been called yet.
  explicit InvariantChecker(Simulation& sim);

  // A closed loop never has more than this many requests inside the cluster (0: no bound).
  void set_max_in_flight(std::int64_t n) { max_in_flight_ = n; }

  // The end-of-run checks (INV-1, INV-2 and INV-3 at the end, INV-6, INV-10's paid time).
  void check_end(const RunResult& result);

  bool ok() const { return violations_.empty(); }
  const std::vector<std::string>& violations() const { return violations_; }
  // "N violation(s)" and the first `max_lines` of them, one per line.
  std::string report(std::size_t max_lines = 10) const;

  // Figures of the run as the checker saw them, so tests can assert that a scenario really
  // exercised what it was built for (preemptions, chunked prompts, a cut by stop.time).
  struct Figures {
    std::int64_t steps = 0;
    std::int64_t preemptions = 0;
    std::int64_t partial_prompt_chunks = 0;  // chunks that did not finish their request's prompt
    std::int64_t decode_chunks = 0;          // chunks computing the one token a decode needs
    std::int64_t max_kv_used_blocks = 0;
    std::int64_t max_in_flight_seen = 0;     // only counted with set_max_in_flight
    std::int64_t records = 0;
    std::int64_t completed = 0, rejected = 0, unfinished = 0;
    std::int64_t completed_output_tokens = 0, completed_input_tokens = 0;
    // The same for the records of the warm-up, which the summary leaves out (INV-6).
    std::int64_t warmup_records = 0, warmup_completed = 0, warmup_rejected = 0, warmup_unfinished = 0;
    std::int64_t warmup_output_tokens = 0, warmup_input_tokens = 0;
    Tick last_step_end_ns = 0;
    std::uint64_t fingerprint = 1469598103934665603ull;  // FNV-1a over every record, in order
    // Autoscaled pools: changes of their fleets, and requests routed (INV-10).
    std::int64_t fleet_changes = 0, autoscaled_routes = 0;
  };
  const Figures& figures() const { return f_; }

 private:
  // What the checker expects of one request, from the steps it has seen.
  struct Track {
    std::int64_t outputs_expected = 0;  // num_output_done after the last step it was in
    std::int64_t outputs_before = 0;    // num_output_done before that step
    Tick first_token_ns = -1;           // end of the step that emitted output 1
    Tick last_step_end_ns = -1;         // end of the last step it was in
    Tick prefill_done_ns = -1;          // output 0: end of the step that finished its prompt
  };

  void fail(const std::string& what);
  void on_step(int pool, int replica, Tick start_ns, const StepPlan& plan, const StepCost& cost);
  void check_kv(const std::string& where, Replica& replica, const StepPlan& plan);
  void check_chunk(const std::string& where, const ScheduledChunk& c, const KvCacheManager& kv, Tick end_ns);
  void on_record(const RequestRecord& r);
  void check_completed(const std::string& who, const RequestRecord& r, const Track* t);
  void mix(std::uint64_t v);
  // INV-10: an autoscaled pool's fleet after each change, and where it routes.
  void watch_autoscaler(int pool);
  void check_fleet(int pool, Tick now_ns);
  void check_gpu_budget(const GpuBudget& budget, const std::string& where);

  Simulation& sim_;
  Figures f_;
  std::int64_t max_in_flight_ = 0;
  Tick clock_ns_ = 0;  // latest step start seen, on any replica (INV-3)
  std::unordered_map<std::uint64_t, Track> tracks_;
  std::map<std::pair<int, int>, Tick> busy_until_ns_;  // (pool, replica) -> end of its step
  std::set<std::uint64_t> ids_;
  std::vector<std::string> violations_;
  std::size_t dropped_ = 0;  // violations beyond the first 1000, counted only
};

}  // namespace servesim
