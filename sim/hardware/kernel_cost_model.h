#pragma once
// The `kernels` cost model: each operator of the step (sim/model/op_graph.h) timed from
// the kernel latencies NVIDIA measured for aiconfigurator under the pool's engine and
// version on its GPU (sim/hardware/kernels/, data/kernels/README.md): dense GEMMs by shape
// and dtype, prefill and decode attention by heads, batch and length, the engine's custom
// all-reduce by message size, and whole MoE layers by expert shape. An operator the tables
// do not cover (an elementwise kernel, an unmeasured shape, dtype or tp) is timed by the
// roofline and marked so in the breakdown's `source`.
//
// What the engine adds around the kernels: decode-only steps of up to the engine's
// CUDA-graph size replay a captured graph padded to the next captured batch size (vLLM's
// cudagraph_capture_sizes), so their GEMMs, norms and all-reduces run at the padded row
// count. The tables are CUDA-graph timings, so no per-launch overhead is added; a kernel
// never takes less than the shortest kernel the tables measured. The engine's CPU time per
// step is its own (EngineConfig::overheads), not part of this model, and the hardware
// profile's step/layer/kernel overheads (the roofline's stand-ins for it) do not apply.
// docs/cost-model.md ("kernels") and docs/fidelity.md give the rules and their errors.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/hardware/roofline.h"

namespace servesim {

// The batch sizes vLLM captures CUDA graphs for, up to `max_batch`: 1, 2, 4, then every 8
// up to 256, then every 16 (vllm/config/vllm.py, VllmConfig._set_cudagraph_sizes).
std::vector<int> cuda_graph_batch_sizes(int max_batch);

class KernelCostModel : public CostModel {
 public:
  // REQUIRES: deployment_problem(model, dep).empty(); tables loaded for this model and
  // deployment (kernel_table_query). cuda_graph_max_batch 0: no CUDA graphs.
  KernelCostModel(ModelSpec model, HardwareSpec hw, Deployment dep, std::shared_ptr<const KernelTables> tables,
                  int cuda_graph_max_batch);

  StepCost step_cost(const BatchShape& batch) const override;
  void decode_run_costs(std::int64_t seqs, std::int64_t context_sum, std::span<StepCost> out) const override;
  bool decode_run_memory_costs(std::int64_t seqs, std::int64_t context_sum, StepCost& shared,
                               std::span<Tick> memory_ns) const override;
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override;
  std::string describe() const override;

  const KernelTables& tables() const { return *tables_; }
  // Rows a decode-only step of `seqs` sequences runs its GEMMs at (the padded graph size).
  std::int64_t graph_rows(std::int64_t seqs) const;

  // Seconds of one GEMM call from the table (m rows, n x k weights), or nullopt when no
  // measured site lies within two octaves of (n, k).
  std::optional<double> gemm_seconds(double m, double n, double k) const;
  // Seconds of one layer's prefill attention over `batch`'s chunks; nullopt without a table.
  std::optional<double> prefill_attention_seconds(const BatchShape& batch) const;
  // Seconds of one layer's decode attention; nullopt without a table.
  std::optional<double> decode_attention_seconds(std::int64_t seqs, std::int64_t context_sum) const;
  // Seconds of one all-reduce of `elements` bf16 values at the pool's tp; nullopt without a table.
  std::optional<double> all_reduce_seconds(double elements) const;
  // NCCL's measured all-reduce of one call's buffer among one machine's GPUs.
  // REQUIRES: tables_->nccl_node_all_reduce.
  double nccl_node_all_reduce_seconds(double buffer_bytes) const;
  // Seconds of one MoE layer's experts for `tokens` tokens; nullopt without a table.
  std::optional<double> moe_seconds(double tokens) const;

 private:
  struct Priced {
    double time_s = 0;
    double compute_s = 0;  // roofline sides, for the bound
    double memory_s = 0;
    int bucket = 0;        // 0 compute, 1 memory, 2 communication
    double flops = 0;
    double bytes = 0;
    const char* source = "table";
    bool fallback = false;  // the table was asked and did not cover the op
    const char* algorithm = "";  // communication operators (OpTiming::algorithm)
  };
  // The shape a step's operators are listed for: a decode-only step at its CUDA-graph rows.
  BatchShape padded_for_graphs(const BatchShape& batch) const;
  // Every operator of the step with its price, in op-graph order.
  void price_ops(const BatchShape& batch, std::vector<std::pair<OpCost, Priced>>* out, StepCost* cost) const;
  Priced price(const OpCost& op, const BatchShape& batch, double step_rows) const;
  Priced roofline_price(const OpCost& op, const char* source, bool fallback) const;
  // An op taking `time_s` whatever priced it: the roofline's sides pick its bound.
  static Priced priced_at(const OpCost& op, const RooflineCostModel::OpBounds& bounds, double time_s,
                          const char* source);
  double gemm_sol_s(double m, double n, double k) const;

