// The energy meter (docs/energy.md): idle power over gaps between steps, each step's power
// above idle over its kernel time, the peak of the replicas' summed power, the power of a
// replica loading its weights, and each class's share of its steps' energy. Worked by hand.
#include <catch2/catch.hpp>

#include "sim/engine/request_state.h"
#include "sim/metrics/energy_meter.h"

namespace energy_meter_test {

using namespace servesim;

namespace {

constexpr Tick kMs = 1'000'000;

// 70 W idle, 700 W at full activity, half the range at full bandwidth, 1000 TFLOP/s, 4 TB/s.
EnergyPool pool(int replicas, int gpus, double start_extra_w = 0, int initially_on = -1) {
  EnergyPool p;
  p.power.idle_w = 70;
  p.power.max_w = 700;
  p.power.memory_power_fraction = 0.5;
  p.power.peak_flops = 1e15;
  p.power.bandwidth_bytes_per_s = 4e12;
  p.gpus_per_replica = gpus;
  p.replicas = replicas;
  p.initially_on = initially_on < 0 ? replicas : initially_on;
  p.start_extra_w = start_extra_w;
  return p;
}

StepCost cost(Tick compute_ns, Tick memory_ns, double flops, double bytes) {
  StepCost c;
  c.compute_ns = compute_ns;
  c.memory_ns = memory_ns;
  c.total_ns = compute_ns + memory_ns;
  c.flops = flops;
  c.bytes = bytes;
  return c;
}

// The prefill-heavy step of tests/hardware/power_model_test.cpp: 605.5 W for 10 ms.
StepCost prefill_step() { return cost(10 * kMs, 0, 8e12, 4e9); }
// Its decode-heavy step: 352.0 W for 21 ms.
StepCost decode_step() { return cost(1 * kMs, 20 * kMs, 1e12, 6.72e10); }

RunSummary summary_of(int pools, const std::vector<std::pair<std::int64_t, std::int64_t>>& class_tokens) {
  RunSummary s;
  for (int p = 0; p < pools; ++p) s.pools.emplace_back("pool" + std::to_string(p), SummaryBlock{});
  for (std::size_t k = 0; k < class_tokens.size(); ++k) {
    SummaryBlock b;
    b.set_count("total_input_tokens", class_tokens[k].first);
    b.set_count("total_output_tokens", class_tokens[k].second);
    s.classes.emplace_back("class" + std::to_string(k), b);
  }
  return s;
}

const FieldGroup& energy_of(const SummaryBlock& b) {
  for (const FieldGroup& g : b.objects)
    if (g.name == "energy") return g;
  FAIL("no energy object");
  return b.objects.front();
}

double field(const FieldGroup& g, const std::string& name) {
  for (const auto& [n, v] : g.fields)
    if (n == name) return v;
  FAIL("no field " << name);
  return 0;
}

}  // namespace

TEST_CASE("energy meter: a GPU idles between steps at idle power", "[metrics][energy]") {
  // One GPU: a prefill-heavy step at t = 0 and another at t = 1 s, each 605.5 W for 10 ms;
  // the run ends at 1.01 s. Idle power over all 1.01 s: 70.7 J; above idle: 2 x 535.5 W x
  // 10 ms = 10.71 J; 81.41 J in all, 80.604 W on average, 605.5 W at the peak.
  EnergyMeter meter({pool(1, 1)}, 0);
  const StepPlan none;
  meter.on_step(0, 0, 0, none, prefill_step());
  meter.on_step(0, 0, 1000 * kMs, none, prefill_step());
  RunSummary s = summary_of(1, {});
  meter.write(s, {1.01}, 1010 * kMs, 0.0);
  const FieldGroup& e = energy_of(s.pools[0].second);
  CHECK(field(e, "idle_energy_j") == Approx(70.7).epsilon(1e-12));
  CHECK(field(e, "step_energy_above_idle_j") == Approx(10.71).epsilon(1e-12));
  CHECK(field(e, "energy_j") == Approx(81.41).epsilon(1e-12));
  CHECK(field(e, "energy_kwh") == Approx(81.41 / 3.6e6).epsilon(1e-12));
  CHECK(field(e, "mean_power_w") == Approx(81.41 / 1.01).epsilon(1e-12));
  CHECK(field(e, "peak_power_w") == Approx(605.5).epsilon(1e-12));
  CHECK(energy_of(s.overall).fields.size() == e.fields.size() - 3);  // without the pool's parts
  CHECK(field(energy_of(s.overall), "energy_j") == Approx(81.41).epsilon(1e-12));
}

TEST_CASE("energy meter: the peak is the replicas' power summed while their steps overlap", "[metrics][energy]") {
  // Replica 0 runs the prefill step from 0 to 10 ms (605.5 W), replica 1 the decode step
  // from 5 to 26 ms (352 W): at 5 ms the pool draws 605.5 + 352 = 957.5 W. Replica 0's
  // decode step from 20 ms meets replica 1's: 704 W. Peak 957.5 W.
  EnergyMeter meter({pool(2, 1)}, 0);
  const StepPlan none;
  meter.on_step(0, 0, 0, none, prefill_step());
  meter.on_step(0, 1, 5 * kMs, none, decode_step());
  meter.on_step(0, 0, 20 * kMs, none, decode_step());
  CHECK(meter.peak_power_w(0) == Approx(957.5).epsilon(1e-12));
  // Above idle: 535.5 W x 10 ms + 2 x 282 W x 21 ms = 5.355 + 11.844 = 17.199 J.
  CHECK(meter.step_energy_above_idle_j(0) == Approx(17.199).epsilon(1e-12));
}

TEST_CASE("energy meter: a run stopped by time counts a last step only up to the end", "[metrics][energy]") {
  // The prefill step from 0 to 10 ms on 2 GPUs; the run ends at 4 ms: 2 x 535.5 W x 4 ms =
  // 4.284 J above idle, 2 x 70 W x 4 ms = 0.56 J at idle.
  EnergyMeter meter({pool(1, 2)}, 0);
  meter.on_step(0, 0, 0, StepPlan{}, prefill_step());
  RunSummary s = summary_of(1, {});
  meter.write(s, {0.008}, 4 * kMs, 0.10);
  const FieldGroup& e = energy_of(s.pools[0].second);
  CHECK(field(e, "step_energy_above_idle_j") == Approx(4.284).epsilon(1e-12));
  CHECK(field(e, "energy_j") == Approx(4.844).epsilon(1e-12));
  // USD 0.10 per kWh: 4.844 J / 3.6e6 J x 0.10.
  CHECK(field(e, "energy_cost_usd") == Approx(4.844 / 3.6e6 * 0.10).epsilon(1e-12));
  CHECK(field(e, "peak_power_w") == Approx(2 * 605.5).epsilon(1e-12));
}

TEST_CASE("energy meter: a replica loading its weights draws idle plus its start power", "[metrics][energy]") {
  // An autoscaled pool of 2 replicas of 4 GPUs, one warm: 280 W at t = 0. Replica 1 starts
  // at 1 s (each GPU 5 W above idle while it loads: 280 + 4 x 75 = 580 W) and is ready at
  // 3 s (560 W). Its start adds 4 GPUs x 5 W x 2 s = 40 J above idle.
  EnergyMeter meter({pool(2, 4, 5.0, 1)}, 0);
  CHECK(meter.peak_power_w(0) == Approx(280).epsilon(1e-12));
  meter.on_phase(0, 1, 1000 * kMs, true, true);
  CHECK(meter.peak_power_w(0) == Approx(580).epsilon(1e-12));
  meter.on_phase(0, 1, 3000 * kMs, true, false);
  RunSummary s = summary_of(1, {});
  // Paid: replica 0 for 4 s, replica 1 from 1 s: 4 x 4 + 4 x 3 = 28 GPU-seconds at 70 W.
  meter.write(s, {28.0}, 4000 * kMs, 0.0);
  const FieldGroup& e = energy_of(s.pools[0].second);
  CHECK(field(e, "starting_energy_above_idle_j") == Approx(40).epsilon(1e-12));
  CHECK(field(e, "energy_j") == Approx(28 * 70 + 40).epsilon(1e-12));
}

TEST_CASE("energy meter: a step's energy goes to its classes' prompt and decode tokens", "[metrics][energy]") {
  // One GPU, one step of 31 ms in all: the decode step's 21 ms of kernels at 352 W and
  // 10 ms of CPU overhead at idle: 7.392 + 0.7 = 8.092 J for 3 chunks: 30 prompt tokens of
  // class 0, one decode of class 0 and one of class 1 (32 tokens, 0.252875 J each).
  RequestState prompt, decode0, decode1;
  prompt.spec.class_index = 0;
  prompt.spec.prompt_tokens = 30;
  decode0.spec.class_index = 0;
  decode0.spec.prompt_tokens = 5;
  decode0.num_computed_tokens = 5;
  decode1.spec.class_index = 1;
  decode1.spec.prompt_tokens = 5;
  decode1.num_computed_tokens = 6;
  StepPlan plan;
  plan.chunks = {{&prompt, 30}, {&decode0, 1}, {&decode1, 1}};
  StepCost c = decode_step();
  c.total_ns += 10 * kMs;
  EnergyMeter meter({pool(1, 1)}, 2);
  meter.on_step(0, 0, 0, plan, c);
  RunSummary s = summary_of(1, {{30, 2}, {5, 4}});
  meter.write(s, {0.031}, 31 * kMs, 0.0);
  const FieldGroup& c0 = energy_of(s.classes[0].second);
  const FieldGroup& c1 = energy_of(s.classes[1].second);
  CHECK(field(c0, "prefill_energy_j") == Approx(8.092 * 30 / 32).epsilon(1e-12));
  CHECK(field(c0, "decode_energy_j") == Approx(8.092 / 32).epsilon(1e-12));
  CHECK(field(c0, "prefill_energy_per_input_token_j") == Approx(8.092 / 32).epsilon(1e-12));
  CHECK(field(c0, "decode_energy_per_output_token_j") == Approx(8.092 / 32 / 2).epsilon(1e-12));
  CHECK(field(c1, "prefill_energy_j") == 0);
  CHECK(field(c1, "decode_energy_j") == Approx(8.092 / 32).epsilon(1e-12));
  CHECK(field(c1, "decode_energy_per_output_token_j") == Approx(8.092 / 32 / 4).epsilon(1e-12));
}

}  // namespace energy_meter_test
