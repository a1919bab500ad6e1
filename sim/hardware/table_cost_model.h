#pragma once
// The `table` cost model: per-layer operator times measured by Vidur's profiler
// (sim/hardware/vidur_table.h), interpolated linearly in tokens at the deployment's TP
// degree. Operators the table does not hold (attention, lm_head, final norm, all-reduces)
// and sizes outside its measured range are timed by the roofline; the latter are flagged
// in the breakdown ("roofline (outside table)"), counted per step in
// StepCost::table_fallback_ops and over the model's life in fallback_ops().
// docs/cost-model.md section 2 ("table") has the operator mapping.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/roofline.h"
#include "sim/hardware/vidur_table.h"

namespace servesim {

class TableCostModel : public CostModel {
 public:
  // Throws ConfigError (key "cost_model.table") when the table was measured for another model shape
  // or has no rows for dep.tp. REQUIRES: as RooflineCostModel.
  TableCostModel(ModelSpec model, HardwareSpec hw, Deployment dep, VidurOpTable table);

  StepCost step_cost(const BatchShape& batch) const override;
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override;
  std::string describe() const override;

  // Table operators looked up, and how many of those fell back to the roofline, since
  // construction (for a run's report).
  std::int64_t table_lookups() const { return lookups_.load(); }
  std::int64_t fallback_ops() const { return fallbacks_.load(); }

 private:
  // Every operator of the step with its time; `fallbacks` counts table misses.
  std::vector<OpTiming> time_ops(const BatchShape& batch, int* fallbacks) const;

  RooflineCostModel roofline_;
  VidurOpTable table_;
  const std::map<std::string, std::vector<std::pair<double, double>>>* series_ = nullptr;
  int stage_layers_ = 0;
  mutable std::atomic<std::int64_t> lookups_{0};
  mutable std::atomic<std::int64_t> fallbacks_{0};
};

}  // namespace servesim