  // A GEMM shape resolved once: its own measured site, or up to four neighbours whose
  // utilisation is borrowed, inverse-distance weighted in log2 space.
  struct GemmSite {
    struct Neighbour {
      const KernelGrid* grid;
      double n, k, weight;
    };
    std::vector<Neighbour> neighbours;  // empty: not covered
  };
  const GemmSite& gemm_site(double n, double k) const;

  ModelSpec model_;
  HardwareSpec hw_;
  Deployment dep_;
  std::shared_ptr<const KernelTables> tables_;
  RooflineCostModel roofline_;
  std::vector<int> graph_sizes_;
  double gemm_peak_flops_;
  double gemm_bytes_per_element_;
  double kv_bytes_per_element_;
  double moe_bytes_per_element_;
  // A model has a handful of GEMM shapes: a short list searched in order beats a map.
  mutable std::vector<std::pair<std::pair<double, double>, GemmSite>> gemm_sites_;
  int layers_;  // of the modelled stage
  // Decode attention at the pool's heads, by sequences: the table's value at every measured
  // length s (decode_lengths_). The grid is piecewise linear in s between those lengths
  // (and its roofline extension affine in s), so interpolating these is the grid's own
  // answer, at a binary search instead of a walk through three levels per step.
  std::vector<double> decode_lengths_;
  mutable std::vector<std::vector<double>> decode_curves_;
  double decode_attention_grid_s(double seqs, double s) const;
  // The curve of `seqs` sequences (built on first use), and its value at length s, which
  // lies in [decode_lengths_.front(), decode_lengths_.back()] below decode_lengths_[hi]
  // (hi = size: at the last length).
  const std::vector<double>& decode_curve(std::int64_t seqs) const;
  double decode_curve_at(const std::vector<double>& curve, std::size_t hi, double s) const;
  AttentionKernels attention_kernels_;  // refers to model_, declared above it

  // Sums of some of a step's priced operators, by bucket.
  struct Sums {
    bool built = false;
    double bucket_s[3] = {0, 0, 0};
    double flops = 0, bytes = 0;
    int fallbacks = 0;
    void add(const Priced& p);
  };
  // Decode-only steps: everything but attention depends on the padded rows alone.
  mutable std::vector<Sums> decode_rest_;
  // Steps with prompt chunks (not MLA, whose kv_b_proj reads the cached tokens): every
  // operator but attention, the final norm and lm_head depends on the step's tokens alone;
  // those two on its sampled rows alone.
  mutable std::vector<Sums> mixed_rest_;
  mutable std::vector<Sums> sampled_tail_;
  // Steps priced operator by operator (price_ops) where no table path above applies: at
  // heads the attention tables do not hold, every step. Every operator but attention
  // depends on the step's rows alone -- decode-only: its padded rows; with prompt chunks
  // (not MLA, see mixed_rest_): its tokens, and the final norm and lm_head its sampled
  // rows -- so their prices are made once per row count and a step prices only its
  // attention anew. Kept in op-graph order and added in that order, they give the sums of
  // pricing every operator, bit for bit, without listing the operators again.
  struct OpPrice {  // what a step's cost adds up of an operator's Priced
    double time_s = 0, flops = 0, bytes = 0;
    int bucket = 0;
    bool fallback = false;
  };
  static OpPrice summed(const Priced& p) { return {p.time_s, p.flops, p.bytes, p.bucket, p.fallback}; }
  struct KnownOps {
    std::vector<OpPrice> prices;   // empty: not made yet
    std::size_t attention_at = 0;  // where the step's attention operators go among them
  };
  mutable std::vector<KnownOps> decode_ops_;  // by padded rows: the decode-only step's operators
  mutable std::vector<KnownOps> body_ops_;    // by tokens: a step with prompt chunks, but its tail
  mutable std::vector<KnownOps> tail_ops_;    // by sampled rows: the final norm and lm_head
  // Fills `into` (by rows) with the operators of `ops` that `keep` selects, priced for `batch`.
  template <class Keep>
  void know_ops(KnownOps& into, const StepOps& ops, const BatchShape& batch, double step_rows, Keep keep) const;
  static constexpr std::int64_t kMaxCachedRows = 16384;
  template <class Probe, class Keep>
  const Sums& cached_sums(std::vector<Sums>& cache, std::int64_t key, Probe probe, Keep keep) const;
  const Sums& decode_rest(std::int64_t rows) const;
  const Sums& mixed_rest(std::int64_t tokens) const;
  const Sums& sampled_tail(std::int64_t sampled) const;
  StepCost assemble(const Sums& a, const Sums& b, double attention_memory_s, double attention_compute_s) const;
  // A step's prompt attention, all layers, and whether its bound is compute (its bucket).
  struct PrefillAttention {
    bool known = false;
    double seconds = 0;
    bool compute_bound = false;
  };
  PrefillAttention prefill_attention(const BatchShape& batch) const;
  // By new tokens: a step's one prompt chunk without a cached prefix.
  mutable std::vector<PrefillAttention> single_prompt_attention_;
};

// The table query for a model and deployment: the rows its kernels need.
KernelTableQuery kernel_table_query(const ModelSpec& model, const Deployment& dep);

}  // namespace servesim
