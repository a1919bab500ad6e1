#include "sim/study/run_study.h"

#include "sim/cluster/pool.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario.h"
#include "sim/study/summary_json.h"

namespace servesim {

RunOutcome run_scenario(const Scenario& scenario, std::optional<std::uint64_t> seed) {
  Simulation sim(seed.value_or(scenario.seed), scenario.stop, scenario.workload, scenario.cluster);
  RunOutcome out;
  out.result = sim.run();
  describe_deployment(out.result.summary, scenario);
  for (const auto& pool : sim.pools())
    for (const auto& replica : pool->replicas()) {
      const ReplicaStats& st = replica->stats();
      out.engine.lazy_decode_tokens += st.lazy_decode_tokens;
      out.engine.decode_runs += st.decode_runs;
      out.engine.decode_run_steps += st.decode_run_steps;
      out.engine.decode_run_priced_steps += st.decode_run_priced_steps;
    }
  return out;
}

}  // namespace servesim
