#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/scenario/model_loader.h"

namespace cost_model_spec_test {

using namespace servesim;

namespace {

BatchShape batch_of(std::int64_t prefill, std::int64_t decode) {
  BatchShape b;
  if (prefill > 0) b.prefills.push_back({prefill, 0, true});
  b.decode_seqs = decode;
  b.decode_context_sum = decode * 100;
  return b;
}

}  // namespace

TEST_CASE("cost model spec: constant takes the same time for every batch", "[hardware]") {
  CostModelSpec spec;
  spec.kind = "constant";
  spec.constant_step_ns = 10'000'000;
  const auto cm = make_cost_model(spec, load_model("llama-3-8b"), load_hardware("h200"), Deployment{});
  CHECK(cm->step_cost(batch_of(1, 0)).total_ns == 10'000'000);
  CHECK(cm->step_cost(batch_of(8000, 200)).total_ns == 10'000'000);
  CHECK(cm->breakdown(batch_of(1, 0)).empty());
}

TEST_CASE("cost model spec: linear adds the per-token cost of every token computed", "[hardware]") {
  CostModelSpec spec;
  spec.kind = "linear";
  spec.linear_base_ns = 1'000'000;
  spec.linear_per_token_ns = 100'000;
  const auto cm = make_cost_model(spec, load_model("llama-3-8b"), load_hardware("h200"), Deployment{});
  // 512 prefill tokens + 10 decode tokens = 522 tokens: 1 ms + 52.2 ms.
  const StepCost c = cm->step_cost(batch_of(512, 10));
  CHECK(c.total_ns == 53'200'000);
  CHECK(c.overhead_ns == 1'000'000);
  CHECK(c.compute_ns == 52'200'000);
}

TEST_CASE("cost model spec: a table needs a readable file and unknown kinds list the choices", "[hardware]") {
  const ModelSpec m = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h200");
  CostModelSpec table;
  table.kind = "table";
  table.table_path = "/no/such/table.csv";
  CHECK_THROWS_WITH(make_cost_model(table, m, hw, Deployment{}), Catch::Contains("cannot open"));
  CostModelSpec typo;
  typo.kind = "roofine";
  CHECK_THROWS_WITH(make_cost_model(typo, m, hw, Deployment{}),
                    Catch::Contains("roofline | kernels | constant | linear | table"));
  CostModelSpec zero;
  zero.kind = "constant";
  CHECK_THROWS_AS(make_cost_model(zero, m, hw, Deployment{}), ConfigError);
}

TEST_CASE("cost model spec: roofline refuses a tensor-parallel degree that does not divide the heads", "[hardware]") {
  Deployment tp3;
  tp3.tp = 3;
  CHECK_THROWS_WITH(make_cost_model(CostModelSpec{}, load_model("llama-3-8b"), load_hardware("h200"), tp3),
                    Catch::Contains("tp=3"));
}

}  // namespace cost_model_spec_test
