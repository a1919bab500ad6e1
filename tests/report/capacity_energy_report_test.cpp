// capacity.json's "energy" and the console lines of `capacity --objective energy`
// (sim/report/capacity_report.h) on a study put together by hand: which feasible trial spent
// the least per output token, and the electricity at cluster.energy.price_per_kwh.
#include <catch2/catch.hpp>
#include <sstream>

#include "sim/report/capacity_report.h"

namespace capacity_energy_report_test {

using namespace servesim;

// A run's overall energy object as sim/metrics/energy_meter.cpp writes it.
RunSummary metered(double j_per_output_token, double mean_power_w, double kwh) {
  RunSummary s;
  FieldGroup g;
  g.name = "energy";
  g.set("energy_j", kwh * 3.6e6);
  g.set("energy_kwh", kwh);
  g.set("mean_power_w", mean_power_w);
  g.set("peak_power_w", mean_power_w);
  g.set("energy_per_output_token_j", j_per_output_token);
  s.overall.objects.push_back(g);
  return s;
}

CapacityTrialRun trial(double x, bool feasible, double j_per_output_token) {
  CapacityTrialRun t;
  t.x = x;
  t.feasible = feasible;
  t.summary = metered(j_per_output_token, 300, 0.5);
  return t;
}

// Trials in search order 1, 2, 4 (fails), 3: capacity 3 req/s at 0.045 J per output token,
// but the trial at 2 req/s spent 0.04; the failed one at 4 spent 0.01 and does not count.
CapacityStudy study_of(const std::vector<CapacityTrialRun>& trials, std::size_t best) {
  CapacityStudy study;
  study.plan.scenario_name = "hand";
  study.plan.knob.keys = {{"workload.0.arrival.rate", 1.0}};
  study.plan.knob.unit = "req/s";
  study.plan.objective = CapacityObjective::energy;
  study.plan.price_per_kwh = 0.12;
  study.trials = trials;
  for (const auto& t : trials) study.search.trials.push_back({t.x, t.feasible, "", false});
  study.search.best = best;
  study.search.lowest_infeasible = 4;
  return study;
}

TEST_CASE("capacity energy report: the least energy per token among feasible trials and the electricity at capacity", "[sweep][energy]") {
  const CapacityStudy study =
      study_of({trial(1, true, 0.05), trial(2, true, 0.04), trial(4, false, 0.01), trial(3, true, 0.045)}, 3);
  REQUIRE(study.least_energy() == &study.trials[1]);

  const auto j = capacity_to_json(study, 0.05);
  CHECK(j["objective"] == "energy");
  CHECK(j["capacity"] == 3.0);
  const auto& e = j["energy"];
  CHECK(e["energy_per_output_token_j"] == 0.045);
  CHECK(e["mean_power_w"] == 300.0);
  // 300 W is 0.3 kW: USD 0.036 an hour at USD 0.12 per kWh. 0.045 J x 1e6 tokens = 45,000 J
  // = 0.0125 kWh: USD 0.0015 per 1M output tokens.
  CHECK(e["energy_cost_per_hour"].get<double>() == Approx(0.036).epsilon(1e-12));
  CHECK(e["energy_cost_per_1m_output_tokens"].get<double>() == Approx(0.0015).epsilon(1e-12));
  CHECK(e["least_energy"]["value"] == 2.0);
  CHECK(e["least_energy"]["energy_per_output_token_j"] == 0.04);
  // Every trial carries its figures, the failed one too.
  CHECK(j["trials"][2]["energy_per_output_token_j"] == 0.01);
  CHECK(j["trials"][2]["mean_power_w"] == 300.0);

  std::ostringstream out;
  print_capacity_result(study, out);
  INFO(out.str());
  CHECK(out.str().find("energy at capacity: 0.045 J per output token, 300.0 W mean (peak 300.0 W), 0.5 kWh over the "
                       "run; $0.036/hour of electricity, $0.0015 per 1M output tokens\n") != std::string::npos);
  CHECK(out.str().find("least energy per output token among the feasible trials: 2 req/s at 0.04 J\n") !=
        std::string::npos);
}

TEST_CASE("capacity energy report: a tie goes to the lower value and a study without energy has none", "[sweep][energy]") {
  const CapacityStudy tie = study_of({trial(1, true, 0.05), trial(2, true, 0.04), trial(3, true, 0.04)}, 2);
  REQUIRE(tie.least_energy() == &tie.trials[1]);

  CapacityStudy unmetered = study_of({trial(1, true, 0.05)}, 0);
  unmetered.trials[0].summary = RunSummary{};
  CHECK(unmetered.least_energy() == nullptr);
  const auto j = capacity_to_json(unmetered, 0.05);
  CHECK(j["energy"]["energy_per_output_token_j"].is_null());
  CHECK(j["energy"]["energy_cost_per_1m_output_tokens"].is_null());
  CHECK(j["energy"]["least_energy"].is_null());
}

}  // namespace capacity_energy_report_test
