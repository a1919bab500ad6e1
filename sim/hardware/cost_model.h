#pragma once
// What one engine step costs. A cost model is pure: it never reads the clock, and equal
// batch shapes give equal costs. The engine turns `total_ns` into a step-end event.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/model/batch_shape.h"

namespace servesim {

struct StepCost {
  Tick total_ns = 1;     // at least 1 for any non-empty batch, so the clock always moves
  Tick compute_ns = 0;   // time of operators bound by FLOPs
  Tick memory_ns = 0;    // time of operators bound by memory traffic
  Tick comm_ns = 0;      // collective communication (TP all-reduce, PP sends)
  Tick overhead_ns = 0;  // fixed per-step, per-layer and per-kernel overheads
  // `table` cost model: operators of this step the table's measured range did not cover,
  // so the roofline timed them.
  int table_fallback_ops = 0;
  // Work of the step per GPU, for utilisation figures (MFU, bandwidth use); 0 from cost
  // models without operators (constant, linear).
  double flops = 0;
  double bytes = 0;  // device memory read + written
};

// One operator's share of a step, for `servesim step --json` and attribution.
struct OpTiming {
  std::string name;
  double flops = 0;
  double bytes = 0;       // read + written
  double comm_bytes = 0;
  double compute_s = 0;
  double memory_s = 0;
  double comm_s = 0;
  double overhead_s = 0;  // fixed per-launch part of time_s (kernel_overhead x launches)
  double time_s = 0;      // what the op contributes to the step
  std::string bound;      // "compute" | "memory" | "communication" | "overhead"
  // Where time_s comes from: "roofline", "table", or "roofline (outside table)" when a
  // table operator was asked for a size it was not measured at.
  std::string source = "roofline";
  // Communication operators: the link that decides their time, "nvlink" (the profile's
  // interconnect: NVLink, or PCIe on PCIe cards) when the group fits in one interconnect
  // domain, "network" when it spans machines (HardwareSpec::interconnect_domain_gpus).
  // Empty for other operators.
  std::string link;
  // Communication operators: how they run. Inside the domain "ring" (the roofline) or
  // "custom all-reduce" (the kernels model's measured rows), "send/recv" for pp_transfer;
  // across machines NCCL's choice for the size, "NCCL tree/LL", "NCCL ring/LL128", ...
  // (sim/hardware/nccl_all_reduce.h), or "one machine's all-reduce (floor)" when the
  // same buffer inside one machine costs more. Empty for other operators.
  std::string algorithm;
};

// A row of a breakdown that is time and no operator (the step's fixed CPU overhead, the
// pipeline's bubble): all of it counts as overhead.
inline OpTiming overhead_timing(std::string name, double time_s) {
  OpTiming t;
  t.name = std::move(name);
  t.time_s = time_s;
  t.overhead_s = time_s;
  t.bound = "overhead";
  return t;
}

// A decode run's step from decode_run_memory_costs' parts.
inline StepCost run_step_cost(const StepCost& shared, Tick memory_ns) {
  StepCost cost = shared;
  cost.memory_ns = memory_ns;
  cost.total_ns = std::max<Tick>(1, cost.compute_ns + cost.memory_ns + cost.comm_ns);
  return cost;
}

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Duration of one step computing `batch`. REQUIRES: !batch.empty().
  virtual StepCost step_cost(const BatchShape& batch) const = 0;
  // The costs of out.size() decode-only steps of `seqs` sequences whose context sum is
  // `context_sum` in the first and grows by `seqs` a step (a replica's quiet stretch,
  // sim/engine/decode_run.cpp): out[k] is step_cost of that shape, bit for bit. A model may
  // share the work the steps have in common; this one prices each. REQUIRES: seqs >= 1.
  virtual void decode_run_costs(std::int64_t seqs, std::int64_t context_sum, std::span<StepCost> out) const {
    BatchShape batch;
    batch.decode_seqs = seqs;
    for (std::size_t k = 0; k < out.size(); ++k) {
      batch.decode_context_sum = context_sum + static_cast<std::int64_t>(k) * seqs;
      out[k] = step_cost(batch);
    }
  }
  // decode_run_costs for a model whose run steps differ in their memory time alone:
  // `shared` is every step's cost but for memory_ns and total_ns, memory_ns[k] step k's,
  // and step k's cost is run_step_cost(shared, memory_ns[k]), decode_run_costs' out[k] bit
  // for bit. Returns false, writing nothing, where the steps differ in more (this one): a
  // decode run then keeps whole costs. A run keeps 8 bytes a priced step instead of a
  // StepCost's 64, and applies its steps with the shared parts read once.
  virtual bool decode_run_memory_costs(std::int64_t seqs, std::int64_t context_sum, StepCost& shared,
                                       std::span<Tick> memory_ns) const {
    (void)seqs, (void)context_sum, (void)shared, (void)memory_ns;
    return false;
  }
  // Per-operator breakdown of the same step (empty for models without operators).
  virtual std::vector<OpTiming> breakdown(const BatchShape& batch) const { (void)batch; return {}; }
  virtual std::string describe() const = 0;
};

}  // namespace servesim
