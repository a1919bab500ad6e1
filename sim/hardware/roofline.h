#pragma once
// The roofline cost model: every operator of the step (sim/model/op_graph.h) is timed from
// its FLOPs and bytes at derated peaks, with shape-dependent terms where real kernels
// depart from max(compute, memory): GEMMs near the ridge, a per-query-row cost in prefill
// attention, a decode-attention bandwidth that depends on the number of sequences, and a
// fixed cost per kernel launch. Collectives take bytes over derated link bandwidth plus a
// latency per launch; fixed per-step and per-layer overheads are added on top.
// docs/cost-model.md section 2 has the formulas and the fit.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/hardware/nccl_all_reduce.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"
#include "sim/model/op_graph.h"

namespace servesim {

// The format a deployment's GEMMs multiply in: fp8 checkpoints run fp8 x fp8 tensor-core
// GEMMs; int8 weights do so only with int8 activations (W8A8); int4/int8 weight-only
// quantisation dequantises to the activation format. Its peak is the roofline's GEMM rate
// and the power model's full tensor-core activity.
Dtype gemm_math(const Deployment& dep);

// An operator's row of a breakdown with its name and work filled in, before its times.
inline OpTiming timing_of_work(const OpCost& op) {
  OpTiming t;
  t.name = op.name;
  t.flops = op.flops;
  t.bytes = op.bytes_read + op.bytes_written;
  t.comm_bytes = op.comm_bytes;
  return t;
}

class RooflineCostModel : public CostModel {
 public:
  // REQUIRES: deployment_problem(model, dep).empty(); peaks and bandwidths > 0.
  RooflineCostModel(ModelSpec model, HardwareSpec hw, Deployment dep);
  // Pinned in place: the decode-step cache refers to model_.
  RooflineCostModel(const RooflineCostModel&) = delete;
  RooflineCostModel& operator=(const RooflineCostModel&) = delete;

  StepCost step_cost(const BatchShape& batch) const override;
  // From the decode template of `seqs`, found once for the whole run.
  void decode_run_costs(std::int64_t seqs, std::int64_t context_sum, std::span<StepCost> out) const override;
  // One entry per operator, then one "overhead" entry; their time_s add up to the step.
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override;
  std::string describe() const override;

  // Seconds of one operator, with the side that bounds it. Works for any OpCost, also
  // one built by hand (calibration times single kernels this way).
  OpTiming time_op(const OpCost& op) const;
  // time_op's time_s alone: a fit prices every measured row at every trial, and building
  // the timing's strings took a third of its time.
  double op_time_s(const OpCost& op) const;
  // time_op's figures without its strings, for a caller that prices every step.
  struct OpBounds {
    double compute_s, memory_s, comm_s, body_s, launch_s;
  };
  OpBounds op_bounds(const OpCost& op) const;
  // The step made of these operators (as listed by step_ops for this model and
  // deployment), plus the fixed overheads. step_cost(batch) == cost_of(step_ops(...)).
  StepCost cost_of(std::span<const OpCost> ops) const;
  // Fixed seconds per step: step_overhead_s + layer_overhead_s x layers of the stage.
  double overhead_s() const;
  // The link a communication operator of this deployment crosses: "network" when its
  // group spans more than one interconnect domain (the tensor-parallel group for an
  // all-reduce, the pipeline's GPUs for pp_transfer), else "nvlink"; "" for other kinds.
  const char* link_of(const OpCost& op) const;
  // How a communication operator runs, for reports: "ring" (an all-reduce inside the
  // domain), "send/recv" (pp_transfer), or across machines NCCL's choice for its size
  // ("NCCL tree/LL", ...; nccl_all_reduce.h) or "one machine's all-reduce (floor)" when
  // the floor below is the larger; "" for other kinds.
  const char* algorithm_of(const OpCost& op) const;
  // An all-reduce across machines, one call of `buffer_bytes` (the M x hidden activations,
  // not the ring's bytes per GPU): NCCL's cheapest algorithm and protocol, no cheaper than
  // `floor_s`, what the same buffer costs inside one machine (no collective that crosses
  // the network beats the one that does not). REQUIRES: the tp group crosses the domain.
  struct CrossMachine {
    double time_s = 0;
    const char* algorithm = "";
  };
  CrossMachine cross_machine_all_reduce(double buffer_bytes, double floor_s) const;
  // The roofline's all-reduce of one call's buffer among the domain's GPUs: the floor
  // above when no measured one is at hand.
  double domain_all_reduce_s(double buffer_bytes) const;
  // One call's buffer of an all-reduce operator: its comm_bytes per call over the ring's
  // 2 (tp - 1) / tp.
  double all_reduce_buffer_bytes(const OpCost& op) const;

  const HardwareSpec& hardware() const { return hw_; }
  const ModelSpec& model() const { return model_; }
  const Deployment& deployment() const { return dep_; }

 private:
  struct OpSeconds {
    double compute_s = 0;  // FLOPs at the derated peak
    double memory_s = 0;   // bytes at the derated bandwidth
    double comm_s = 0;
    double body_s = 0;     // the op's time without launch overhead
    double launch_s = 0;   // kernel_overhead x launches
    const char* algorithm = "";  // communication operators: algorithm_of's answer
  };
  // The arithmetic of time_op without building strings: step_cost runs once per step.
  OpSeconds op_seconds(const OpCost& op) const;

