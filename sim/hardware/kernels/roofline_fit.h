#pragma once
// The roofline's parameters re-derived from a GPU's measured kernel tables, so that a GPU
// the tables do not cover (a hypothetical one, a PCIe card) is priced with the physics the
// tables show on the ones they do. Each op family is fitted to its own table's rows by
// least squares on relative error, with the roofline's own formula for that op
// (sim/hardware/roofline.h), in an order where each family uses only what earlier ones
// fixed:
//   gemm        gemm_perf bf16 rows            -> gemm_efficiency, memory_efficiency,
//                                                  kernel_overhead_us
//   attn_decode  generation_attention_perf rows -> attention_overhead_us,
//                (bf16 KV)                         decode_attention_efficiency(_many),
//                                                  decode_attention_half_seqs,
//                                                  decode_attention_row_overhead_keys
//   attn_prefill context_attention_perf rows   -> attention_efficiency,
//                (bf16 KV, no prefix)              attention_row_overhead_keys
//   all_reduce   custom_allreduce_perf rows    -> interconnect_latency_us, comm_efficiency
//                (CUDA-graph rows, tp 2/4/8: the engine's own in-node collective)
// and one derived value: elementwise_efficiency = the HBM bandwidth the set's
// weight-streaming GEMMs reach (KernelTables::streaming_bytes_per_s) over the datasheet's,
// the rule the `kernels` model applies to the norms and activations the tables do not
// time; layer_overhead_us = those kernels per layer x the set's shortest kernel (the
// `kernels` model's floor); step_overhead_us = 0 (the engine's CPU time is the engine
// profile's, as under the `kernels` model). Families with no rows in the set are left as
// they were.
//
// Rows the fit does not use are reported under the fitted profile for what they show:
// fp8 GEMMs (`gemm_fp8`) and decode attention over an fp8 KV cache (`attn_decode_fp8`).
#include <string>
#include <utility>
#include <vector>

#include "sim/hardware/hardware_spec.h"

namespace servesim {

struct TableFitFamily {
  std::string name;               // "gemm", "attn_prefill", ...
  std::string rows_from;          // "gemm_perf.csv.gz, gemm_dtype bfloat16"
  // The YAML keys fitted and their values in the YAML's units ({} for a family only
  // reported).
  std::vector<std::pair<std::string, double>> values;
  int rows = 0;
  double median_abs_error = 0;    // |predicted - measured| / measured over the rows
  double p90_abs_error = 0;
  double max_abs_error = 0;
  double median_signed_error = 0;
};

struct TableFitResult {
  std::string set_name;                  // "h100_sxm/vllm-0.14.0"
  HardwareSpec hardware;                 // the start profile with the fitted values
  std::vector<TableFitFamily> families;  // fitted first, then the reported-only ones
  // Values set by a rule rather than a fit, with the rule in words.
  std::vector<std::pair<std::string, double>> derived;
  std::vector<std::string> derived_why;
  std::vector<std::pair<std::string, double>> values() const;  // every value written
};

// Fits the roofline parameters of `start` to the tables in `set_dir` (a folder of
// data/kernels/, e.g. ".../h100_sxm/vllm-0.14.0") named `set_name`. Throws ConfigError
// naming the file for a table it cannot read, or when the set has no GEMM rows in bf16.
TableFitResult fit_roofline_to_tables(const HardwareSpec& start, const std::string& set_dir,
                                      const std::string& set_name);

}  // namespace servesim
