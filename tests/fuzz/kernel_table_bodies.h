#pragma once
// What the libFuzzer target of the measured kernel tables (data/kernels/<gpu>/<set>/
// *.csv.gz, read by sim/hardware/kernels/) does with one input (see fuzz_bodies.h for why
// it is a plain function). The input is a table set: gemm_perf.csv.gz, then optionally,
// each after a line "#### NAME", the set's other tables and an NCCL set's nccl_perf.csv.gz
// (fuzz_util.h split_files). A table may be gzip-compressed or plain text (zlib reads
// both). The set is loaded for three pools (dense GQA bf16 across machines; MHA fp8 with
// fp8 experts; MLA with bf16 experts), and every grid that loads is read back.
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "tests/fuzz/fuzz_util.h"

namespace servesim::fuzz {

// A grid that loaded: its points are finite, and it reads back a finite time >= 0 at, below,
// between and far beyond them.
inline void check_kernel_grid(const KernelGrid& grid) {
  if (grid.empty()) finding("an empty kernel grid was kept");
  const auto sol = SolOf([](const KernelCoord& at) { return 1e-9 * (1 + std::abs(at[0]) + std::abs(at[1]) + std::abs(at[2])); });
  for (const KernelGrid::Point& p : grid.points()) {
    for (const double x : p.at)
      if (!std::isfinite(x)) finding("a kernel grid point with a coordinate that is not finite");
    if (!std::isfinite(p.latency_s) || p.latency_s < 0) finding("a kernel grid point with a latency that is not finite and >= 0");
  }
  const KernelCoord first = grid.points().front().at, last = grid.points().back().at;
  for (const KernelCoord& q : {first, last, KernelCoord{0, 0, 0}, KernelCoord{1, 1, 1},
                               KernelCoord{(first[0] + last[0]) / 2, (first[1] + last[1]) / 2, (first[2] + last[2]) / 2},
                               KernelCoord{first[0] * 1e6, first[1] * 1e6, first[2] * 1e6}}) {
    const double latency_s = grid.eval(q, sol);
    if (!std::isfinite(latency_s) || latency_s < 0) finding("a kernel grid read back a time that is not finite and >= 0");
    (void)grid.covers(q);
  }
}

inline void kernel_table_input(const std::uint8_t* data, std::size_t size) {
  static const TempFolder folder;
  static const std::vector<std::string> names = {
      "context_attention_perf.csv.gz", "generation_attention_perf.csv.gz", "context_mla_perf.csv.gz",
      "generation_mla_perf.csv.gz",    "custom_allreduce_perf.csv.gz",     "moe_perf.csv.gz",
      "nccl_perf.csv.gz"};
  folder.clear();
  const std::string set_dir = folder.path() + "/h100_sxm/vllm-0.14.0", nccl_dir = folder.path() + "/h100_sxm/nccl-2.27.3";
  std::filesystem::create_directories(set_dir);
  std::filesystem::create_directories(nccl_dir);
  for (const auto& [name, text] : split_files(data, size, "gemm_perf.csv.gz", names)) {
    const std::string dir = name == "nccl_perf.csv.gz" ? nccl_dir : set_dir;
    std::ofstream(dir + "/" + name, std::ios::binary | std::ios::trunc) << text;
  }

  KernelTableQuery dense;  // Llama-3-70B at tp 2 with 1 GPU a machine
  dense.head_dim = 128;
  dense.q_heads = 32;
  dense.kv_heads = 4;
  dense.tp = 2;
  dense.nccl_dir = nccl_dir;
  dense.nccl_set = "h100_sxm/nccl-2.27.3";
  dense.node_gpus = 2;
  KernelTableQuery fp8;  // MHA, fp8 weights and KV cache, Mixtral's experts in fp8
  fp8.gemm_dtype = fp8.kv_dtype = fp8.moe_dtype = "fp8";
  fp8.head_dim = 128;
  fp8.q_heads = fp8.kv_heads = 32;
  fp8.moe_hidden = 4096;
  fp8.moe_inter = 14336;
  fp8.topk = 2;
  fp8.experts = 8;
  KernelTableQuery mla;  // DeepSeek-style latent attention with bf16 experts
  mla.mla = true;
  mla.q_heads = 128;
  mla.moe_hidden = 4096;
  mla.moe_inter = 14336;
  mla.topk = 2;
  mla.experts = 8;
  for (const KernelTableQuery& query : {dense, fp8, mla}) {
    try {
      const auto t = load_kernel_tables(set_dir, "h100_sxm/vllm-0.14.0", query);
      for (const auto& [site, grid] : t->gemm) check_kernel_grid(grid);
      for (const auto* grid : {&t->context_attention, &t->generation_attention, &t->all_reduce,
                               &t->nccl_node_all_reduce, &t->moe})
        if (*grid) check_kernel_grid(**grid);
      if (!std::isfinite(t->min_kernel_s) || t->min_kernel_s < 0) finding("a kernel set's shortest kernel is not finite and >= 0");
      if (!std::isfinite(t->streaming_bytes_per_s) || t->streaming_bytes_per_s < 0)
        finding("a kernel set's streaming bandwidth is not finite and >= 0");
    } catch (const ConfigError&) {
      // rejected with file:line: the outcome the contract allows
    }
  }
}

}  // namespace servesim::fuzz
