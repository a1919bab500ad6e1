// Where no table path applies (heads the attention tables do not hold, MLA, batches past
// the cached sizes), the kernels cost model prices a step operator by operator, keeping
// each operator's price by the step's rows and pricing only its attention anew
// (KernelCostModel::price_ops). A step's cost must then be the sum of its operators'
// prices in op-graph order -- the breakdown, worked here in the same order -- bit for bit,
// whatever shape of the same rows was priced before it (other contexts, other chunks).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/hardware/kernel_cost_model.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/model_loader.h"
#include "hardware/same_step_cost.h"

namespace kernel_known_ops_test {

using namespace servesim;

namespace {

const std::string kRoot = std::string(SERVESIM_SOURCE_DIR) + "/data/kernels";

// The step's cost from its breakdown, added as pricing every operator adds it.
StepCost cost_of_breakdown(const KernelCostModel& model, const BatchShape& batch) {
  double sums[3] = {0, 0, 0};
  StepCost cost;
  for (const OpTiming& t : model.breakdown(batch)) {
    sums[t.bound == "communication" ? 2 : (t.bound == "compute" ? 0 : 1)] += t.time_s;
    cost.flops += t.flops;
    cost.bytes += t.bytes;
    cost.table_fallback_ops += t.source == "roofline (outside table)" ? 1 : 0;
  }
  cost.compute_ns = ticks_from_seconds(sums[0]);
  cost.memory_ns = ticks_from_seconds(sums[1]);
  cost.comm_ns = ticks_from_seconds(sums[2]);
  cost.total_ns = std::max<Tick>(1, cost.compute_ns + cost.memory_ns + cost.comm_ns);
  return cost;
}

BatchShape decode(std::int64_t seqs, std::int64_t context_sum) {
  BatchShape b;
  b.decode_seqs = seqs;
  b.decode_context_sum = context_sum;
  return b;
}

// `chunks` prompt chunks of `tokens` new tokens in all, each with `past` cached tokens,
// beside `seqs` decodes (each `per_seq` long).
BatchShape mixed(int chunks, std::int64_t tokens, std::int64_t past, std::int64_t seqs, std::int64_t per_seq,
                 std::int64_t extra_sampled = 0) {
  BatchShape b;
  for (int c = 0; c < chunks; ++c) {
    const std::int64_t n = tokens / chunks + (c < tokens % chunks ? 1 : 0);
    b.prefills.push_back({n, past, c % 2 == 0});
  }
  b.decode_seqs = seqs;
  b.decode_context_sum = seqs * per_seq;
  b.extra_sampled_tokens = extra_sampled;
  return b;
}

// The shapes, in an order where each row count comes back with another context or other
// chunks after it was first priced.
std::vector<BatchShape> shapes() {
  std::vector<BatchShape> out;
  for (const std::int64_t per_seq : {10, 900, 5000, 70000})
    for (const std::int64_t seqs : {1, 3, 8, 37, 300, 600, 20000}) out.push_back(decode(seqs, seqs * per_seq + seqs / 3));
  for (const std::int64_t past : {0, 700, 12000})
    for (const int chunks : {1, 2, 5}) {
      out.push_back(mixed(chunks, 512, past, 0, 0));
      out.push_back(mixed(chunks, 512, past, 12, 1500));
      out.push_back(mixed(chunks, 500, past, 12, 4000));     // the same tokens: 512
      out.push_back(mixed(chunks, 2040, past, 8, 900, 3));   // sampled rows beyond the chunks'
      out.push_back(mixed(chunks, 17000, past, 0, 0));       // past the cached sizes
    }
  return out;
}

struct Case {
  std::string model;
  std::string hardware;
  std::string set;
  Deployment dep;
};

Deployment deployment(int tp, int pp) {
  Deployment d;
  d.tp = tp;
  d.pp = pp;
  return d;
}

constexpr std::int64_t kCachedRows = 16384;  // KernelCostModel::kMaxCachedRows

}  // namespace

TEST_CASE("kernels cost model: a step priced by its known operators is the sum of its breakdown",
          "[hardware][kernels]") {
  // llama-3.2-1b: heads no attention table holds, so every step is priced by operators (at
  // tp 1, 2 and pp 2: all-reduce and stage transfers); llama-4-scout: its prompt steps, and
  // MoE; deepseek-v3: MLA, whose prompt steps list every operator, and whose decode steps
  // take the kept prices on the vllm set, which has no MLA decode table.
  const std::vector<Case> cases = {{"llama-3.2-1b", "h100-sxm", "h100_sxm/vllm-0.14.0", deployment(1, 1)},
                                   {"llama-3.2-1b", "h100-sxm", "h100_sxm/vllm-0.14.0", deployment(2, 1)},
                                   {"llama-3.2-1b", "h100-sxm", "h100_sxm/vllm-0.14.0", deployment(1, 2)},
                                   {"llama-4-scout", "h100-sxm", "h100_sxm/vllm-0.14.0", deployment(4, 1)},
                                   {"deepseek-v3", "h200", "h200_sxm/sglang-0.5.14", deployment(8, 1)},
                                   {"deepseek-v3", "h100-sxm", "h100_sxm/vllm-0.14.0", deployment(8, 1)}};
  for (const Case& c : cases) {
    const ModelSpec model = load_model(c.model);
    const HardwareSpec hw = load_hardware(c.hardware);
    const auto tables = load_kernel_tables(kRoot + "/" + c.set, c.set, kernel_table_query(model, c.dep));
    // The shapes that no table path prices (step_cost): these go operator by operator.
    const bool decodes_by_ops = !tables->generation_attention;
    const bool prompts_by_ops = model.is_mla() || !tables->context_attention || !tables->generation_attention;
    int compared = 0;
    for (const int graph_max : {0, 512}) {
      const KernelCostModel priced(model, hw, c.dep, tables, graph_max);
      const KernelCostModel listed(model, hw, c.dep, tables, graph_max);
      for (const BatchShape& b : shapes()) {
        const bool decode_only = b.prefills.empty() && b.extra_sampled_tokens == 0;
        const bool by_ops = b.total_tokens() > kCachedRows || (decode_only ? decodes_by_ops : prompts_by_ops);
        if (!by_ops) continue;
        ++compared;
        INFO(c.model << " tp " << c.dep.tp << " pp " << c.dep.pp << ", graphs " << graph_max << ": "
                     << b.prefills.size() << " chunks of " << b.prefill_tokens() << " tokens, " << b.decode_seqs
                     << " decodes over " << b.decode_context_sum);
        testing::require_same_step_cost(priced.step_cost(b), cost_of_breakdown(listed, b));
      }
    }
    INFO(c.model << ": " << compared << " shapes priced by operators");
    CHECK(compared >= 20);
  }
}

}  // namespace kernel_known_ops_test
