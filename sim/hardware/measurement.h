#pragma once
// One row of a step-time measurement file (data/measurements/*.csv, written by
// scripts/profile_gpu.py): a whole engine step, one kernel, or an isolated ceiling.
// The scenario layer reads the CSV (sim/scenario/measurements_csv.h); calibration fits to it.
#include <cstdint>
#include <string>

#include "sim/model/dtype.h"

namespace servesim {

enum class MeasurementKind {
  ceiling,       // isolated copy bandwidth or large-GEMM rate; documentation only
  gemm,          // one M x K x N GEMM
  step,          // a whole model step: `prefill`, `decode` (or both, `mixed`)
  attn_prefill,  // one layer's attention over a prefill chunk
  attn_decode,   // one layer's attention for a decode batch
};

struct Measurement {
  MeasurementKind kind = MeasurementKind::step;
  std::string kind_name;  // as written in the file ("prefill", "decode", ...)
  std::string model;      // the `model` cell (free text for kernel rows)
  std::int64_t prefill_tokens = 0;
  std::int64_t past_tokens = 0;
  std::int64_t decode_batch = 0;
  std::int64_t decode_context = 0;  // per sequence
  std::int64_t gemm_m = 0, gemm_k = 0, gemm_n = 0;
  Dtype dtype = Dtype::bf16;
  double ms = 0;  // measured milliseconds (median of repetitions)
  int line = 0;   // 1-based line in the file, for reports

  // "prefill 1024", "decode 16 x 4096", "gemm 128x4096x6144", ...
  std::string label() const;
};

}  // namespace servesim
