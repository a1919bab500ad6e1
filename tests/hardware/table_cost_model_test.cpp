// The `table` cost model against rows picked by hand from Vidur's H100 Llama-2-7B profile
// (data/profiling/vidur_h100_Llama-2-7b-hf_mlp.csv; ms per layer, tp = 1):
//   tokens  attn_pre_proj  mlp_up_proj  add    emb    attn_rope
//   992     0.148          0.251        0.007  0.03   0.021
//   1000    0.148          0.2485       0.007  0.03   0.021
//   1024    0.151          0.256        0.007  0.03   0.021
//   4096    0.584 / 0.593  0.987 / 0.999 0.031 0.119  0.0835 / 0.084   (measured twice)
#include <catch2/catch.hpp>

#include <string>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/hardware/table_cost_model.h"
#include "sim/scenario/model_loader.h"

namespace table_cost_model_test {

using namespace servesim;

namespace {

const std::string kTable = std::string(SERVESIM_SOURCE_DIR) + "/data/profiling/vidur_h100_Llama-2-7b-hf_mlp.csv";

const OpTiming& find(const std::vector<OpTiming>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (o.name == name) return o;
  FAIL("no op " << name);
  return ops.front();
}

BatchShape prefill(std::int64_t n) {
  BatchShape b;
  b.prefills.push_back({n, 0, true});
  return b;
}

}  // namespace

TEST_CASE("vidur table: reads medians by tp and operator - averaging repeated token counts", "[fidelity]") {
  const VidurOpTable t = read_vidur_table(kTable);
  CHECK(t.n_embd == 4096);
  CHECK(t.n_head == 32);
  CHECK(t.n_kv_head == 32);
  CHECK(t.n_expanded_embd == 11008);
  CHECK(t.tp_degrees() == std::vector<int>{1, 2, 4, 8});
  const auto& up = t.series.at(1).at("mlp_up_proj");
  CHECK(up.size() == 259);  // 261 rows at tp 1, two token counts measured twice
  CHECK(up.front().first == 1);
  CHECK(up.front().second == Approx(0.064));
  CHECK(up.back().first == 4096);
  CHECK(up.back().second == Approx((0.987 + 0.999) / 2));
  CHECK(interpolate_ms(up, 996).value() == Approx((0.251 + 0.2485) / 2));
  CHECK(interpolate_ms(up, 1000).value() == Approx(0.2485));
  CHECK_FALSE(interpolate_ms(up, 4097).has_value());
  CHECK_FALSE(interpolate_ms(up, 0.5).has_value());
}

TEST_CASE("table cost model: table operators take the measured time per layer - the rest the roofline", "[fidelity]") {
  const ModelSpec m = load_model("llama-2-7b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  CostModelSpec spec;
  spec.kind = "table";
  spec.table_path = kTable;
  const auto cm = make_cost_model(spec, m, hw, Deployment{});
  const auto ops = cm->breakdown(prefill(1024));
  // 32 layers x the per-layer medians at 1024 tokens.
  CHECK(find(ops, "qkv_proj").time_s == Approx(0.151e-3 * 32));
  CHECK(find(ops, "qkv_proj").source == "table");
  CHECK(find(ops, "gate_up_proj").time_s == Approx(0.256e-3 * 32));
  CHECK(find(ops, "attn_residual_add").time_s == Approx(0.007e-3 * 32));
  CHECK(find(ops, "mlp_residual_add").time_s == Approx(0.007e-3 * 32));
  CHECK(find(ops, "attn_rope").time_s == Approx(0.021e-3 * 32));
  CHECK(find(ops, "embedding").time_s == Approx(0.03e-3));  // once per step
  // Attention and lm_head are not in the table: the roofline times them, unflagged.
  const RooflineCostModel rf(m, hw, Deployment{});
  const auto roof = rf.breakdown(prefill(1024));
  CHECK(find(ops, "attn_prefill").time_s == Approx(find(roof, "attn_prefill").time_s));
  CHECK(find(ops, "attn_prefill").source == "roofline");
  CHECK(find(ops, "lm_head").time_s == Approx(find(roof, "lm_head").time_s));
  // Interpolated: 996 tokens sit halfway between 992 and 1000.
  const auto mid = cm->breakdown(prefill(996));
  CHECK(find(mid, "gate_up_proj").time_s == Approx((0.251 + 0.2485) / 2 * 1e-3 * 32));
  // The step adds up its operators and the profile's fixed overheads.
  double sum_s = 0;
  for (const auto& o : ops) sum_s += o.time_s;
  const StepCost c = cm->step_cost(prefill(1024));
  CHECK(static_cast<double>(c.total_ns) == Approx(sum_s * 1e9).margin(20));
  CHECK(c.table_fallback_ops == 0);
}

TEST_CASE("table cost model: outside the measured range it falls back to the roofline and says so", "[fidelity]") {
  CostModelSpec spec;
  spec.kind = "table";
  spec.table_path = kTable;
  const auto cm = make_cost_model(spec, load_model("llama-2-7b"), load_hardware("h100-sxm"), Deployment{});
  const auto* table = dynamic_cast<const TableCostModel*>(cm.get());
  REQUIRE(table != nullptr);
  // 5000 tokens > 4096, the largest measured: all 11 table operators (embedding, 2 norms,
  // QKV, rope, O, 2 adds, gate_up, act, down) fall back.
  const StepCost c = cm->step_cost(prefill(5000));
  CHECK(c.table_fallback_ops == 11);
  CHECK(table->fallback_ops() == 11);
  const auto ops = cm->breakdown(prefill(5000));
  CHECK(find(ops, "qkv_proj").source == "roofline (outside table)");
  CHECK(table->fallback_ops() == 22);
  CHECK(table->table_lookups() == 22);
  // Inside the range again: no new fallbacks.
  (void)cm->step_cost(prefill(4000));
  CHECK(table->fallback_ops() == 22);
  CHECK(table->table_lookups() == 33);
}

TEST_CASE("table cost model: a table for another model - TP degree or file is refused", "[fidelity]") {
  CostModelSpec spec;
  spec.kind = "table";
  spec.table_path = kTable;
  const HardwareSpec hw = load_hardware("h100-sxm");
  CHECK_THROWS_WITH(make_cost_model(spec, load_model("llama-3-8b"), hw, Deployment{}),
                    Catch::Contains("n_kv_head (KV heads) 32, the model llama-3-8b has 8"));
  Deployment tp16;
  tp16.tp = 16;
  CHECK_THROWS_WITH(make_cost_model(spec, load_model("llama-2-7b"), hw, tp16),
                    Catch::Contains("no rows for tp=16 (it has tp 1, 2, 4, 8)"));
  // Vidur profiles dense grouped-query layers: experts and latent attention are refused.
  Deployment tp8;
  tp8.tp = 8;
  CHECK_THROWS_WITH(make_cost_model(spec, load_model("mixtral-8x7b"), hw, tp8),
                    Catch::Contains("mixture-of-experts MLPs: use the roofline"));
  CHECK_THROWS_WITH(make_cost_model(spec, load_model("deepseek-v3"), hw, tp8),
                    Catch::Contains("mixture-of-experts MLPs: use the roofline"));
  Deployment fp8;
  fp8.weights = Dtype::fp8;
  CHECK_THROWS_WITH(make_cost_model(spec, load_model("llama-2-7b"), hw, fp8), Catch::Contains("16-bit"));
  servesim::testing::TempDir dir("table");
  spec.table_path = dir.write("bad.csv", "num_tokens,ms\n1,2\n").string();
  try {
    make_cost_model(spec, load_model("llama-2-7b"), hw, Deployment{});
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "cost_model.table");
    CHECK(e.message().find("bad.csv:1") != std::string::npos);
    CHECK(e.message().find("not a Vidur per-operator table") != std::string::npos);
  }
}

}  // namespace table_cost_model_test
