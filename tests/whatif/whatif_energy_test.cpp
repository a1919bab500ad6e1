// The what-if library (docs/what-if.md, 17): what a token costs in joules on an H100, and
// what a 400 W power cap buys (whatif-17-energy).
#include "whatif/whatif_util.h"

namespace whatif_energy_test {

using namespace servesim;
using namespace servesim::whatif;

TEST_CASE("what-if 17: a 400 W cap saves prefill energy for a few ms of TTFT and leaves decode alone",
          "[whatif][energy]") {
  const RunResult r = run_scenario("whatif-17-energy.yaml");
  const SummaryBlock& full = pool_of(r, "full");
  const SummaryBlock& capped = pool_of(r, "capped");
  const double full_peak = object_field(full, "energy", "peak_power_w");
  const double capped_peak = object_field(capped, "energy", "peak_power_w");
  const double full_prefill = object_field(class_of(r, "full_power"), "energy", "prefill_energy_per_input_token_j");
  const double capped_prefill = object_field(class_of(r, "capped_400w"), "energy", "prefill_energy_per_input_token_j");
  const double full_decode = object_field(class_of(r, "full_power"), "energy", "decode_energy_per_output_token_j");
  const double capped_decode = object_field(class_of(r, "capped_400w"), "energy", "decode_energy_per_output_token_j");
  INFO("peak W " << full_peak << " / " << capped_peak << "; prefill J/token " << full_prefill << " / " << capped_prefill
                 << "; decode J/token " << full_decode << " / " << capped_decode << "; TTFT p50 ms "
                 << full.get("median_ttft_ms") << " / " << capped.get("median_ttft_ms"));
  // Between idle (70 W) and the TDP (700 W); the capped pool never above its cap.
  CHECK(full_peak > 500);
  CHECK(full_peak <= 700);
  CHECK(capped_peak <= 400 * (1 + 1e-9));
  // Prefill runs near the TDP uncapped, so the cap's lower clock saves a fifth of its
  // energy per prompt token (energy per operation falls with the square of the clock).
  CHECK(change(full_prefill, capped_prefill) < -0.10);
  // Decode draws less than the cap most of the time: its energy per token moves little.
  CHECK(std::abs(change(full_decode, capped_decode)) < 0.05);
  // The price: prefill steps take longer, so TTFT rises, by milliseconds.
  CHECK(capped.get("median_ttft_ms") > full.get("median_ttft_ms"));
  CHECK(capped.get("median_ttft_ms") < full.get("median_ttft_ms") + 20);
  // The same idle power over the same run on both.
  CHECK(object_field(full, "energy", "idle_energy_j") == Approx(object_field(capped, "energy", "idle_energy_j")));
}

}  // namespace whatif_energy_test
