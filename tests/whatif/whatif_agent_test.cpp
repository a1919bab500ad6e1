// The what-if library (docs/what-if.md), claims 5 and 14: context growth across a 20-turn
// agent loop, with and without the prefix cache, and with truncated history. Per-turn
// figures come from each request's record (turn, prompt and cached tokens, TTFT).
#include <map>

#include "whatif/whatif_util.h"

namespace whatif_agent_test {

using namespace servesim;
using namespace servesim::whatif;

namespace {

struct TurnFigures {
  int n = 0;
  double prompt_tokens = 0, computed_tokens = 0, ttft_ms = 0, cost_usd = 0;  // sums over the turn's requests
  double mean_computed() const { return computed_tokens / n; }
  double mean_prompt() const { return prompt_tokens / n; }
  double mean_ttft() const { return ttft_ms / n; }
  double mean_cost() const { return cost_usd / n; }
};

std::map<int, TurnFigures> run_by_turn(const std::vector<std::string>& sets) {
  Scenario s = load_scenario(scenario_path("whatif-05-agent-loop.yaml"), sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  std::map<int, TurnFigures> turns;
  sim.add_request_sink([&](const RequestRecord& r) {
    if (r.outcome != Outcome::completed) return;
    TurnFigures& t = turns[r.turn];
    ++t.n;
    t.prompt_tokens += static_cast<double>(r.prompt_tokens);
    t.computed_tokens += static_cast<double>(r.prompt_tokens - r.cached_prompt_tokens);
    t.ttft_ms += static_cast<double>(r.ttft_ns()) / 1e6;
    t.cost_usd += r.cost_usd;
  });
  const RunResult result = sim.run();
  REQUIRE(result.summary.overall.get("saturated") == 0);
  REQUIRE(turns.count(20) == 1);
  return turns;
}

// Prefill tokens one 20-turn session computes, summing each turn's mean.
double session_computed(const std::map<int, TurnFigures>& turns) {
  double sum = 0;
  for (int t = 1; t <= 20; ++t) sum += turns.at(t).mean_computed();
  return sum;
}

}  // namespace

TEST_CASE("what-if 5: an agent loop's prefill grows with each turn and the prefix cache removes most of it",
          "[whatif]") {
  const auto cached = run_by_turn({});
  const auto uncached = run_by_turn({"cluster.pools.0.engine.prefix_cache=false"});
  // Turn k's prompt is ~3,200 + 550 (k - 1) tokens in both runs.
  for (const auto* turns : {&cached, &uncached}) {
    CHECK(turns->at(1).mean_prompt() == Approx(3200).epsilon(0.05));
    CHECK(turns->at(20).mean_prompt() == Approx(3200 + 19 * 550).epsilon(0.08));
  }
  // Without the cache every turn recomputes its whole history: turn 20 costs 4x turn 1,
  // and the session's total is superlinear in its turns (20 turns cost far more than 20
  // times the first).
  const double first = uncached.at(1).mean_computed();
  const double last = uncached.at(20).mean_computed();
  const double total_uncached = session_computed(uncached);
  INFO("uncached: turn 1 " << first << ", turn 20 " << last << ", session " << total_uncached << " tokens");
  CHECK(last > 4 * first);
  CHECK(total_uncached > 2.5 * 20 * first);
  CHECK(uncached.at(20).mean_ttft() > 2 * uncached.at(1).mean_ttft());
  // With it each turn computes only its new ~550 tokens (plus the partial block at the end
  // of the previous turn): the session computes less than 15% of the uncached total.
  const double total_cached = session_computed(cached);
  INFO("cached: turn 20 computes " << cached.at(20).mean_computed() << ", session " << total_cached << " tokens");
  CHECK(cached.at(20).mean_computed() < 700);
  CHECK(total_cached < 0.15 * total_uncached);
  CHECK(cached.at(20).mean_ttft() < 0.2 * uncached.at(20).mean_ttft());
  // Cost per turn (each step's GPU time shared among the requests in it): without the cache
  // it grows with the history; with it, it stays flat. At this light load the GPU's time is
  // mostly small decode batches, so the prompt is a minority of a turn's cost (turn 20 cost
  // 1.35x turn 1 here, with the vllm preset's front end delaying each next turn by ~4 ms).
  INFO("cost per turn, uncached: turn 1 USD " << uncached.at(1).mean_cost() << ", turn 20 " << uncached.at(20).mean_cost()
                                              << "; cached: " << cached.at(1).mean_cost() << ", " << cached.at(20).mean_cost());
  CHECK(uncached.at(20).mean_cost() > 1.25 * uncached.at(1).mean_cost());
  CHECK(cached.at(20).mean_cost() < 1.15 * cached.at(1).mean_cost());
}

TEST_CASE("what-if 14: truncating history bounds the prompt but breaks the cached prefix after each cut",
          "[whatif]") {
  const auto full = run_by_turn({});
  const auto cut = run_by_turn({"workload.0.session.max_history_tokens=6000"});
  const auto cut_uncached =
      run_by_turn({"workload.0.session.max_history_tokens=6000", "cluster.pools.0.engine.prefix_cache=false"});
  const auto full_uncached = run_by_turn({"cluster.pools.0.engine.prefix_cache=false"});
  // The prompt stops growing at the limit.
  CHECK(cut.at(20).mean_prompt() <= 6000);
  CHECK(full.at(20).mean_prompt() > 12000);
  // Without a cache, truncation is a large saving of prefill work.
  CHECK(session_computed(cut_uncached) < 0.7 * session_computed(full_uncached));
  // With a cache it is not: every cut shifts the history, so the turn after it hits only the
  // first prompt and recomputes the kept history. Late turns compute several times more.
  INFO("turn 20 computed tokens: full history " << full.at(20).mean_computed() << ", truncated "
                                                 << cut.at(20).mean_computed());
  CHECK(cut.at(20).mean_computed() > 2.5 * full.at(20).mean_computed());
}

}  // namespace whatif_agent_test
