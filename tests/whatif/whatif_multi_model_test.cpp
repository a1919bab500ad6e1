// The what-if library (docs/what-if.md): a chat model and a small model on four GPUs, split
// statically or shared by two autoscalers under one budget (whatif-18-multi-model).
#include "whatif/whatif_util.h"

namespace whatif_multi_model_test {

using namespace servesim;
using namespace servesim::whatif;

TEST_CASE("what-if 18: a shared GPU budget serves the small model's peak that a static split cannot",
          "[whatif][multi_model]") {
  const RunResult r = run_scenario("whatif-18-multi-model.yaml");
  REQUIRE(r.stopped_by_time);
  REQUIRE(r.end_ns == 3600 * kNsPerSec);
  // The budget: 8 GPUs, the static split's 4 held all run, so the autoscaled pools share 4.
  CHECK(r.summary.overall.get("gpu_budget") == 8);
  CHECK(r.summary.overall.get("gpu_budget_peak_held") == 8);
  const double chat_static_h = pool_of(r, "chat_static").get("gpu_hours");
  const double small_static_h = pool_of(r, "small_static").get("gpu_hours");
  const double shared_h = pool_of(r, "chat_shared").get("gpu_hours") + pool_of(r, "small_shared").get("gpu_hours");
  // Static: 3 + 1 replicas of one GPU for 1 h, exactly.
  CHECK(chat_static_h == Approx(3.0).epsilon(1e-12));
  CHECK(small_static_h == Approx(1.0).epsilon(1e-12));
  // Shared: never more than the 4 GPUs left of the budget, at least one replica each all
  // run, so between 2 and 4 GPU-hours.
  CHECK(shared_h > 2.0);
  CHECK(shared_h < 4.0);
  // The small model's last 20 minutes (700 requests/s) need two replicas: the static one
  // falls behind (most of its requests miss 500 ms and a backlog is left unfinished); the
  // shared pool gets the chat pool's GPUs once the chat peak ends.
  const double small_static_slo = class_of(r, "small_static").get("slo_attainment");
  const double small_shared_slo = class_of(r, "small_shared").get("slo_attainment");
  INFO("small model SLO attainment static " << small_static_slo << ", shared " << small_shared_slo
                                            << "; shared GPU-hours " << shared_h);
  CHECK(small_static_slo < 0.5);
  CHECK(small_shared_slo > 0.85);
  CHECK(pool_of(r, "small_static").get("unfinished") > 100'000);
  CHECK(pool_of(r, "small_shared").get("unfinished") < 1'000);
  // The price: the chat pool's scale-ups cold-start (60.25 s) while its peak has begun.
  CHECK(class_of(r, "chat_static").get("slo_attainment") > 0.99);
  CHECK(class_of(r, "chat_shared").get("slo_attainment") > 0.9);
  // Energy (the scenario's cluster.energy): a static pool's GPUs idle at 70 W for the whole
  // hour (configs/hardware/h100-sxm.yaml's idle_power_w), 3 x 70 x 3600 J for chat.
  CHECK(object_field(pool_of(r, "chat_static"), "energy", "idle_energy_j") == Approx(3 * 70.0 * 3600).epsilon(1e-9));
  CHECK(object_field(pool_of(r, "small_static"), "energy", "idle_energy_j") == Approx(70.0 * 3600).epsilon(1e-9));
  // The shared pools' idle energy is 70 W over their GPU-hours, which are fewer, so the
  // shared budget draws less energy than the static split.
  const auto kwh = [&](const char* pool) { return object_field(pool_of(r, pool), "energy", "energy_kwh"); };
  const double static_kwh = kwh("chat_static") + kwh("small_static");
  const double shared_kwh = kwh("chat_shared") + kwh("small_shared");
  INFO("energy static " << static_kwh << " kWh, shared " << shared_kwh << " kWh");
  CHECK(object_field(pool_of(r, "chat_shared"), "energy", "idle_energy_j") ==
        Approx(70.0 * 3600 * pool_of(r, "chat_shared").get("gpu_hours")).epsilon(1e-9));
  CHECK(shared_kwh < 0.9 * static_kwh);
  // Fewer chat replicas batch more decodes per step: less energy per output token.
  CHECK(object_field(pool_of(r, "chat_shared"), "energy", "energy_per_output_token_j") <
        object_field(pool_of(r, "chat_static"), "energy", "energy_per_output_token_j"));
}

}  // namespace whatif_multi_model_test
