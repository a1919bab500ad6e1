// The kernels cost model prices a quiet stretch of decode steps at once
// (KernelCostModel::decode_run_costs, sim/engine/decode_run.cpp): each step's cost must be
// step_cost's for that step's shape, field by field and bit for bit, wherever the stretch
// lies on the decode-attention curve (inside the measured lengths, across several of them,
// beyond the longest) and for batches inside and past the CUDA-graph sizes.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/hardware/kernel_cost_model.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/model_loader.h"
#include "hardware/same_step_cost.h"

namespace kernel_decode_run_test {

using namespace servesim;

namespace {

const std::string kRoot = std::string(SERVESIM_SOURCE_DIR) + "/data/kernels";

}  // namespace

TEST_CASE("kernels cost model: a decode run's costs are each step's own", "[hardware][kernels]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const Deployment dep{};
  const std::string set = "h100_sxm/vllm-0.14.0";
  const auto tables = load_kernel_tables(kRoot + "/" + set, set, kernel_table_query(model, dep));
  for (const int graph_max : {0, 512}) {
    // Two models: the run's prices must not depend on what the step-by-step one cached.
    const KernelCostModel run_model(model, hw, dep, tables, graph_max);
    const KernelCostModel step_model(model, hw, dep, tables, graph_max);
    // Mean lengths from a few tokens to past any measured length (1M tokens a sequence),
    // each start just below a power of two, where the tables' lengths sit, so that a run
    // of 64 steps of one sequence crosses one.
    for (const std::int64_t seqs : {1, 3, 8, 37, 300, 600}) {
      for (const std::int64_t per_seq : {0, 100, 1000, 2040, 4090, 16370, 131060, 1000000}) {
        const std::int64_t context = seqs * per_seq + seqs / 2;
        std::vector<StepCost> costs(64);
        run_model.decode_run_costs(seqs, context, costs);
        for (std::size_t k = 0; k < costs.size(); ++k) {
          BatchShape b;
          b.decode_seqs = seqs;
          b.decode_context_sum = context + static_cast<std::int64_t>(k) * seqs;
          INFO("graphs " << graph_max << ", " << seqs << " sequences from " << context << ", step " << k);
          testing::require_same_step_cost(costs[k], step_model.step_cost(b));
        }
      }
    }
  }
}

}  // namespace kernel_decode_run_test
