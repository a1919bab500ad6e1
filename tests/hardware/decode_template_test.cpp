// The roofline prices decode-only steps from a template cached by the number of sequences,
// and steps with prompt chunks from rows cached by token count and sampled rows
// (sim/hardware/roofline.h). Both must give exactly what pricing the step's full operator
// list gives, for every model form (dense, GQA with bias, MoE, MLA + MoE with shared
// experts), parallelism and format, and for batches seen before or not.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"
#include "sim/scenario/model_loader.h"
#include "hardware/same_step_cost.h"

namespace decode_template_test {

using namespace servesim;

namespace {

struct Case {
  std::string model;
  Deployment dep;
};

// Five model forms: dense; GQA with bias, tp4, fp8 weights and KV; pp2; MoE tp2; MLA + MoE
// with shared experts, tp8 ep8 fp8.
std::vector<Case> five_models() {
  Deployment tp4;
  tp4.tp = 4;
  tp4.weights = Dtype::fp8;
  tp4.kv = Dtype::fp8;
  Deployment pp2;
  pp2.tp = 2;
  pp2.pp = 2;
  Deployment tp2;
  tp2.tp = 2;
  Deployment ep8;
  ep8.tp = 8;
  ep8.ep = 8;
  ep8.weights = Dtype::fp8;
  return {{"llama-3-8b", Deployment{}}, {"qwen2.5-72b", tp4}, {"llama-3-70b", pp2}, {"mixtral-8x7b", tp2},
          {"deepseek-v3", ep8}};
}

// A quiet stretch priced at once (decode_run_costs) gives each step's full pricing.
void check_run_matches_full_pricing(const RooflineCostModel& rf, const ModelSpec& model, const Deployment& dep,
                                    std::int64_t seqs, std::int64_t context, std::size_t steps) {
  std::vector<StepCost> costs(steps);
  rf.decode_run_costs(seqs, context, costs);
  for (std::size_t k = 0; k < costs.size(); ++k) {
    BatchShape b;
    b.decode_seqs = seqs;
    b.decode_context_sum = context + static_cast<std::int64_t>(k) * seqs;
    INFO(model.name << " run of " << seqs << " from " << context << ", step " << k);
    testing::require_same_step_cost(costs[k], rf.cost_of(step_ops(model, dep, b)));
  }
}

void check_decode_steps_match_full_pricing(const Case& c) {
  const ModelSpec model = load_model(c.model);
  const RooflineCostModel rf(model, load_hardware("h100-sxm"), c.dep);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) {
    BatchShape b;
    b.decode_seqs = 1 + static_cast<std::int64_t>(rng() % 64);  // repeats: template hits
    b.decode_context_sum = b.decode_seqs * static_cast<std::int64_t>(1 + rng() % 8000);
    INFO(c.model << " tp=" << c.dep.tp << " pp=" << c.dep.pp << " ep=" << c.dep.ep << " seqs=" << b.decode_seqs
                 << " context=" << b.decode_context_sum);
    testing::require_same_step_cost(rf.step_cost(b), rf.cost_of(step_ops(model, c.dep, b)));
  }
  for (int run = 0; run < 40; ++run) {
    const auto seqs = 1 + static_cast<std::int64_t>(rng() % 64);
    const std::int64_t context = seqs * static_cast<std::int64_t>(1 + rng() % 8000);
    check_run_matches_full_pricing(rf, model, c.dep, seqs, context, 1 + rng() % 20);
  }
}

// Prompt chunks (some ending their prompt, some not, with and without cached tokens), with
// and without decodes, and speculative verify steps (no chunks, extra sampled rows).
void check_mixed_steps_match_full_pricing(const Case& c) {
  const ModelSpec model = load_model(c.model);
  const RooflineCostModel rf(model, load_hardware("h100-sxm"), c.dep);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 600; ++i) {
    BatchShape b;
    const int chunks = static_cast<int>(rng() % 4);  // 0: a speculative verify step
    for (int k = 0; k < chunks; ++k) {
      PrefillChunk chunk;
      chunk.new_tokens = 1 + static_cast<std::int64_t>(rng() % (i % 3 == 0 ? 40 : 3000));  // repeats: hits
      chunk.past_tokens = rng() % 2 ? static_cast<std::int64_t>(rng() % 9000) : 0;
      chunk.sampled = rng() % 3 != 0;
      b.prefills.push_back(chunk);
    }
    b.decode_seqs = rng() % 2 ? static_cast<std::int64_t>(rng() % 48) : 0;
    if (chunks == 0) {
      b.decode_seqs = 1 + static_cast<std::int64_t>(rng() % 48);
      b.extra_sampled_tokens = 1 + static_cast<std::int64_t>(rng() % (4 * b.decode_seqs));
    }
    b.decode_context_sum = b.decode_seqs * static_cast<std::int64_t>(rng() % 8000);
    INFO(c.model << " tp=" << c.dep.tp << " pp=" << c.dep.pp << " chunks=" << chunks << " tokens=" << b.total_tokens()
                 << " decode seqs=" << b.decode_seqs << " extra=" << b.extra_sampled_tokens);
    testing::require_same_step_cost(rf.step_cost(b), rf.cost_of(step_ops(model, c.dep, b)));
  }
}

}  // namespace

TEST_CASE("decode steps priced from the cached template equal full pricing", "[hardware][perf]") {
  for (const Case& c : five_models()) check_decode_steps_match_full_pricing(c);
}

// Where a step's sums pass 2^53, whole numbers no longer add exactly, so any shortcut in
// the order of the additions would show: DeepSeek-V3's attention FLOPs over 4,096
// sequences of ~1.1M tokens each are about 1e16. Int4 weights add half bytes.
TEST_CASE("decode run pricing stays exact where the FLOP sums pass 2^53", "[hardware][perf]") {
  const Case deepseek = five_models().back();
  const ModelSpec model = load_model(deepseek.model);
  const RooflineCostModel rf(model, load_hardware("h100-sxm"), deepseek.dep);
  BatchShape probe;
  probe.decode_seqs = 4096;
  probe.decode_context_sum = 4096LL * 1'100'000;
  REQUIRE(rf.cost_of(step_ops(model, deepseek.dep, probe)).flops > 9007199254740992.0);  // the case is real
  for (const std::int64_t per_seq : {1'000'000LL, 1'050'000LL, 1'100'000LL, 1'200'001LL})
    check_run_matches_full_pricing(rf, model, deepseek.dep, 4096, 4096 * per_seq, 12);
  Deployment int4;
  int4.weights = Dtype::int4;
  const ModelSpec llama = load_model("llama-3-8b");
  const RooflineCostModel rf4(llama, load_hardware("h100-sxm"), int4);
  for (const std::int64_t seqs : {1LL, 7LL, 33LL, 300LL}) check_run_matches_full_pricing(rf4, llama, int4, seqs, seqs * 999, 16);
}

// MLA (DeepSeek-V3) is priced afresh: its kv_b_proj depends on the chunks' cached tokens.
TEST_CASE("steps with prompt chunks priced from the cached templates equal full pricing", "[hardware][perf]") {
  for (const Case& c : five_models()) check_mixed_steps_match_full_pricing(c);
}

}  // namespace decode_template_test
