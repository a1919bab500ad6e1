// The what-if library (docs/what-if.md): a chat, an embedding and a small model over a day
// on one budget of 6 GPUs (whatif-20-fleet-day): a static split 3 + 2 + 1, or autoscaled
// pools sharing the budget first come, first served or by priority.
#include "whatif/whatif_util.h"

namespace whatif_fleet_day_test {

using namespace servesim;
using namespace servesim::whatif;

namespace {

const std::vector<std::string> kPriority = {"cluster.budget_policy=priority", "cluster.pools.0.priority=100",
                                            "cluster.pools.1.priority=10", "cluster.pools.2.priority=50"};
const std::vector<std::string> kStatic = {
    "cluster.pools.0.autoscale.min_replicas=3", "cluster.pools.0.autoscale.max_replicas=3",
    "cluster.pools.1.autoscale.min_replicas=2", "cluster.pools.1.autoscale.max_replicas=2",
    "cluster.pools.2.autoscale.min_replicas=1", "cluster.pools.2.autoscale.max_replicas=1"};

double sum(const RunResult& r, const char* field) {
  return pool_of(r, "chat").get(field) + pool_of(r, "embed").get(field) + pool_of(r, "small").get(field);
}

double kwh(const RunResult& r) {
  double total = 0;
  for (const char* p : {"chat", "embed", "small"}) total += object_field(pool_of(r, p), "energy", "energy_kwh");
  return total;
}

}  // namespace

TEST_CASE("what-if 20: priority gives chat the GPUs an embedding re-index holds under first come",
          "[whatif][multi_model][budget_policy]") {
  const RunResult fc = run_scenario("whatif-20-fleet-day.yaml");
  const RunResult pr = run_scenario("whatif-20-fleet-day.yaml", kPriority);
  const RunResult st = run_scenario("whatif-20-fleet-day.yaml", kStatic);
  for (const RunResult* r : {&fc, &pr, &st}) {
    REQUIRE(r->stopped_by_time);
    REQUIRE(r->end_ns == 3600 * kNsPerSec);
    // The budget is never exceeded (INV-11; GpuBudget asserts it too), and every fleet
    // uses all of it at some point.
    CHECK(r->summary.overall.get("gpu_budget") == 6);
    CHECK(r->summary.overall.get("gpu_budget_peak_held") == 6);
  }
  // Static: min = max replicas, paid all hour: 3 + 2 + 1 GPU-hours exactly, each GPU idling
  // at 70 W (configs/hardware/h100-sxm.yaml's idle_power_w) whenever it is not stepping.
  CHECK(pool_of(st, "chat").get("gpu_hours") == Approx(3.0).epsilon(1e-12));
  CHECK(pool_of(st, "embed").get("gpu_hours") == Approx(2.0).epsilon(1e-12));
  CHECK(pool_of(st, "small").get("gpu_hours") == Approx(1.0).epsilon(1e-12));
  CHECK(pool_of(st, "chat").get("gpu_budget_starts_deferred") == 0);
  // Shared: fewer GPU-hours than the split, whatever the policy (pools shrink at night).
  INFO("GPU-hours static " << sum(st, "gpu_hours") << ", first_come " << sum(fc, "gpu_hours") << ", priority "
                           << sum(pr, "gpu_hours") << "; kWh " << kwh(st) << ", " << kwh(fc) << ", " << kwh(pr));
  CHECK(sum(fc, "gpu_hours") < 5.8);
  CHECK(sum(pr, "gpu_hours") < 5.8);
  CHECK(kwh(fc) < kwh(st));
  CHECK(kwh(pr) < kwh(st));
  // first_come reports no reclaims; priority drains embed (priority 10) for chat (100)
  // only: every replica embed gave back is one chat asked for, and small (50) is not
  // drained here: embed, ranked lowest, always had a replica above min_replicas to give.
  CHECK_FALSE(pool_of(fc, "chat").has("gpu_budget_reclaims"));
  const double embed_reclaims = pool_of(pr, "embed").get("gpu_budget_reclaims");
  CHECK(embed_reclaims >= 1);
  CHECK(pool_of(pr, "chat").get("gpu_budget_reclaims_asked") == embed_reclaims);
  CHECK(pool_of(pr, "chat").get("gpu_budget_reclaims") == 0);
  CHECK(pool_of(pr, "small").get("gpu_budget_reclaims") == 0);
  CHECK(pool_of(pr, "embed").get("gpu_budget_reclaims_asked") == 0);
  // Chat's morning under first come waits on GPUs the re-index holds: it starts fewer
  // replicas than it asks for and misses its SLO far more often than under priority.
  const double chat_fc = class_of(fc, "chat").get("slo_attainment");
  const double chat_pr = class_of(pr, "chat").get("slo_attainment");
  const double embed_fc = class_of(fc, "embed").get("slo_attainment");
  const double embed_pr = class_of(pr, "embed").get("slo_attainment");
  INFO("chat SLO first_come " << chat_fc << ", priority " << chat_pr << "; embed " << embed_fc << ", " << embed_pr);
  CHECK(pool_of(fc, "chat").get("gpu_budget_starts_deferred") > 3 * pool_of(pr, "chat").get("gpu_budget_starts_deferred"));
  CHECK(chat_fc < 0.95);
  CHECK(chat_pr > 0.97);
  CHECK(pool_of(pr, "chat").get("p99_ttft_ms") < 0.5 * pool_of(fc, "chat").get("p99_ttft_ms"));
  // The price is the re-index's: its documents wait longer.
  CHECK(embed_pr < embed_fc);
  // The static split sized for chat's peak meets chat's SLO but starves the re-index on
  // 2 replicas; the small model's evening fits its one replica in every fleet.
  CHECK(class_of(st, "chat").get("slo_attainment") > 0.99);
  CHECK(class_of(st, "embed").get("slo_attainment") < embed_pr);
  for (const RunResult* r : {&fc, &pr, &st}) CHECK(class_of(*r, "small").get("slo_attainment") > 0.99);
}

}  // namespace whatif_fleet_day_test