  // What cost_of adds up for one operator.
  struct PricedOp {
    double flops = 0;
    double bytes = 0;  // read + written
    double launch_s = 0;
    double body_s = 0;
    int bucket = 0;  // 0 compute-bound, 1 memory-bound, 2 communication
  };
  PricedOp priced(const OpCost& op) const;
  PricedOp priced(const OpCost& op, const OpSeconds& seconds) const;
  // Decode attention (op_seconds' "attn_decode" case) at a KV bandwidth already known,
  // and that bandwidth for a number of sequences: the decode-step template keeps it.
  OpSeconds decode_attention_seconds(const OpCost& op, double kv_bytes_per_s) const;
  double decode_kv_bytes_per_s(double rows) const;
  struct Sums {
    double compute_s = 0, memory_s = 0, comm_s = 0, launch_s = 0, flops = 0, bytes = 0;
    void add(const PricedOp& p);
    // add() of an operator given as what it adds to each sum, in the order of the fields
    // (its body in its bucket's, 0 in the other two): no branch, and adding +0.0 to a sum
    // that is >= +0.0 leaves it as it was, so the sums come out bit for bit as add()'s.
    void add(const std::array<double, 6>& row) {
      compute_s += row[0];
      memory_s += row[1];
      comm_s += row[2];
      launch_s += row[3];
      flops += row[4];
      bytes += row[5];
    }
  };
  StepCost assemble(const Sums& sums) const;

  // Decode-only steps, most steps of a run, are priced from a template cached by their
  // number of sequences: every operator but decode attention depends on that number alone
  // (op_graph.h), so each one's timing is computed once, and the step's sums are still
  // added in operator order, so the cost is bit-identical to cost_of(step_ops(...)).
  // The cache is not thread-safe: a cost model serves one simulation, on one thread.
  struct DecodeTemplate {
    std::size_t size = 0;
    std::size_t attention_index = 0;
    std::array<PricedOp, StepOps::kCapacity> ops{};
    // The sums of ops[0, attention_index) added in order from zero: what the step's loop
    // holds when it reaches attention, so starting from it changes no rounding.
    Sums before_attention;
    // The operators after attention as rows for Sums::add.
    std::array<std::array<double, 6>, StepOps::kCapacity> after{};
    std::size_t after_count = 0;
    // Decode attention's KV bandwidth depends on its rows (sequences) alone: the
    // template's attention rows and that bandwidth, reused while the rows match.
    double attention_rows = 0;
    double attention_kv_bytes_per_s = 0;
  };
  const DecodeTemplate& decode_template(const BatchShape& batch) const;
  // Decode attention of `batch` priced, with its template's KV bandwidth where it applies.
  PricedOp decode_attention_priced(const DecodeTemplate& t, const BatchShape& batch) const;
  // The decode step priced from its template and its attention.
  StepCost decode_step_cost(const DecodeTemplate& t, const PricedOp& attention) const;

  static constexpr std::int64_t kMaxTemplateSeqs = 4096;  // larger batches are priced afresh
  StepCost decode_step_cost(const BatchShape& batch) const;

  // Steps with prompt chunks or speculative rows, outside MLA (whose kv_b_proj depends on
  // the chunks' cached tokens): every operator but the attention kernels depends on the
  // step's tokens alone, but the final norm and lm_head, which depend on its sampled rows
  // alone (op_graph.cpp). So the operators before attention (as sums) and after it (as
  // rows) are cached by the token count, the final two by the sampled rows, and the
  // attention kernels are priced afresh; the sums are still added in operator order, so
  // the cost is bit-identical to cost_of(step_ops(...)).
  // Both caches are flat arrays of rows (the before-attention sums are a row too, in the
  // fields' order): one step reads one stretch of memory, cold or not, instead of a chain
  // of pointers.
  using Row = std::array<double, 6>;
  static constexpr std::int64_t kMaxTemplateTokens = 16384;  // larger steps are priced afresh
  static constexpr std::int64_t kMaxTemplateSampled = 8192;
  static constexpr std::size_t kTailRows = 2;  // final_norm, lm_head
  // The token count's rows (before_attention, then the operators after attention up to the
  // final norm), built from this step's list if not yet; null where the step's list does
  // not have the expected form (then it is priced afresh).
  const Row* tokens_template(const BatchShape& batch, std::int64_t sampled) const;
  StepCost mixed_step_cost(const BatchShape& batch, const Row* rows, std::int64_t sampled) const;
  static Row row_of(const PricedOp& p);

  ModelSpec model_;
  HardwareSpec hw_;
  Deployment dep_;
  double gemm_flops_per_s_;       // derated peak in the GEMMs' math format
  double attention_flops_per_s_;  // derated bf16 peak
  double memory_bytes_per_s_;     // derated HBM bandwidth
  double elementwise_bytes_per_s_;
  double link_bytes_per_s_;       // derated interconnect bandwidth
  // Collectives whose group spans machines (docs/cost-model.md, "Across machines"): an
  // all-reduce is NCCL's, priced by NCCL's own model over the raw link figures
  // (nccl_all_reduce.h), with the same buffer's all-reduce inside one machine as a floor.
  double network_bytes_per_s_ = 0;          // derated network bandwidth (pp_transfer)
  bool all_reduce_crosses_ = false;         // tp > interconnect_domain_gpus
  bool pp_transfer_crosses_ = false;        // tp x pp > interconnect_domain_gpus
  NcclGroup nccl_group_;                    // the tp group, when it crosses
  int stage_layers_;
  AttentionKernels attention_;  // refers to model_, declared above it
  mutable std::vector<std::unique_ptr<DecodeTemplate>> decode_templates_;  // by sequences
  mutable std::vector<Row> tokens_rows_;  // tokens_stride_ rows per token count
  mutable std::vector<std::uint8_t> tokens_built_;
  mutable std::size_t tokens_stride_ = 0;  // 1 + the operators after attention; 0 before the first
  mutable std::vector<Row> tail_rows_;     // kTailRows per sampled-row count
  mutable std::vector<std::uint8_t> tail_built_;
};

}  // namespace servesim
