#include "sim/report/replay_outcome.h"

#include <ostream>
#include <sstream>
#include <utility>

#include "sim/report/replay_report.h"
#include "sim/study/replay_study.h"

namespace servesim {

namespace {

std::string shortfall_of(const SimulatedReplay& simulated) {
  if (simulated.rejected == 0 && simulated.unfinished == 0) return "";
  return "the simulated deployment rejected " + std::to_string(simulated.rejected) + " and left " +
         std::to_string(simulated.unfinished) + " unfinished of the replayed requests; their figures are left out";
}

}  // namespace

ReplayOutcome replay_benchmark(const ReplayRequest& request, const std::string& command, std::ostream& err) {
  ReplayOutcome outcome;
  // The benchmark's requests replace the scenario's workload, so the scenario needs no stop.
  ReplayInputs inputs = read_replay_inputs(request);
  if (!check_benchmark_deployment(inputs.bench, inputs.deployment, request.force, command, err)) {
    outcome.refused = true;
    return outcome;
  }
  const BenchmarkReplay replay(std::move(inputs.deployment), std::move(inputs.bench));
  const ReplayStudy study = run_replay(replay, inputs.tolerance);
  outcome.json = replay_json(replay, study.simulated, study.sets, inputs.tolerance);
  std::ostringstream table;
  print_replay(replay, study.simulated, study.sets, table);
  const int beyond = study.beyond_tolerance;
  if (inputs.tolerance) {
    table << beyond << " figure" << (beyond == 1 ? "" : "s") << " beyond the tolerance of " << request.tolerance
          << "\n";
  }
  outcome.table = table.str();
  outcome.beyond_tolerance = beyond;
  outcome.shortfall = shortfall_of(study.simulated);
  return outcome;
}

}  // namespace servesim
