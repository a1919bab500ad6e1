// The power model of one GPU and the power cap's clock (docs/energy.md): every figure
// worked out by hand from P = P_idle + (P_max - P_idle) * activity.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "sim/hardware/power_capped_cost_model.h"
#include "sim/hardware/power_model.h"
#include "sim/hardware/simple_cost_models.h"

namespace power_model_test {

using namespace servesim;

namespace {

constexpr Tick kMs = 1'000'000;

// Round figures: 70 W idle, 700 W at full activity, half the range for a kernel streaming
// at full bandwidth, 1000 TFLOP/s and 4 TB/s.
PowerModel model(double cap_w = 0) {
  PowerModel m;
  m.idle_w = 70;
  m.max_w = 700;
  m.memory_power_fraction = 0.5;
  m.peak_flops = 1e15;
  m.bandwidth_bytes_per_s = 4e12;
  m.cap_w = cap_w;
  return m;
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

}  // namespace

TEST_CASE("power model: a prefill-heavy step draws near the TDP", "[hardware][energy]") {
  // 10 ms of GEMMs doing 8e12 FLOPs (0.8 of the 1e15 peak over 10 ms) and moving 4e9 bytes
  // (0.1 of 4 TB/s over 10 ms): activity 0.8 + 0.5 x 0.1 = 0.85, P = 70 + 630 x 0.85 =
  // 605.5 W, and 6.055 J over the 10 ms.
  const StepCost c = cost(10 * kMs, 0, 8e12, 4e9);
  const PowerModel m = model();
  CHECK(PowerModel::kernel_s(c) == Approx(0.010).epsilon(1e-12));
  CHECK(m.step_power_w(c) == Approx(605.5).epsilon(1e-12));
  CHECK(m.step_power_w(c) * PowerModel::kernel_s(c) == Approx(6.055).epsilon(1e-12));
  // Above idle: 630 x (8e12 / 1e15 + 0.5 x 4e9 / 4e12) = 630 x 0.0085 = 5.355 J.
  CHECK(m.dynamic_j(8e12, 4e9) == Approx(5.355).epsilon(1e-12));
}

TEST_CASE("power model: a decode-heavy step draws idle plus about its memory share", "[hardware][energy]") {
  // 1 ms compute and 20 ms memory (21 ms of kernels); 1e12 FLOPs (0.047619 of the peak over
  // 21 ms) and 6.72e10 bytes (0.8 of 4 TB/s over 21 ms): activity 0.047619 + 0.5 x 0.8 =
  // 0.447619, P = 70 + 630 x 0.447619 = 352.0 W. Energy: 70 x 0.021 = 1.47 J at idle plus
  // 630 x (0.001 + 0.0084) = 5.922 J above it, 7.392 J.
  const StepCost c = cost(1 * kMs, 20 * kMs, 1e12, 6.72e10);
  const PowerModel m = model();
  CHECK(m.step_power_w(c) == Approx(352.0).epsilon(1e-12));
  CHECK(m.step_power_w(c) * PowerModel::kernel_s(c) == Approx(7.392).epsilon(1e-12));
}

TEST_CASE("power model: activity above 1 draws the TDP and no more", "[hardware][energy]") {
  // 1e13 FLOPs in 10 ms is the whole peak, and 4e10 bytes the whole bandwidth: 1 + 0.5 -> 1.
  CHECK(model().step_power_w(cost(10 * kMs, 0, 1e13, 4e10)) == Approx(700).epsilon(1e-12));
  // A capped pool's step that would draw more draws the cap.
  CHECK(model(400).step_power_w(cost(10 * kMs, 0, 1e13, 4e10)) == Approx(400).epsilon(1e-12));
}

TEST_CASE("power cap: a compute-bound step slows by the cube root of the power it must shed", "[hardware][energy]") {
  // 10 ms of pure compute at the full peak (1e13 FLOPs): 700 W uncapped. At clock fraction
  // s its compute takes 10 ms / s and its energy above idle is 630 W x 10 ms x s^2, so
  // P(s) = 70 + 630 s^3. A 385 W cap: 630 s^3 = 315, s = 0.5^(1/3) = 0.793700526, and the
  // step takes 10 ms x 2^(1/3) = 12.599210 ms.
  const PowerModel m = model(385);
  const PowerCappedCostModel capped(std::make_shared<ConstantCostModel>(1), m);
  const StepCost slow = capped.capped(cost(10 * kMs, 0, 1e13, 0));
  CHECK(static_cast<double>(slow.compute_ns) == Approx(10e6 * std::cbrt(2.0)).epsilon(1e-7));
  CHECK(slow.total_ns == slow.compute_ns);
  CHECK(slow.flops == 1e13);
  // At the slower clock the step draws the cap: the meter reads 385 W.
  CHECK(m.power_at_clock_w(cost(10 * kMs, 0, 1e13, 0), std::cbrt(0.5)) == Approx(385).epsilon(1e-9));
  CHECK(m.step_power_w(slow) == Approx(385).epsilon(1e-12));
}

TEST_CASE("power cap: a step under the cap is the inner model's and memory time never slows with the clock",
          "[hardware][energy]") {
  const PowerCappedCostModel capped(std::make_shared<ConstantCostModel>(1), model(500));
  // The decode-heavy step above draws 352 W: untouched, bit for bit.
  const StepCost decode = cost(1 * kMs, 20 * kMs, 1e12, 6.72e10);
  const StepCost same = capped.capped(decode);
  CHECK(same.compute_ns == decode.compute_ns);
  CHECK(same.memory_ns == decode.memory_ns);
  CHECK(same.total_ns == decode.total_ns);
  // A mixed step over the cap: 5 ms compute at the full peak (5e12 FLOPs) and 5 ms memory at
  // full bandwidth (2e10 bytes): 70 + 630 x (0.5 + 0.5 x 0.5) = 542.5 W. Capped at 500 W the
  // compute part slows, the memory part keeps its 5 ms.
  const StepCost mixed = capped.capped(cost(5 * kMs, 5 * kMs, 5e12, 2e10));
  CHECK(mixed.memory_ns == 5 * kMs);
  CHECK(mixed.compute_ns > 5 * kMs);
  CHECK(mixed.total_ns == mixed.compute_ns + mixed.memory_ns);
  // P(s) = 70 + (630 x 5 ms x s^2 + 630 x 0.5 x 5 ms) / (5 ms / s + 5 ms) at the clock found is the cap.
  const double s = 5e6 / static_cast<double>(mixed.compute_ns);
  const double p = 70 + (3.15 * s * s + 1.575) / (0.005 / s + 0.005);
  CHECK(p == Approx(500).epsilon(1e-6));
}

TEST_CASE("power cap: a step with no compute part stretches to the cap's mean power", "[hardware][energy]") {
  // 10 ms streaming at full bandwidth (4e10 bytes): 70 + 630 x 0.5 = 385 W. Under a 227.5 W
  // cap its 3.15 J above idle spread at 157.5 W above idle take 20 ms.
  const PowerCappedCostModel capped(std::make_shared<ConstantCostModel>(1), model(227.5));
  const StepCost out = capped.capped(cost(0, 10 * kMs, 0, 4e10));
  CHECK(out.memory_ns == 20 * kMs);
  CHECK(out.total_ns == 20 * kMs);
}

}  // namespace power_model_test
