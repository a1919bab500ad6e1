#pragma once
// Pipeline parallelism with micro-batching: wraps the cost model of one stage (roofline or
// table, whose step time is the slowest stage's) and prices a step whose batch is split
// into m micro-batches flowing through pp stages. docs/cost-model.md, "Pipeline
// micro-batching", has the formula.
#include <memory>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/model/batch_shape.h"

namespace servesim {

// Splits a batch into at most `m` non-empty micro-batches: decode sequences (and their
// context) evenly, then each prefill chunk whole to the micro-batch with the fewest tokens
// so far; speculative extra sampled rows stay with the first. Fewer units than m give
// fewer micro-batches. REQUIRES: m >= 1.
std::vector<BatchShape> split_micro_batches(const BatchShape& batch, int m);

class PipelineCostModel : public CostModel {
 public:
  // REQUIRES: stage != nullptr, pp >= 2, micro_batches >= 1.
  PipelineCostModel(std::unique_ptr<CostModel> stage, int pp, int micro_batches);

  // sum over micro-batches of the stage time + (pp - 1) x the longest; the idle part
  // (the bubble) counts as overhead.
  StepCost step_cost(const BatchShape& batch) const override;
  // The stage model's operators summed over the micro-batches, then a "pp_bubble" entry.
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override;
  std::string describe() const override;

 private:
  std::unique_ptr<CostModel> stage_;
  int pp_;
  int micro_batches_;
};

}  // namespace servesim
