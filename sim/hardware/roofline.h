#pragma once
// The roofline cost model: every operator of the step (sim/model/op_graph.h) takes the
// longer of its compute time and its memory time at derated peaks; collectives take
// bytes over derated link bandwidth plus a latency per launch; fixed per-step and
// per-layer overheads are added on top. docs/cost-model.md has the formulas and the fit.
#include <string>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"
#include "sim/model/op_graph.h"

namespace servesim {

class RooflineCostModel : public CostModel {
 public:
  // REQUIRES: deployment_problem(model, dep).empty(); peaks and bandwidths > 0.
  RooflineCostModel(ModelSpec model, HardwareSpec hw, Deployment dep);

  StepCost step_cost(const BatchShape& batch) const override;
  // One entry per operator, then one "overhead" entry; their time_s add up to the step.
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override;
  std::string describe() const override;

  // Seconds of one operator, with the side that bounds it.
  OpTiming time_op(const OpCost& op) const;
  // Fixed seconds per step: step_overhead_s + layer_overhead_s x layers of the stage.
  double overhead_s() const;

 private:
  struct OpSeconds {
    double compute_s = 0;
    double memory_s = 0;
    double comm_s = 0;
  };
  // The arithmetic of time_op without building strings: step_cost runs once per step.
  OpSeconds op_seconds(const OpCost& op) const;

  ModelSpec model_;
  HardwareSpec hw_;
  Deployment dep_;
  double gemm_flops_per_s_;       // derated peak in the GEMMs' math format
  double attention_flops_per_s_;  // derated bf16 peak
  double memory_bytes_per_s_;     // derated HBM bandwidth
  double link_bytes_per_s_;       // derated interconnect bandwidth
  int stage_layers_;
};

}  // namespace servesim
