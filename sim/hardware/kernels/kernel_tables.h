#pragma once
// One pool's measured kernel tables: the rows of data/kernels/<gpu>/<engine>-<version>/
// (NVIDIA aiconfigurator's database, data/kernels/README.md) that its model and deployment
// can use, held as KernelGrids. Loading keeps only those rows (the GEMM shapes of the
// model's dtype, attention of its head layout, all-reduce at its tp, MoE of its expert
// shape), so a pool holds a few thousand points, not the files' 2.8 million rows.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/hardware/kernels/kernel_grid.h"

namespace servesim {

// What the pool runs: the keys that select table rows.
struct KernelTableQuery {
  std::string gemm_dtype = "bfloat16";   // gemm_perf.gemm_dtype: bfloat16 | fp8
  std::string kv_dtype = "bfloat16";     // attention kv_cache_dtype: bfloat16 | fp8
  int head_dim = 0;
  // DeepSeek's multi-head latent attention: attention comes from the MLA tables
  // (context_mla_perf, generation_mla_perf), keyed by q_heads and kv_dtype alone.
  bool mla = false;
  int q_heads = 0;                       // query heads per GPU
  int kv_heads = 0;                      // KV heads per GPU
  int tp = 1;
  // Mixture of experts (experts == 0: dense): whole-model shape and its split.
  std::string moe_dtype = "bfloat16";
  int moe_hidden = 0;
  int moe_inter = 0;
  int topk = 0;
  int experts = 0;
  int moe_tp = 1;
  int moe_ep = 1;
  // A tp group across machines: the NCCL set's folder (data/kernels/<gpu>/nccl-<version>)
  // and the GPUs of one machine, whose measured NCCL all-reduce is the floor of the group's
  // ("" / 0 when the group fits in one machine).
  std::string nccl_dir;
  std::string nccl_set;
  int node_gpus = 0;
};

// Which table set a GPU, engine and version resolve to.
struct KernelSetChoice {
  std::string dir;      // absolute or root-relative folder holding the set's .csv.gz files
  std::string name;     // "h100_sxm/vllm-0.14.0"
  std::string note;     // why this version, when it is not the one asked for ("" if exact)
};

// The set under `root` (data/kernels) for `gpu` (a folder name such as "h100_sxm"),
// `engine` (vllm | sglang | trtllm) and `version`: the newest measured version not newer
// than the one asked for, else the oldest one measured. nullopt when the GPU or engine
// has no tables; `why` then says which is missing.
std::optional<KernelSetChoice> choose_kernel_set(const std::string& root, const std::string& gpu,
                                                 const std::string& engine, const std::string& version,
                                                 std::string* why);
// -1, 0, 1 as a is older than, the same as, newer than b ("0.14.0" < "0.24.0",
// "1.3.0rc20" < "1.3.0"); numbers compare by value.
int compare_versions(const std::string& a, const std::string& b);

struct KernelTables {
  std::string set_name;
  KernelTableQuery query;
  // gemm_perf sites of query.gemm_dtype: (n, k) -> latency over m.
  std::map<std::pair<int, int>, KernelGrid> gemm;
  // context_attention_perf: (num_heads, isl, batch_size) for the query's KV heads (or MHA),
  // head_dim and KV dtype, bf16 math, full attention. For an MLA query, context_mla_perf at
  // the query's KV dtype, bf16 math, in the same coordinates.
  std::optional<KernelGrid> context_attention;
  // generation_attention_perf: (num_heads, batch_size, s = isl + step), same key; for an
  // MLA query, generation_mla_perf.
  std::optional<KernelGrid> generation_attention;
  // custom_allreduce_perf at num_gpus == tp (CUDA-graph rows): latency over message elements.
  std::optional<KernelGrid> all_reduce;
  // nccl_perf all_reduce, half, at num_gpus == query.node_gpus (nccl-tests inside one
  // machine): latency over message elements. Set only for a tp group across machines.
  std::optional<KernelGrid> nccl_node_all_reduce;
  // moe_perf for the query's expert shape: latency over tokens; the routing distribution used.
  std::optional<KernelGrid> moe;
  std::string moe_distribution;
  // Why the set's MLA tables were not used, when they were read and set aside ("" else).
  std::string mla_note;
  // Why the set's fp8 GEMM or MoE rows were set aside and where fp8 came from instead
  // ("" when the set's own fp8 rows were used or the pool is not fp8).
  std::string fp8_note;
  // The shortest GEMM in the whole table: what the smallest kernel of this engine costs on
  // this GPU inside a CUDA graph, the floor of any kernel's time.
  double min_kernel_s = 0;
  // The HBM bandwidth a streaming kernel reaches on this GPU under this engine: the median
  // of bytes / latency over the bf16 GEMM rows that only stream weights (m <= 8 rows, at
  // least 16M weights). Norms, activations and residual adds, which the tables do not
  // time, stream at it. 0 when the table has no such rows.
  double streaming_bytes_per_s = 0;
  // Rows of each table kept, for describe().
  std::size_t rows_kept = 0;
};

// Loads the rows of the set in `dir` that `query` selects. Throws ConfigError (file, line)
// for a table it cannot read. `name` is KernelSetChoice::name.
std::shared_ptr<const KernelTables> load_kernel_tables(const std::string& dir, const std::string& name,
                                                       const KernelTableQuery& query);

}  // namespace servesim
