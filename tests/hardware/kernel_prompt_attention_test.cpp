// The kernels cost model prices the prompt attention of a step with one prompt chunk and no
// cached prefix once per chunk length and keeps it (KernelCostModel::prefill_attention):
// most prompt steps of a workload without shared prefixes. A step must cost the same, bit
// for bit, whether its length was priced before (with other decodes beside it, or other
// lengths in between) or never, and steps the kept prices do not cover (a cached prefix,
// two chunks) must not take them.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/hardware/kernel_cost_model.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/model_loader.h"
#include "hardware/same_step_cost.h"

namespace kernel_prompt_attention_test {

using namespace servesim;

namespace {

const std::string kRoot = std::string(SERVESIM_SOURCE_DIR) + "/data/kernels";

BatchShape step(std::vector<PrefillChunk> chunks, std::int64_t seqs, std::int64_t per_seq) {
  BatchShape b;
  b.prefills = std::move(chunks);
  b.decode_seqs = seqs;
  b.decode_context_sum = seqs * per_seq;
  return b;
}

// Lengths in an order that revisits each after others, with the decodes beside it changing.
std::vector<BatchShape> shapes() {
  std::vector<BatchShape> out;
  const std::vector<std::int64_t> lengths = {1, 2, 7, 16, 100, 511, 512, 513, 1020, 3000, 8000, 8192, 16384};
  for (const std::int64_t seqs : {0, 1, 8, 200})
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const std::int64_t n = lengths[(i * 5 + static_cast<std::size_t>(seqs)) % lengths.size()];
      out.push_back(step({{n, 0, true}}, seqs, 900));
      out.push_back(step({{n, 700, true}}, seqs, 900));                 // a cached prefix: not kept
      out.push_back(step({{n / 2 + 1, 0, true}, {n / 2 + 1, 0, false}}, seqs, 900));  // two chunks: not kept
    }
  return out;
}

}  // namespace

TEST_CASE("kernels cost model: a prompt's attention priced before costs what a first pricing costs",
          "[hardware][kernels]") {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const Deployment dep;
  const std::string set = "h100_sxm/vllm-0.14.0";
  const auto tables = load_kernel_tables(kRoot + "/" + set, set, kernel_table_query(model, dep));
  REQUIRE(tables->context_attention);  // the table path that keeps the prices
  REQUIRE(tables->generation_attention);
  const KernelCostModel warm(model, hw, dep, tables, 512);
  int compared = 0;
  for (int round = 0; round < 2; ++round)  // the second round finds every length priced
    for (const BatchShape& b : shapes()) {
      const KernelCostModel cold(model, hw, dep, tables, 512);
      INFO("round " << round << ": " << b.prefills.size() << " chunks, the first " << b.prefills.front().new_tokens
                    << " new over " << b.prefills.front().past_tokens << " cached, " << b.decode_seqs << " decodes");
      testing::require_same_step_cost(warm.step_cost(b), cold.step_cost(b));
      ++compared;
    }
  CHECK(compared == 2 * 4 * 13 * 3);
}

}  // namespace kernel_prompt_attention_test
